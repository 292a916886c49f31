import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TraceEntry } from '../model/tool-records.js';
import { fakeTime, pendingSleep } from './__fixtures__/fake-time.js';
import { guard } from './guard.js';
import {
  createMemoryRateLimitStore,
  defaultRateLimitStore,
  resetRateLimits,
} from './rate-limit-store.js';
import { RateLimitedError } from './rate-limited-error.js';

beforeEach(() => resetRateLimits());

describe('rate limit', () => {
  it('token bucket: burst at once, then refills lazily at the rate', async () => {
    const time = fakeTime();
    const fn = guard(async () => 'ok', {
      clock: time.clock,
      rateLimit: { callsPerSecond: 2, burst: 3, sharedKey: '' },
    });
    for (let i = 0; i < 3; i++) await expect(fn()).resolves.toBe('ok');
    await expect(fn()).rejects.toBeInstanceOf(RateLimitedError);
    time.advance(499);
    await expect(fn()).rejects.toBeInstanceOf(RateLimitedError);
    time.advance(1);
    await expect(fn()).resolves.toBe('ok');
  });

  it('every configured window holds at once', async () => {
    const time = fakeTime();
    const fn = guard(async () => 'ok', {
      clock: time.clock,
      rateLimit: { callsPerSecond: 10, callsPerMinute: 2, burst: 2, sharedKey: '' },
    });
    await fn();
    await fn();
    time.advance(1000);
    // the per-second bucket is full again, the per-minute one is not
    await expect(fn()).rejects.toBeInstanceOf(RateLimitedError);
    time.advance(29_000);
    await expect(fn()).resolves.toBe('ok');
    const hourly = guard(async () => 'ok', {
      clock: time.clock,
      rateLimit: { callsPerHour: 1, sharedKey: '' },
    });
    await hourly();
    time.advance(3_599_000);
    await expect(hourly()).rejects.toBeInstanceOf(RateLimitedError);
    time.advance(1000);
    await expect(hourly()).resolves.toBe('ok');
  });

  it('sharedKey undefined: one bucket per tool name, across guards', async () => {
    const time = fakeTime();
    const a = guard(async () => 'a', {
      name: 'search',
      clock: time.clock,
      rateLimit: { callsPerMinute: 1 },
    });
    const b = guard(async () => 'b', {
      name: 'search',
      clock: time.clock,
      rateLimit: { callsPerMinute: 1 },
    });
    const other = guard(async () => 'c', {
      name: 'fetch',
      clock: time.clock,
      rateLimit: { callsPerMinute: 1 },
    });
    await a();
    await expect(b()).rejects.toBeInstanceOf(RateLimitedError);
    await expect(other()).resolves.toBe('c');
  });

  it("sharedKey '': a bucket of the guard's own, even with the same name", async () => {
    const time = fakeTime();
    const a = guard(async () => 'a', {
      name: 'search',
      clock: time.clock,
      rateLimit: { callsPerMinute: 1, sharedKey: '' },
    });
    const b = guard(async () => 'b', {
      name: 'search',
      clock: time.clock,
      rateLimit: { callsPerMinute: 1, sharedKey: '' },
    });
    await a();
    await expect(b()).resolves.toBe('b');
    await expect(a()).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('sharedKey string: one bucket for every guard with that key, whatever its name', async () => {
    const time = fakeTime();
    const a = guard(async () => 'a', {
      name: 'search',
      clock: time.clock,
      rateLimit: { callsPerMinute: 1, sharedKey: 'openai' },
    });
    const b = guard(async () => 'b', {
      name: 'embed',
      clock: time.clock,
      rateLimit: { callsPerMinute: 1, sharedKey: 'openai' },
    });
    const c = guard(async () => 'c', {
      name: 'embed',
      clock: time.clock,
      rateLimit: { callsPerMinute: 1, sharedKey: 'other' },
    });
    await a();
    await expect(b()).rejects.toBeInstanceOf(RateLimitedError);
    await expect(c()).resolves.toBe('c');
  });

  it('maxWaitMs waits for a token (recorded) instead of refusing, up to the maximum', async () => {
    const time = fakeTime();
    const entries: TraceEntry[] = [];
    const fn = guard(async () => 'ok', {
      clock: time.clock,
      sleep: time.sleep,
      rateLimit: { callsPerSecond: 4, sharedKey: '', maxWaitMs: 300 },
      onEntry: (e) => entries.push(e),
    });
    await fn();
    await expect(fn()).resolves.toBe('ok');
    expect(time.sleeps).toEqual([250]);
    const decisions = (entries[1]!.result.metadata!.guard as { decisions: unknown[] }).decisions;
    expect(decisions).toContainEqual(
      expect.objectContaining({ guard: 'rate_limit', event: 'waited', wait_ms: 250 }),
    );
    const strict = guard(async () => 'ok', {
      clock: time.clock,
      sleep: time.sleep,
      rateLimit: { callsPerMinute: 1, sharedKey: '', maxWaitMs: 1000 },
    });
    await strict();
    await expect(strict()).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('a limiter wait ends at once on abort', async () => {
    const controller = new AbortController();
    const fn = guard(async () => 'ok', {
      sleep: pendingSleep,
      rateLimit: { callsPerHour: 1, sharedKey: '', maxWaitMs: 3_600_000 },
    });
    await fn();
    const pending = fn.invoke({ signal: controller.signal });
    controller.abort(new Error('cancel'));
    await expect(pending).rejects.toThrow('cancel');
  });

  it('1,000 concurrent calls never exceed the allowed rate', async () => {
    const time = fakeTime();
    let ran = 0;
    const fn = guard(
      async () => {
        ran++;
      },
      { clock: time.clock, rateLimit: { callsPerSecond: 10, burst: 5, sharedKey: 'burst-test' } },
    );
    let allowed = 0;
    for (let second = 0; second < 3; second++) {
      const results = await Promise.allSettled(Array.from({ length: 1000 }, () => fn()));
      allowed += results.filter((r) => r.status === 'fulfilled').length;
      time.advance(1000);
    }
    // burst 5 at t=0, then at most 10 per second
    expect(allowed).toBe(5 + 5 + 5);
    expect(ran).toBe(allowed);
  });

  it('the memory store refills lazily, takes from all buckets atomically, and resets', () => {
    const store = createMemoryRateLimitStore();
    const limits = [
      { capacity: 1, refillPerMs: 1 / 1000 },
      { capacity: 2, refillPerMs: 1 / 60_000 },
    ];
    expect(store.take('k', limits, 0)).toBe(0);
    expect(store.take('k', limits, 500)).toBe(500);
    expect(store.take('k', limits, 1000)).toBe(0);
    // the per-minute bucket is empty now: nothing is taken from the per-second one either
    expect(store.take('k', limits, 2000)).toBeGreaterThan(50_000);
    store.reset('k');
    expect(store.take('k', limits, 2000)).toBe(0);
  });
});

describe('memory rate-limit store: bounded by the keys in use', () => {
  it('drops buckets that refilled to full, and takes exactly as if it kept them', () => {
    // the same takes through a store that sweeps (many keys) and a reference that never forgets
    const limitsOf = (perSecond: number) => [{ capacity: 2, refillPerMs: perSecond / 1000 }];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            key: fc.integer({ min: 0, max: 12 }),
            rate: fc.constantFrom(1, 5),
            wait: fc.constantFrom(0, 1, 2, 50, 300, 2_000),
          }),
          { minLength: 1, maxLength: 150 },
        ),
        (takes) => {
          const store = createMemoryRateLimitStore();
          const kept = new Map<string, { tokens: number; last: number }>();
          // with two rates in play, keys would be "mixed": one rate per key keeps the model simple
          const limits = new Map<number, ReturnType<typeof limitsOf>>();
          let now = 0;
          // fillers, full again 1 ms after their take: the store sweeps again and again
          let fillers = 0;
          for (const { key, rate, wait } of takes) {
            now += wait;
            for (let f = 0; f < 300; f++) store.take(`filler:${fillers++}`, limitsOf(1000), now);
            const keyLimits = limits.get(key) ?? limitsOf(rate);
            limits.set(key, keyLimits);
            const limit = keyLimits[0]!;
            const state = kept.get(`k${key}`) ?? { tokens: limit.capacity, last: now };
            const available = Math.min(
              limit.capacity,
              state.tokens + (now - state.last) * limit.refillPerMs,
            );
            const expected =
              available >= 1
                ? 0
                : Math.max(1, Math.ceil((1 - available) / limit.refillPerMs - 1e-6));
            kept.set(`k${key}`, { tokens: expected === 0 ? available - 1 : available, last: now });
            expect(store.take(`k${key}`, keyLimits, now)).toBe(expected);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('guards made per call with their own bucket leave nothing behind', async () => {
    resetRateLimits();
    for (let i = 0; i < 5_000; i++) {
      const fn = guard(async () => 'ok', { rateLimit: { callsPerSecond: 1000, sharedKey: '' } });
      await fn();
    }
    // without sweeping the process-wide store would hold 5,000 own buckets
    expect(defaultRateLimitStore.size).toBeLessThan(2_100);
  });
});
