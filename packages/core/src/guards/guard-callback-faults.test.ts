import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTracer } from '../tracing/create-tracer.js';
import { validateBlocks } from '../validation/index.js';
import { fakeTime } from './__fixtures__/fake-time.js';
import { backoffDelay } from './backoff-delay.js';
import { guard } from './guard.js';

/*
 * A user's callback that throws in the middle of a call's bookkeeping (a budget alert, a logger
 * reporting a `warn` action, a hallucination check) must leave the bookkeeping whole: the
 * breaker's probe slot freed, the session's turn passed on, the call recorded, and the caller
 * given the call's own outcome.
 */

const boom = () => {
  throw new Error('callback boom');
};

afterEach(() => vi.restoreAllMocks());

describe('a callback that throws during a call', () => {
  it("budget onAlert: the probe's success closes the breaker, the call resolves, said once", async () => {
    const console = vi.spyOn(globalThis.console, 'warn').mockImplementation(() => undefined);
    const time = fakeTime();
    let failing = true;
    const tracer = createTracer();
    const fn = guard(
      async () => {
        if (failing) throw new Error('down');
        return 'ok';
      },
      {
        name: 'flaky',
        clock: time.clock,
        tracer,
        budget: { maxCallsPerSession: 100, alertThreshold: 0.015, onAlert: boom },
        circuitBreaker: { failureThreshold: 1, recoveryTimeout: 1 },
      },
    );
    // the failure that opens the breaker also crosses the alert threshold (2 of 100 calls)
    await expect(fn()).rejects.toThrow('down');
    expect(fn.breakerState).toBe('open');
    time.advance(5000);
    failing = false;
    await expect(fn()).resolves.toBe('ok');
    expect(fn.breakerState).toBe('closed');
    await expect(fn()).resolves.toBe('ok');
    expect(
      console.mock.calls.filter(([text]) => String(text).includes('onAlert threw')),
    ).toHaveLength(1);
    expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
    expect(tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT')).toHaveLength(3);
  });

  it('budget onAlert, one call at a time: the next calls of the session still run (no hang)', async () => {
    vi.spyOn(globalThis.console, 'warn').mockImplementation(() => undefined);
    const fn = guard(async () => 'ok', {
      name: 'metered',
      budget: {
        maxCostPerSession: 1,
        cost: () => 0.01,
        unestimatedCalls: 'one-at-a-time',
        alertThreshold: 0.001,
        onAlert: boom,
      },
    });
    await expect(Promise.all([fn(), fn(), fn()])).resolves.toEqual(['ok', 'ok', 'ok']);
  });

  it("a logger whose warn throws (a 'warn' action): the call completes, the warning goes to the console", async () => {
    const console = vi.spyOn(globalThis.console, 'warn').mockImplementation(() => undefined);
    const time = fakeTime();
    const fn = guard(async (q: string) => q, {
      name: 'search',
      clock: time.clock,
      logger: { warn: boom },
      validators: { input: () => false, onInvalid: 'warn' },
      budget: { maxCostPerSession: 1, cost: () => 0.01, unestimatedCalls: 'one-at-a-time' },
      circuitBreaker: { failureThreshold: 1, recoveryTimeout: 1 },
    });
    await expect(Promise.all([fn('a'), fn('b')])).resolves.toEqual(['a', 'b']);
    const printed = console.mock.calls.map(([text]) => String(text));
    expect(printed.filter((text) => text.includes("the guard's logger threw"))).toHaveLength(1);
    expect(printed.filter((text) => text.includes('failed validation'))).toHaveLength(2);
  });

  it('a hallucination detector whose check throws: the call fails with what it threw, and is counted and recorded', async () => {
    const tracer = createTracer();
    const thrown = new Error('detector boom');
    const fn = guard(async () => 'ok', {
      name: 'lookup',
      tracer,
      hallucination: {
        detector: {
          check: async () => {
            throw thrown;
          },
          observe: () => undefined,
          registerTools: () => undefined,
          reset: () => undefined,
        },
      },
      circuitBreaker: { failureThreshold: 1, recoveryTimeout: 60 },
    });
    await expect(fn()).rejects.toBe(thrown);
    // the tool itself succeeded: the breaker, which watches the tool, stays closed
    expect(fn.breakerState).toBe('closed');
    await expect(fn()).rejects.toBe(thrown);
    const results = tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results.map((block) => block.metadata.status)).toEqual(['failure', 'failure']);
    expect(results[0]?.metadata.guard).toMatchObject({
      decisions: [{ guard: 'hallucination', event: 'check_failed' }],
    });
    expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  });

  it('an arguments schema that throws holds the arguments invalid, as a throwing validator does', async () => {
    const fn = guard(async (_q: { q: string }) => 'ok', {
      name: 'lookup',
      hallucination: {
        argumentsSchema: {
          '~standard': { version: 1, vendor: 'test', validate: boom },
        },
        threshold: 0.1,
      },
    });
    await expect(fn({ q: 'x' })).rejects.toMatchObject({
      code: 'HALLUCINATED',
      message: expect.stringContaining('the arguments schema threw: callback boom'),
    });
  });
});

