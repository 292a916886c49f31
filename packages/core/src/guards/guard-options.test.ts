import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/configuration-error.js';
import { createAdapterRuntime } from '../recording/create-adapter-runtime.js';
import { createBudget } from './create-budget.js';
import { guard } from './guard.js';
import { guardTools } from './guard-tools.js';

const tool = async (q: string) => q;

/** The ConfigurationError thrown by `make`, or a failure when none is thrown. */
function rejection(make: () => unknown): ConfigurationError {
  try {
    make();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe('guard options are checked when the guard is made', () => {
  it('rejects a misspelt option instead of silently running without that guard', () => {
    const error = rejection(() => guard(tool, { budgets: { maxCostPerSession: 1 } } as never));
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.entryPoint).toBe('guard');
    expect(error.path).toBe('budgets');
    expect(error.message).toContain('did you mean "budget"?');
  });

  it('rejects a misspelt nested option with its full path', () => {
    const error = rejection(() => guard(tool, { budget: { maxCostPerSesion: 1 } } as never));
    expect(error.path).toBe('budget.maxCostPerSesion');
    expect(error.message).toContain('did you mean "maxCostPerSession"?');
  });

  it.each([
    ['budget.maxCostPerSession', { budget: { maxCostPerSession: Number.NaN } }, 'NaN'],
    ['budget.maxCostPerSession', { budget: { maxCostPerSession: -1 } }, '-1'],
    ['budget.maxCallsPerSession', { budget: { maxCallsPerSession: Number.NaN } }, 'NaN'],
    ['budget.maxCallsPerSession', { budget: { maxCallsPerSession: 2.5 } }, '2.5'],
    ['budget.costPerCall', { budget: { costPerCall: Number.POSITIVE_INFINITY } }, 'Infinity'],
    ['rateLimit.callsPerSecond', { rateLimit: { callsPerSecond: Number.NaN } }, 'NaN'],
    ['rateLimit.callsPerSecond', { rateLimit: { callsPerSecond: -5 } }, '-5'],
    ['timeout.timeoutSeconds', { timeout: { timeoutSeconds: Number.NaN } }, 'NaN'],
    [
      'timeout.timeoutSeconds',
      { timeout: { timeoutSeconds: Number.POSITIVE_INFINITY } },
      'Infinity',
    ],
    ['timeout.timeoutSeconds', { timeout: { timeoutSeconds: 30 * 24 * 3600 } }, '2592000'],
    ['timeout.timeoutSeconds', { timeout: { timeoutSeconds: '5' } }, '"5"'],
    ['timeout.onTimeout', { timeout: { timeoutSeconds: 5, onTimeout: 'stop' } }, '"stop"'],
    ['retry.maxRetries', { retry: { maxRetries: -1 } }, '-1'],
    ['retry.maxDelay', { retry: { maxDelay: 1e12 } }, '1000000000000'],
    [
      'rateLimit.maxWaitMs',
      { rateLimit: { callsPerSecond: 1, maxWaitMs: 1e15 } },
      '1000000000000000',
    ],
    ['circuitBreaker.recoveryTimeout', { circuitBreaker: { recoveryTimeout: Number.NaN } }, 'NaN'],
    ['tracer', { tracer: () => {} }, 'a function (tracer)'],
    ['sideEffect', { sideEffect: 'delete' }, '"delete"'],
  ])('rejects %s = %s', (path, options, received) => {
    const error = rejection(() => guard(tool, options as never));
    expect(error.issues[0]).toMatchObject({ path, received });
    expect(error.message).toContain(path);
  });

  it('rejects a positive budget limit under half a micro-USD, which would round to 0 and refuse every call', () => {
    for (const key of ['maxCostPerSession', 'maxCostPerCall'] as const) {
      const error = rejection(() => guard(tool, { budget: { [key]: 0.0000001 } }));
      expect(error.path).toBe(`budget.${key}`);
      expect(error.message).toContain('one micro-USD');
      expect(() => guard(tool, { budget: { [key]: 0 } })).not.toThrow();
      expect(() => guard(tool, { budget: { [key]: 0.000001 } })).not.toThrow();
    }
  });

  it('names the timer maximum when a timeout is too long', () => {
    const error = rejection(() => guard(tool, { timeout: { timeoutSeconds: 1e9 } }));
    expect(error.message).toContain('24.8 days');
  });

  it.each([
    ['no rate at all', {}],
    ['only a burst', { burst: 10 }],
    ['only a wait', { maxWaitMs: 500 }],
  ])(
    'rejects rate-limit options without a rate (%s), which would limit nothing',
    (_label, rateLimit) => {
      const error = rejection(() => guard(tool, { rateLimit } as never));
      expect(error.path).toBe('rateLimit');
      expect(error.message).toContain('callsPerSecond, callsPerMinute or callsPerHour');
    },
  );

  it('rejects a rate so small that its refill per millisecond rounds to 0', () => {
    const error = rejection(() => guard(tool, { rateLimit: { callsPerSecond: Number.MIN_VALUE } }));
    expect(error.path).toBe('rateLimit.callsPerSecond');
  });

  it("rejects model-call rate limits without a rate in an adapter's guards too", () => {
    const error = rejection(() =>
      createAdapterRuntime({ guards: { rateLimit: { burst: 3 } } } as never, {
        entryPoint: 'myAdapter',
      }),
    );
    expect(error.entryPoint).toBe('myAdapter');
    expect(error.path).toBe('guards.rateLimit');
  });

  it('rejects a tool that is not a function', () => {
    expect(rejection(() => guard('search' as never)).path).toBe('fn');
  });

  it('accepts a shared Budget object and every documented option', () => {
    const budget = createBudget({ maxCostPerSession: 1 });
    const guarded = guard(tool, {
      name: 'search',
      budget,
      retry: { maxRetries: 2, initialDelay: 0, jitter: false, retryOn: [TypeError] },
      timeout: { timeoutSeconds: 2_147_483.647 },
      rateLimit: { callsPerSecond: 5, burst: 5, sharedKey: '' },
      circuitBreaker: { failureThreshold: 3 },
      sideEffect: 'read',
      logger: console,
      signal: new AbortController().signal,
    });
    expect(guarded.budget).toBe(budget);
  });

  it('rejects bad options given to createBudget and guardTools', () => {
    expect(rejection(() => createBudget({ alertThreshold: Number.NaN })).entryPoint).toBe(
      'createBudget',
    );
    const error = rejection(() => guardTools({ search: tool }, { retrys: {} } as never));
    expect(error.entryPoint).toBe('guardTools');
    expect(error.path).toBe('retrys');
  });

  it('rejects per-tool options for a tool that was not given', () => {
    const error = rejection(() =>
      guardTools({ search: tool }, { tools: { serach: { sideEffect: 'write' } } } as never),
    );
    expect(error.path).toBe('options.tools.serach');
    expect(error.message).toContain('"search"');
  });

  it('rejects bad per-tool options with their path', () => {
    const error = rejection(() =>
      guardTools({ search: tool }, { tools: { search: { timeout: { timeoutSeconds: -1 } } } }),
    );
    expect(error.path).toBe('tools.search.timeout.timeoutSeconds');
  });
});
