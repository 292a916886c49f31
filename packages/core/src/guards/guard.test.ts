import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type TraceEntry, TraceEntrySchema } from '../model/tool-records.js';
import { createTracer } from '../tracing/create-tracer.js';
import { withTrace } from '../tracing/with-trace.js';
import { fakeTime, memoryLogger } from './__fixtures__/fake-time.js';
import { BudgetExceededError } from './budget-exceeded-error.js';
import { guard } from './guard.js';
import { GuardError } from './guard-error.js';
import type { GuardOptions } from './guard-options.js';
import { resetRateLimits } from './rate-limit-store.js';
import { RateLimitedError } from './rate-limited-error.js';
import type { GuardCallContext, GuardDecision } from './types.js';
import { ValidationFailedError } from './validation-failed-error.js';

beforeEach(() => resetRateLimits());

function ids() {
  let n = 0;
  return () => `call_${++n}`;
}

function guardOf(entry: TraceEntry) {
  return entry.result.metadata!.guard as {
    attempts: Record<string, unknown>[];
    decisions: GuardDecision[];
  };
}

describe('guard', () => {
  it('keeps parameters and result, passes a context as extra last argument', async () => {
    const seen: unknown[][] = [];
    const add = guard((a: number, b: number) => {
      seen.push([a, b]);
      return a + b;
    });
    await expect(add(2, 3)).resolves.toBe(5);
    const echo = guard(async (text: string, context?: GuardCallContext) => ({
      text,
      attempt: context?.attempt,
    }));
    await expect(echo('hi')).resolves.toEqual({ text: 'hi', attempt: 1 });
    expect(seen).toEqual([[2, 3]]);
    expect(add.toolName).toBe('tool');
    expect(add.stats.byStatus.success).toBe(1);
  });

  it('gives every guarded function the same shape: one shared breakerState getter', () => {
    // A getter made per function would give each guarded function its own hidden class, which
    // V8's young-generation GC treats as a root: every guard, its tracer and the whole trace
    // would then outlive their last use until a full GC (measured: 12x the bytes promoted).
    const a = guard(async () => 1, { circuitBreaker: { failureThreshold: 1 } });
    const b = guard(async () => 2);
    const getter = (fn: object) => Object.getOwnPropertyDescriptor(fn, 'breakerState')?.get;
    expect(getter(a)).toBeTypeOf('function');
    expect(getter(a)).toBe(getter(b));
    expect(Object.keys(a)).toEqual(['toolName', 'breakerState', 'budget', 'stats']);
    expect(a.breakerState).toBe('closed');
    expect(b.breakerState).toBeUndefined();
    expect({ ...a }.breakerState).toBe('closed');
    // a bound copy has none of the own properties, and reading through another receiver is safe
    expect('breakerState' in a.bind(null)).toBe(false);
    expect(getter(a)!.call({})).toBeUndefined();
    expect(Object.getPrototypeOf(a)).toBe(Function.prototype);
  });

  it('records exactly the seed fields: kwargs for a single plain object, args otherwise', async () => {
    const time = fakeTime();
    const entries: TraceEntry[] = [];
    const search = guard(async (input: { query: string }) => ({ hits: [input.query] }), {
      name: 'search',
      sessionId: 's1',
      metadata: { agent: 'a1' },
      clock: time.clock,
      createCallId: ids(),
      onEntry: (e) => entries.push(e),
    });
    await search({ query: 'x' });
    const add = guard((a: number, b: number) => a + b, {
      name: 'add',
      clock: time.clock,
      createCallId: ids(),
      onEntry: (e) => entries.push(e),
    });
    await add(1, 2);
    const [first, second] = entries;
    expect(TraceEntrySchema.parse(first)).toEqual(first);
    expect(Object.keys(first!.call).sort()).toEqual([
      'args',
      'call_id',
      'kwargs',
      'metadata',
      'session_id',
      'timestamp',
      'tool_name',
    ]);
    expect(Object.keys(first!.result).sort()).toEqual(
      [
        'call_id',
        'cost',
        'exception',
        'exception_type',
        'execution_time_ms',
        'hallucination',
        'metadata',
        'retry_count',
        'return_value',
        'status',
        'timestamp',
        'tool_name',
        'validations',
      ].sort(),
    );
    expect(first!.call).toEqual({
      call_id: 'call_1',
      tool_name: 'search',
      args: [],
      kwargs: { query: 'x' },
      timestamp: '2026-01-01T00:00:00.000Z',
      session_id: 's1',
      metadata: { agent: 'a1' },
    });
    expect(first!.result).toMatchObject({
      call_id: 'call_1',
      tool_name: 'search',
      status: 'success',
      return_value: { hits: ['x'] },
      exception: null,
      exception_type: null,
      retry_count: 0,
      validations: [],
      hallucination: null,
      cost: null,
    });
    expect(second!.call.args).toEqual([1, 2]);
    expect(second!.call.kwargs).toEqual({});
    expect(second!.call.session_id).toBeNull();
  });

  it('builds no entry when nothing listens', async () => {
    let made = 0;
    const fn = guard(async () => 1, {
      createCallId: () => {
        made++;
        return 'x';
      },
    });
    await fn();
    expect(made).toBe(0);
  });

  it('records into a given tracer and into the ambient tracer as TOOL_CALL + TOOL_RESULT', async () => {
    const tracer = createTracer();
    tracer.logMessage({ role: 'user', content: 'find x' });
    const search = guard(async (q: string) => `found ${q}`, { name: 'search', tracer });
    await search('x');
    const types = tracer.blocks().map((b) => b.sub_type);
    expect(types).toEqual(['MESSAGE', 'TOOL_CALL', 'TOOL_RESULT']);

    const ambient = createTracer();
    ambient.logMessage({ role: 'user', content: 'hi' });
    const plain = guard(async (q: string) => q.length, { name: 'len' });
    await withTrace(ambient, () => plain('abc'));
    expect(ambient.blocks().map((b) => b.sub_type)).toEqual([
      'MESSAGE',
      'TOOL_CALL',
      'TOOL_RESULT',
    ]);
  });

  it('a failing tool rethrows its own error with status failure', async () => {
    const entries: TraceEntry[] = [];
    const boom = new TypeError('bad input');
    const fn = guard(
      async () => {
        throw boom;
      },
      { onEntry: (e) => entries.push(e) },
    );
    await expect(fn()).rejects.toBe(boom);
    expect(entries[0]!.result).toMatchObject({
      status: 'failure',
      exception: 'bad input',
      exception_type: 'TypeError',
      return_value: null,
    });
    expect(fn.stats.byStatus.failure).toBe(1);
  });

  it('synchronous throws are failures too', async () => {
    const fn = guard((): number => {
      throw new RangeError('sync');
    });
    await expect(fn()).rejects.toThrow(RangeError);
  });

  it('a hook or validator that changes the args it was shown does not change what the tool gets', async () => {
    for (const count of [1, 2, 3, 4]) {
      const args = ['a', 'b', 'c', 'd'].slice(0, count);
      const seen: unknown[][] = [];
      const fn = guard((...got: unknown[]) => seen.push(got.slice(0, count)), {
        name: 'tool',
        beforeCall: (call) => {
          call.args[0] = 'changed by hook';
        },
        validators: {
          input: (_value: unknown, context: { args: readonly unknown[] }) => {
            // read-only by type; a JavaScript validator could still write to it
            (context.args as unknown[])[count - 1] = 'changed by validator';
            return true;
          },
        },
      });
      await fn(...args);
      expect(seen).toEqual([args]);
    }
  });

  it('hooks: beforeCall sees the call before it runs, afterCall and onEntry see the result', async () => {
    const order: string[] = [];
    const fn = guard(
      async (q: string) => {
        order.push(`run ${q}`);
        return q;
      },
      {
        name: 'hooked',
        beforeCall: (call) => {
          order.push(`before ${call.tool_name}`);
        },
        afterCall: (_call, result) => {
          order.push(`after ${result.status}`);
        },
        onEntry: (entry) => {
          order.push(`entry ${entry.result.status}`);
        },
      },
    );
    await fn('a');
    expect(order).toEqual(['before hooked', 'run a', 'entry success', 'after success']);
  });

  it('hooks run as a pair or not at all: a refused call gets neither, onEntry its record', async () => {
    const refusals: Record<string, Omit<GuardOptions, 'name'>> = {
      validation_failed: { validators: { input: [() => ({ valid: false, message: 'no' })] } },
      rate_limited: { rateLimit: { callsPerMinute: 1, burst: 1, sharedKey: 'hooks-as-a-pair' } },
      budget_exceeded: { budget: { maxCallsPerSession: 1 } },
    };
    for (const [status, options] of Object.entries(refusals)) {
      const order: string[] = [];
      const fn = guard(async () => 'ok', {
        name: `paired-${status}`,
        ...options,
        beforeCall: () => void order.push('before'),
        afterCall: (_call, result) => void order.push(`after ${result.status}`),
        onEntry: (entry) => void order.push(`entry ${entry.result.status}`),
      } as GuardOptions);
      // the rate limit and the budget let the first call through
      if (status !== 'validation_failed') {
        await fn();
        expect(order.splice(0)).toEqual(['before', 'entry success', 'after success']);
      }
      await expect(fn()).rejects.toMatchObject({ status });
      expect(order).toEqual([`entry ${status}`]);
      // counted once, as what it was (a refusal is not a failure of the tool)
      expect(fn.stats.byStatus).toMatchObject({ [status]: 1, failure: 0 });
    }
    // an open breaker, and a call the caller aborted before it started
    const order: string[] = [];
    const hooks = {
      beforeCall: () => void order.push('before'),
      afterCall: (_call: unknown, result: { status: string }) =>
        void order.push(`after ${result.status}`),
      onEntry: (entry: { result: { status: string } }) =>
        void order.push(`entry ${entry.result.status}`),
    };
    const flaky = guard(
      async () => {
        throw new Error('down');
      },
      {
        name: 'paired-breaker',
        circuitBreaker: { failureThreshold: 1, recoveryTimeout: 60 },
        ...hooks,
      },
    );
    await expect(flaky()).rejects.toThrow('down');
    await expect(flaky()).rejects.toMatchObject({ status: 'circuit_open' });
    await expect(flaky.invoke({ signal: AbortSignal.abort(new Error('stop')) })).rejects.toThrow(
      'stop',
    );
    expect(order).toEqual([
      'before',
      'entry failure',
      'after failure',
      'entry circuit_open',
      'entry failure',
    ]);
    expect(flaky.stats.byStatus).toMatchObject({ failure: 2, circuit_open: 1 });
  });

  it('a call failed by its beforeCall still gets its afterCall', async () => {
    const order: string[] = [];
    const fn = guard(async () => 'ok', {
      beforeCall: () => {
        order.push('before');
        throw new Error('vetoed');
      },
      afterCall: (_call, result) => void order.push(`after ${result.status}`),
    });
    await expect(fn()).rejects.toThrow('vetoed');
    expect(order).toEqual(['before', 'after failure']);
  });

  it('a throwing beforeCall fails the call without running it', async () => {
    let ran = false;
    const fn = guard(
      async () => {
        ran = true;
      },
      {
        beforeCall: () => {
          throw new Error('vetoed');
        },
      },
    );
    await expect(fn()).rejects.toThrow('vetoed');
    expect(ran).toBe(false);
  });

  it('listener errors are reported through the logger, never thrown', async () => {
    const logger = memoryLogger();
    const fn = guard(async () => 1, {
      logger,
      onEntry: () => {
        throw new Error('sink down');
      },
    });
    await expect(fn()).resolves.toBe(1);
    expect(logger.warnings[0]?.message).toContain('sink down');
  });

  it('invoke passes a session and metadata per call', async () => {
    const entries: TraceEntry[] = [];
    const fn = guard(async (q: string) => q, {
      sessionId: 'default-s',
      onEntry: (e) => entries.push(e),
    });
    await fn.invoke({ sessionId: 's2', metadata: { turn: 3 } }, 'x');
    expect(entries[0]!.call.session_id).toBe('s2');
    expect(entries[0]!.call.metadata).toEqual({ turn: 3 });
  });
});