describe('a clock that returns no finite time', () => {
  it('is read as Date.now() for that reading, said once: the rate limit still refuses with its own error', async () => {
    const warnings: string[] = [];
    const fn = guard(async () => 1, {
      name: 'nc',
      clock: () => Number.NaN,
      logger: { warn: (message) => warnings.push(message) },
      rateLimit: { callsPerSecond: 1, sharedKey: '' },
    });
    await expect(fn()).resolves.toBe(1);
    await expect(fn()).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(warnings.filter((message) => message.includes('returned NaN'))).toHaveLength(1);
  });
});

describe('injected randomness and stores that break their contract', () => {
  it.each([Number.NaN, -1, 2, Number.POSITIVE_INFINITY])(
    'a random() of %s jitters a backoff to the middle of its range, never to NaN',
    (unit) => {
      expect(backoffDelay(2, { initialDelay: 1 }, () => unit)).toBe(1500);
    },
  );

  it('a rate-limit store answering sub-millisecond waits ends within maxWaitMs (no endless loop)', async () => {
    const sleeps: number[] = [];
    const fn = guard(async () => 'ok', {
      name: 'tiny-waits',
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      rateLimit: {
        callsPerSecond: 1,
        maxWaitMs: 50,
        store: { take: () => 1e-9, reset: () => undefined },
      },
    });
    await expect(fn()).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(sleeps.length).toBeLessThanOrEqual(50);
  });

  it('a validator that throws a value with no string form (a null-prototype object): VALIDATION_FAILED, the probe slot freed, no budget spent', async () => {
    const time = fakeTime();
    let failing = true;
    let throwing = true;
    const fn = guard(
      async () => {
        if (failing) throw new Error('down');
        return 'ok';
      },
      {
        name: 'flaky',
        clock: time.clock,
        circuitBreaker: { failureThreshold: 1, recoveryTimeout: 1 },
        validators: {
          output: () => {
            if (throwing) throw Object.create(null);
          },
        },
      },
    );
    await expect(fn()).rejects.toThrow('down');
    time.advance(5000);
    failing = false;
    // the probe call's output validator throws the unprintable value
    await expect(fn()).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    throwing = false;
    time.advance(5000);
    await expect(fn()).resolves.toBe('ok');
    expect(fn.breakerState).toBe('closed');

    const calls = { count: 0 };
    const metered = guard(
      async () => {
        calls.count++;
        return 'ok';
      },
      {
        name: 'metered',
        budget: { maxCallsPerSession: 2 },
        validators: {
          input: [
            () => {
              throw Object.create(null);
            },
          ],
        },
      },
    );
    for (let i = 0; i < 3; i++)
      await expect(metered()).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(calls.count).toBe(0);
  });

  it('a validator returning null or a number is read as invalid, with a message saying what to return', async () => {
    const fn = guard(async (q: string) => q, {
      name: 'search',
      validators: { input: (() => null) as unknown as () => boolean },
    });
    const error = (await fn('x').catch((caught: unknown) => caught)) as Error;
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(error.message).toContain(
      'returned null; a validator returns true, false, undefined or { valid: boolean }',
    );
  });
});
