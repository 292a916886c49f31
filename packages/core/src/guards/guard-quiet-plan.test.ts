import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryCircuitBreakerStore } from './circuit-breaker-store.js';
import { createBudget } from './create-budget.js';
import { guard } from './guard.js';
import { createMemoryRateLimitStore, resetRateLimits } from './rate-limit-store.js';

// A guard whose stores are all in memory keeps its key's breaker, buckets and session between
// calls (quiet-plan.ts). Whatever a store forgets must be forgotten by those calls too.

const noop = async (_q: string) => 'ok';
const codeOf = (pending: Promise<unknown>) =>
  pending.then(
    () => 'ok',
    (error: { code?: string }) => error.code ?? 'none',
  );

beforeEach(() => resetRateLimits());

describe('guard: calls that keep the stores’ state between them', () => {
  it('see a rate limit reset: the bucket is full again', async () => {
    const now = 1_000;
    const limited = guard(noop, { clock: () => now, rateLimit: { callsPerSecond: 1, burst: 1 } });
    expect(await codeOf(limited('q'))).toBe('ok');
    expect(await codeOf(limited('q'))).toBe('RATE_LIMITED');
    resetRateLimits();
    expect(await codeOf(limited('q'))).toBe('ok');
    expect(await codeOf(limited('q'))).toBe('RATE_LIMITED');
  });

  it('see a reset of another key of their store', async () => {
    const store = createMemoryRateLimitStore();
    const now = 1_000;
    const limited = guard(noop, {
      clock: () => now,
      rateLimit: { callsPerSecond: 1, burst: 1, store, sharedKey: 'search' },
    });
    expect(await codeOf(limited('q'))).toBe('ok');
    await store.reset('shared:search');
    expect(await codeOf(limited('q'))).toBe('ok');
    await store.reset('shared:other');
    expect(await codeOf(limited('q'))).toBe('RATE_LIMITED');
  });

  it('share a sharedKey bucket with other guards', async () => {
    const now = 1_000;
    const options = {
      clock: () => now,
      rateLimit: { callsPerSecond: 1, burst: 2, sharedKey: 's' },
    };
    const first = guard(noop, options);
    const second = guard(noop, options);
    expect(await codeOf(first('q'))).toBe('ok');
    expect(await codeOf(second('q'))).toBe('ok');
    expect(await codeOf(first('q'))).toBe('RATE_LIMITED');
  });

  it('see a budget reset: the session starts from nothing, for every guard', async () => {
    const budget = createBudget({ maxCallsPerSession: 2, costPerCall: 0.01, alertThreshold: 1 });
    const first = guard(noop, { budget });
    const second = guard(noop, { budget });
    expect(await codeOf(first('q'))).toBe('ok');
    await budget.reset();
    expect(await codeOf(second('q'))).toBe('ok');
    expect(await codeOf(second('q'))).toBe('ok');
    // the session's two calls are spent since the reset, whichever guard made them
    expect(await codeOf(first('q'))).toBe('BUDGET_EXCEEDED');
    expect(await budget.spent()).toBe(20_000);
  });

  it('see a breaker reset: a circuit the store closed admits calls', async () => {
    const store = createMemoryCircuitBreakerStore();
    let fail = true;
    const flaky = guard(
      async (_q: string) => {
        if (fail) throw new Error('down');
        return 'ok';
      },
      { circuitBreaker: { failureThreshold: 1, recoveryTimeout: 3600, store } },
    );
    expect(await codeOf(flaky('q'))).toBe('none');
    expect(await codeOf(flaky('q'))).toBe('CIRCUIT_OPEN');
    await store.reset();
    fail = false;
    expect(await codeOf(flaky('q'))).toBe('ok');
    expect(flaky.breakerState).toBe('closed');
  });
});