describe('guard order and actions', () => {
  it('runs breaker → rate limit → budget → input validation, refusing at the first that blocks', async () => {
    const time = fakeTime();
    const entries: TraceEntry[] = [];
    let runs = 0;
    const fn = guard(
      async (input: { n: number }) => {
        runs++;
        return input.n;
      },
      {
        name: 'ordered',
        clock: time.clock,
        rateLimit: { callsPerSecond: 1, burst: 2, sharedKey: '' },
        budget: { maxCallsPerSession: 3 },
        validators: { input: z.object({ n: z.number().min(0) }) },
        onEntry: (e) => entries.push(e),
      },
    );
    await expect(fn({ n: -1 })).rejects.toBeInstanceOf(ValidationFailedError);
    await expect(fn({ n: 1 })).resolves.toBe(1);
    await expect(fn({ n: 2 })).rejects.toBeInstanceOf(RateLimitedError);
    time.advance(10_000);
    await expect(fn({ n: 3 })).resolves.toBe(3);
    await expect(fn({ n: 4 })).resolves.toBe(4);
    time.advance(10_000);
    // the refused-by-validation call was released, so the limit of 3 calls is reached only now
    await expect(fn({ n: 5 })).rejects.toBeInstanceOf(BudgetExceededError);
    expect(runs).toBe(3);
    expect(entries.map((e) => e.result.status)).toEqual([
      'validation_failed',
      'success',
      'rate_limited',
      'success',
      'success',
      'budget_exceeded',
    ]);
    expect(entries[0]!.result.validations[0]).toMatchObject({ valid: false, kind: 'schema' });
  });

  it('block errors carry status and the entry, even when nothing listens', async () => {
    const fn = guard(async () => 1, { name: 'limited', rateLimit: { callsPerHour: 1 } });
    await fn();
    const error = await fn().catch((e: unknown) => e);
    expect(GuardError.isGuardError(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      status: 'rate_limited',
      toolName: 'limited',
    });
    const entry = (error as GuardError).entry!;
    expect(entry.result.status).toBe('rate_limited');
    expect(entry.result.exception_type).toBe('RateLimitedError');
    expect(guardOf(entry).decisions).toContainEqual(
      expect.objectContaining({ guard: 'rate_limit', event: 'refused', action: 'block' }),
    );
  });

  it('warn reports and proceeds, log only records', async () => {
    for (const action of ['warn', 'log'] as const) {
      const logger = memoryLogger();
      const entries: TraceEntry[] = [];
      const fn = guard(async () => 'ran', {
        name: `lim-${action}`,
        logger,
        rateLimit: { callsPerHour: 1, onLimit: action },
        onEntry: (e) => entries.push(e),
      });
      await fn();
      await expect(fn()).resolves.toBe('ran');
      expect(logger.warnings.length).toBe(action === 'warn' ? 1 : 0);
      expect(entries[1]!.result.status).toBe('success');
      expect(guardOf(entries[1]!).decisions).toContainEqual(
        expect.objectContaining({ guard: 'rate_limit', event: 'refused', action }),
      );
    }
  });
});
