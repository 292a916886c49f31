import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BudgetAlert } from './create-budget.js';
import { guard } from './guard.js';

/**
 * A guard nobody listens to takes a shorter success path (budget settled and breaker updated
 * without building the settlement or the call's ending). Whatever it skips must not show: the
 * same calls through an untracked guard and through one with an `onEntry` hook (which always
 * takes the general path) must leave the same spend, alerts, breaker states, stats and results.
 */
type Step = 'ok' | 'sync' | 'fail' | 'wait';

/** A call's outcome and session (undefined: the guard's own), or a wait. */
const steps = fc.array(
  fc.tuple(
    fc.constantFrom<Step>('ok', 'ok', 'sync', 'fail', 'wait'),
    fc.constantFrom(undefined, 'a', 'b'),
  ),
  { minLength: 1, maxLength: 40 },
);

const budgets = fc.record({
  maxCostPerSession: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
  maxCallsPerSession: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
  maxCostPerCall: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
  costPerCall: fc.integer({ min: 0, max: 3 }),
  alertThreshold: fc.constantFrom(0.5, 0.8, 1),
  onExceed: fc.constantFrom('block' as const, 'warn' as const, 'log' as const),
});

const breakers = fc.record({
  failureThreshold: fc.integer({ min: 1, max: 3 }),
  successThreshold: fc.integer({ min: 1, max: 2 }),
});

function harness(
  budget: {
    maxCostPerSession: number | undefined;
    maxCallsPerSession: number | undefined;
    maxCostPerCall: number | undefined;
    costPerCall: number;
    alertThreshold: number;
    onExceed: 'block' | 'warn' | 'log';
  },
  breaker: { failureThreshold: number; successThreshold: number },
  tracked: boolean,
  time: { now: number },
  timeout: boolean,
) {
  const alerts: BudgetAlert[] = [];
  const warnings: string[] = [];
  let outcome: Step = 'ok';
  const tool = (_q: string) => {
    if (outcome === 'sync') return 'sync';
    if (outcome === 'fail') return Promise.reject(new Error('tool failed'));
    return Promise.resolve('ok');
  };
  // micro-USD amounts as USD: 1 unit = 1 micro-USD keeps the figures small
  const usd = (micro: number | undefined) => (micro === undefined ? undefined : micro / 1e6);
  const fn = guard(tool, {
    name: 'tool',
    clock: () => time.now,
    logger: { warn: (message) => warnings.push(message) },
    circuitBreaker: { ...breaker, recoveryTimeout: 10 },
    budget: {
      maxCostPerSession: usd(budget.maxCostPerSession),
      maxCallsPerSession: budget.maxCallsPerSession,
      maxCostPerCall: usd(budget.maxCostPerCall),
      costPerCall: usd(budget.costPerCall),
      alertThreshold: budget.alertThreshold,
      onExceed: budget.onExceed,
      onAlert: (alert) => alerts.push(alert),
    },
    ...(tracked ? { onEntry: () => {} } : {}),
    // a deadline that never passes: the fast path's other branch (one shared timer)
    ...(timeout ? { timeout: { timeoutSeconds: 60 } } : {}),
  });
  return {
    async call(step: Step, sessionId: string | undefined): Promise<string> {
      outcome = step;
      const pending = sessionId === undefined ? fn('q') : fn.invoke({ sessionId }, 'q');
      return pending.then(
        (value) => `value:${String(value)}`,
        (error: { code?: string }) => `error:${error.code ?? 'none'}`,
      );
    },
    async state() {
      return {
        spent: [await fn.budget!.spent(), await fn.budget!.spent('a'), await fn.budget!.spent('b')],
        remaining: [
          await fn.budget!.remaining(),
          await fn.budget!.remaining('a'),
          await fn.budget!.remaining('b'),
        ],
        breaker: fn.breakerState,
        stats: structuredClone(fn.stats),
        alerts: structuredClone(alerts),
        warnings: [...warnings],
      };
    },
  };
}

describe('guard: the untracked success path', () => {
  it('leaves the same budget, alerts, breaker and stats as the general path', async () => {
    await fc.assert(
      fc.asyncProperty(
        steps,
        budgets,
        breakers,
        fc.boolean(),
        async (sequence, budget, breaker, timeout) => {
          const time = { now: Date.UTC(2026, 0, 1) };
          const quiet = harness(budget, breaker, false, time, timeout);
          const general = harness(budget, breaker, true, time, timeout);
          for (const [step, sessionId] of sequence) {
            if (step === 'wait') {
              time.now += 10_000; // the breaker's recovery timeout: open → half-open
              continue;
            }
            const got = await quiet.call(step, sessionId);
            const expected = await general.call(step, sessionId);
            expect(got).toBe(expected);
            expect(await quiet.state()).toEqual(await general.state());
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
