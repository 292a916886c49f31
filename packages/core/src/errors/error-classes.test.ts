import { describe, expect, it, vi } from 'vitest';
import * as core from '../index.js';

type Core = typeof core;

/** One instance of every error class core exports, built from the given copy of core. */
function instances(c: Core) {
  return {
    TracewardenError: new c.TracewardenError('NO_TRACER', { message: 'm' }),
    ConfigurationError: new c.ConfigurationError({
      message: 'm',
      entryPoint: 'guard',
      issues: [{ path: 'budgets', expected: 'a known option', received: 'an object' }],
    }),
    TraceError: new c.TraceError({ code: 'VALIDATION', message: 'm' }),
    TracerFlushError: new c.TracerFlushError({ traceId: 'tr_1', operation: 'flush', errors: [] }),
    TracerClosedError: new c.TracerClosedError({ traceId: 'tr_1', method: 'logMessage' }),
    SinkError: new c.SinkError({ code: 'SINK_CLOSED', message: 'm' }),
    PolicyViolationError: new c.PolicyViolationError({ violations: [] }),
    PolicyError: new c.PolicyError({ code: 'POLICY_SYNTAX', message: 'm' }),
    DatasetError: new c.DatasetError({ code: 'DATASET_READ_FAILED', message: 'm', path: 'a' }),
    BlockLimitError: new c.BlockLimitError({ message: 'm', setting: 'LIMIT_MSG_BYTES', value: -1 }),
    UnknownModelPriceError: new c.UnknownModelPriceError({ message: 'm', model: 'x' }),
    InvalidCostError: new c.InvalidCostError({ message: 'm', cost: Number.NaN }),
    GuardError: new c.GuardError('TIMEOUT', 'timeout', { message: 'm' }),
    GuardTimeoutError: new c.GuardTimeoutError({ message: 'm' }),
    CircuitOpenError: new c.CircuitOpenError({ message: 'm' }),
    BudgetExceededError: new c.BudgetExceededError({ message: 'm' }),
    RateLimitedError: new c.RateLimitedError({ message: 'm' }),
    ValidationFailedError: new c.ValidationFailedError({ message: 'm' }),
    HallucinationError: new c.HallucinationError({ message: 'm' }),
  };
}

type Name = keyof ReturnType<typeof instances>;
const guardErrors: readonly Name[] = [
  'GuardTimeoutError',
  'CircuitOpenError',
  'BudgetExceededError',
  'RateLimitedError',
  'ValidationFailedError',
  'HallucinationError',
];

/** Whether `ofClass`'s isInstance must accept an instance of `name`. */
function expected(ofClass: Name, name: Name): boolean {
  if (ofClass === name || ofClass === 'TracewardenError') return true;
  return ofClass === 'GuardError' && guardErrors.includes(name);
}

const names = Object.keys(instances(core)) as Name[];

/** Each class's isInstance, by name, from the given copy of core. */
function recognisers(c: Core): Record<Name, (value: unknown) => boolean> {
  const { GuardError, PolicyError } = c;
  return {
    TracewardenError: (e) => c.TracewardenError.isInstance(e),
    ConfigurationError: (e) => c.ConfigurationError.isInstance(e),
    TraceError: (e) => c.TraceError.isInstance(e),
    TracerFlushError: (e) => c.TracerFlushError.isInstance(e),
    TracerClosedError: (e) => c.TracerClosedError.isInstance(e),
    SinkError: (e) => c.SinkError.isInstance(e),
    PolicyViolationError: (e) => c.PolicyViolationError.isInstance(e),
    PolicyError: (e) => PolicyError.isInstance(e),
    DatasetError: (e) => c.DatasetError.isInstance(e),
    BlockLimitError: (e) => c.BlockLimitError.isInstance(e),
    UnknownModelPriceError: (e) => c.UnknownModelPriceError.isInstance(e),
    InvalidCostError: (e) => c.InvalidCostError.isInstance(e),
    GuardError: (e) => GuardError.isInstance(e),
    GuardTimeoutError: (e) => c.GuardTimeoutError.isInstance(e),
    CircuitOpenError: (e) => c.CircuitOpenError.isInstance(e),
    BudgetExceededError: (e) => c.BudgetExceededError.isInstance(e),
    RateLimitedError: (e) => c.RateLimitedError.isInstance(e),
    ValidationFailedError: (e) => c.ValidationFailedError.isInstance(e),
    HallucinationError: (e) => c.HallucinationError.isInstance(e),
  };
}
const ours = recognisers(core);

describe('error classes: isInstance', () => {
  it('each class recognises its own instances and its subclasses, and no other class', () => {
    const made = instances(core);
    for (const ofClass of names) {
      for (const name of names) {
        expect(
          { ofClass, name, recognised: ours[ofClass](made[name]) },
          `${ofClass}.isInstance(new ${name})`,
        ).toEqual({ ofClass, name, recognised: expected(ofClass, name) });
      }
    }
  });

  it('recognises errors made by another copy of the package (another module instance)', async () => {
    vi.resetModules();
    const copy = (await import('../index.js')) as Core;
    // a real copy: its classes are not ours, so `instanceof` fails across the two
    expect(copy.BudgetExceededError).not.toBe(core.BudgetExceededError);
    const theirs = instances(copy);
    const copyRecognises = recognisers(copy);
    expect(theirs.BudgetExceededError instanceof core.BudgetExceededError).toBe(false);
    for (const ofClass of names) {
      for (const name of names) {
        expect(ours[ofClass](theirs[name]), `${ofClass}.isInstance(copy's ${name})`).toBe(
          expected(ofClass, name),
        );
        // and the other way round
        expect(copyRecognises[ofClass](instances(core)[name])).toBe(expected(ofClass, name));
      }
    }
  });

  it('answers false, without throwing, for values that are no errors or cannot be read', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no reads');
        },
      },
    );
    const samePlainShape = { code: 'BUDGET_EXCEEDED', status: 'budget_exceeded', name: 'x' };
    for (const ofClass of names) {
      for (const value of [hostile, samePlainShape, new Error('plain'), null, undefined, 'x', 42]) {
        expect(ours[ofClass](value)).toBe(false);
      }
    }
  });

  it('keeps GuardError.isGuardError and PolicyError.isPolicyError as the same test', () => {
    const made = instances(core);
    for (const name of names) {
      expect(core.GuardError.isGuardError(made[name])).toBe(core.GuardError.isInstance(made[name]));
      expect(core.PolicyError.isPolicyError(made[name])).toBe(
        core.PolicyError.isInstance(made[name]),
      );
    }
  });
});
