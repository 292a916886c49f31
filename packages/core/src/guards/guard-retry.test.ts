import { describe, expect, it } from 'vitest';
import type { TraceEntry } from '../model/tool-records.js';
import { fakeTime, HttpError, pendingSleep } from './__fixtures__/fake-time.js';
import { backoffDelay } from './backoff-delay.js';
import { CircuitOpenError } from './circuit-open-error.js';
import { guard } from './guard.js';
import { retryAfterMs } from './retry-after-ms.js';
import type { GuardAttemptRecord, GuardCallContext, GuardDecision } from './types.js';

function flaky(failures: number, error: () => unknown = () => new Error('flaky')) {
  let calls = 0;
  const fn = async (q: string) => {
    calls++;
    if (calls <= failures) throw error();
    return `ok ${q}`;
  };
  return { fn, calls: () => calls };
}

function guardOf(entry: TraceEntry) {
  return entry.result.metadata!.guard as {
    attempts: GuardAttemptRecord[];
    decisions: GuardDecision[];
  };
}

describe('retry', () => {
  it('maxRetries 3 means up to 4 attempts with exponential backoff 1, 2, 4 s', async () => {
    const time = fakeTime();
    const tool = flaky(10);
    const entries: TraceEntry[] = [];
    const fn = guard(tool.fn, {
      retry: { maxRetries: 3, jitter: false },
      sleep: time.sleep,
      clock: time.clock,
      onEntry: (e) => entries.push(e),
    });
    await expect(fn('x')).rejects.toThrow('flaky');
    expect(tool.calls()).toBe(4);
    expect(time.sleeps).toEqual([1000, 2000, 4000]);
    const entry = entries[0]!;
    expect(entry.result.status).toBe('failure');
    expect(entry.result.retry_count).toBe(3);
    expect(guardOf(entry).attempts.map((a) => [a.attempt, a.outcome, a.delay_ms])).toEqual([
      [1, 'failure', 1000],
      [2, 'failure', 2000],
      [3, 'failure', 4000],
      [4, 'failure', undefined],
    ]);
    expect(fn.stats).toMatchObject({ calls: 1, attempts: 4, retries: 3 });
  });

  it('success after retries is status success with retry_count > 0 (never "retried")', async () => {
    const time = fakeTime();
    const tool = flaky(2);
    const entries: TraceEntry[] = [];
    const fn = guard(tool.fn, {
      retry: {},
      sleep: time.sleep,
      random: () => 0.5,
      onEntry: (e) => entries.push(e),
    });
    await expect(fn('y')).resolves.toBe('ok y');
    expect(entries[0]!.result).toMatchObject({
      status: 'success',
      retry_count: 2,
      return_value: 'ok y',
    });
    // jitter: uniform in [d/2, d]; random 0.5 → 3/4 of d
    expect(time.sleeps).toEqual([750, 1500]);
  });

  it('no retry option means a single attempt', async () => {
    const tool = flaky(1);
    const fn = guard(tool.fn);
    await expect(fn('x')).rejects.toThrow('flaky');
    expect(tool.calls()).toBe(1);
  });

  it('caps delays at maxDelay', () => {
    expect(backoffDelay(10, { initialDelay: 1, maxDelay: 5, jitter: false })).toBe(5000);
    expect(backoffDelay(1, { initialDelay: 0.5, backoffFactor: 3, jitter: false })).toBe(500);
    expect(backoffDelay(3, { initialDelay: 0.5, backoffFactor: 3, jitter: false })).toBe(4500);
  });

  it('retryOn as error classes or a predicate', async () => {
    const time = fakeTime();
    const classes = flaky(5, () => new TypeError('t'));
    const byClass = guard(classes.fn, {
      retry: { retryOn: [RangeError], maxRetries: 2 },
      sleep: time.sleep,
    });
    await expect(byClass('x')).rejects.toThrow(TypeError);
    expect(classes.calls()).toBe(1);

    // an empty list is the seed's default (`retryable_exceptions = ()`): every error is retried
    const empty = flaky(2, () => new TypeError('t'));
    const byEmpty = guard(empty.fn, { retry: { retryOn: [], maxRetries: 3 }, sleep: time.sleep });
    await expect(byEmpty('x')).resolves.toBe('ok x');
    expect(empty.calls()).toBe(3);

    const matching = flaky(1, () => new RangeError('r'));
    const byMatch = guard(matching.fn, { retry: { retryOn: [RangeError] }, sleep: time.sleep });
    await expect(byMatch('x')).resolves.toBe('ok x');

    const predicate = flaky(5, () => new HttpError('server', 503));
    const attemptsSeen: number[] = [];
    const byPredicate = guard(predicate.fn, {
      retry: {
        maxRetries: 5,
        retryOn: (error, attempt) => {
          attemptsSeen.push(attempt);
          return error instanceof HttpError && error.status >= 500 && attempt < 2;
        },
      },
      sleep: time.sleep,
    });
    await expect(byPredicate('x')).rejects.toThrow('server');
    expect(attemptsSeen).toEqual([1, 2]);
    expect(predicate.calls()).toBe(2);
  });

  it('never retries refusals of other guards (tracewarden errors) or aborts', async () => {
    const time = fakeTime();
    const refusing = flaky(5, () => new CircuitOpenError({ message: 'inner open' }));
    const fn = guard(refusing.fn, { retry: {}, sleep: time.sleep });
    await expect(fn('x')).rejects.toBeInstanceOf(CircuitOpenError);
    expect(refusing.calls()).toBe(1);

    const aborting = flaky(5, () => new DOMException('aborted', 'AbortError'));
    const fn2 = guard(aborting.fn, { retry: {}, sleep: time.sleep });
    await expect(fn2('x')).rejects.toThrow('aborted');
    expect(aborting.calls()).toBe(1);
  });

  it('honours Retry-After from headers and retryAfter, up to maxDelay', async () => {
    const time = fakeTime();
    const tool = flaky(2, () => new HttpError('slow down', 429, { 'Retry-After': '7' }));
    const entries: TraceEntry[] = [];
    const fn = guard(tool.fn, {
      retry: { jitter: false },
      sleep: time.sleep,
      clock: time.clock,
      onEntry: (e) => entries.push(e),
    });
    await expect(fn('x')).resolves.toBe('ok x');
    expect(time.sleeps).toEqual([7000, 7000]);
    expect(guardOf(entries[0]!).attempts[0]).toMatchObject({
      retry_after_ms: 7000,
      delay_ms: 7000,
    });

    // backoff wins when longer
    const time2 = fakeTime();
    const seconds = flaky(1, () => Object.assign(new Error('busy'), { retryAfter: 0.2 }));
    await guard(seconds.fn, { retry: { jitter: false }, sleep: time2.sleep })('x');
    expect(time2.sleeps).toEqual([1000]);

    // a Retry-After beyond maxDelay stops retrying instead of retrying early
    const time3 = fakeTime();
    const tooLong = flaky(1, () => new HttpError('later', 429, { 'retry-after': '3600' }));
    const entries3: TraceEntry[] = [];
    await expect(
      guard(tooLong.fn, { retry: {}, sleep: time3.sleep, onEntry: (e) => entries3.push(e) })('x'),
    ).rejects.toThrow('later');
    expect(time3.sleeps).toEqual([]);
    expect(guardOf(entries3[0]!).decisions).toContainEqual(
      expect.objectContaining({ reason: 'retry_after_exceeds_max_delay' }),
    );
  });

  it('reads Retry-After in every documented form', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(retryAfterMs({ retryAfterMs: 250 }, now)).toBe(250);
    expect(retryAfterMs({ retryAfter: 2 }, now)).toBe(2000);
    expect(retryAfterMs({ retryAfter: '3' }, now)).toBe(3000);
    expect(retryAfterMs({ headers: new Headers({ 'retry-after': '1.5' }) }, now)).toBe(1500);
    expect(retryAfterMs({ headers: { 'retry-after-ms': '120', 'retry-after': '9' } }, now)).toBe(
      120,
    );
    expect(
      retryAfterMs(
        { response: { headers: { 'Retry-After': new Date(now + 5000).toUTCString() } } },
        now,
      ),
    ).toBe(5000);
    expect(retryAfterMs({ headers: { 'retry-after': 'soon' } }, now)).toBeUndefined();
    expect(retryAfterMs(new Error('x'), now)).toBeUndefined();
    expect(retryAfterMs('x', now)).toBeUndefined();
  });

  it('write and destructive tools never retry unless idempotent; read tools retry', async () => {
    const time = fakeTime();
    for (const sideEffect of ['write', 'destructive'] as const) {
      const tool = flaky(1);
      const entries: TraceEntry[] = [];
      const fn = guard(tool.fn, {
        sideEffect,
        retry: {},
        sleep: time.sleep,
        onEntry: (e) => entries.push(e),
      });
      await expect(fn('x')).rejects.toThrow('flaky');
      expect(tool.calls()).toBe(1);
      expect(guardOf(entries[0]!).decisions).toContainEqual(
        expect.objectContaining({ guard: 'retry', event: 'skipped', reason: 'side_effect' }),
      );
      const idempotent = flaky(1);
      await expect(
        guard(idempotent.fn, { sideEffect, retry: { idempotent: true }, sleep: time.sleep })('x'),
      ).resolves.toBe('ok x');
    }
    const read = flaky(1);
    await expect(
      guard(read.fn, { sideEffect: 'read', retry: {}, sleep: time.sleep })('x'),
    ).resolves.toBe('ok x');
  });

  it('a backoff sleep ends at once when the caller aborts', async () => {
    const controller = new AbortController();
    const tool = flaky(5);
    const entries: TraceEntry[] = [];
    const fn = guard(tool.fn, { retry: {}, sleep: pendingSleep, onEntry: (e) => entries.push(e) });
    const pending = fn.invoke({ signal: controller.signal }, 'x');
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
    expect(tool.calls()).toBe(1);
    expect(entries[0]!.result.status).toBe('failure');
  });

  it('every attempt gets its own context with the same call id', async () => {
    const time = fakeTime();
    const contexts: { attempt: number; callId: string }[] = [];
    let n = 0;
    const fn = guard(
      async (_q: string, context?: GuardCallContext) => {
        contexts.push({ attempt: context!.attempt, callId: context!.callId });
        if (++n < 3) throw new Error('again');
        return n;
      },
      { retry: {}, sleep: time.sleep, createCallId: () => 'c-1' },
    );
    await fn('x');
    expect(contexts).toEqual([
      { attempt: 1, callId: 'c-1' },
      { attempt: 2, callId: 'c-1' },
      { attempt: 3, callId: 'c-1' },
    ]);
  });
});
