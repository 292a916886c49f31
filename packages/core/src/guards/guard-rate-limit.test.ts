import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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

  it('a refusal says how big the burst is and which option raises it', async () => {
    const time = fakeTime();
    const fn = guard(async () => 'ok', {
      name: 'lookup',
      clock: time.clock,
      rateLimit: { callsPerMinute: 2, sharedKey: '' },
    });
    await fn();
    // seed 004's default burst is 1: two calls a minute are one now and one 30 s later
    await expect(fn()).rejects.toThrow(
      /next token in 30000 ms \(burst 1: at most 1 call back to back; rateLimit\.burst allows more\)/,
    );
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

describe('own buckets', () => {
  it('are forgotten with their guard: guards made per call leave no bucket behind', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    resetRateLimits();
    const before = defaultRateLimitStore.size;
    const shared = guard(async () => 'ok', {
      rateLimit: { callsPerSecond: 1000, sharedKey: 'keep' },
    });
    await shared();
    for (let i = 0; i < 500; i++) {
      const own = guard(async () => 'ok', { rateLimit: { callsPerSecond: 1000, sharedKey: '' } });
      await own();
    }
    expect(defaultRateLimitStore.size).toBe(before + 501);
    // finalizers run some time after a full collection (the last guard may still be referenced
    // by the engine for a while: one own bucket is allowed to linger)
    for (let round = 0; round < 50 && defaultRateLimitStore.size > before + 2; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(defaultRateLimitStore.size).toBeLessThanOrEqual(before + 2); // the shared key stays
    await shared(); // still limited as before
  });
});
