import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { TraceError, TracewardenError } from '../errors/index.js';
import { createBudget } from '../guards/create-budget.js';
import { guard } from '../guards/guard.js';
import { type Block, createSequentialIds, type TraceEntry } from '../model/index.js';
import { createMemorySink } from '../sinks/create-memory-sink.js';
import type { Sink } from '../sinks/sink.js';
import { SinkError } from '../sinks/sink-error.js';
import { createTracer, type TracerOptions } from './create-tracer.js';
import { TracerClosedError } from './tracer-closed-error.js';
import { TracerFlushError } from './tracer-flush-error.js';
import type { Tracer } from './types.js';

/** The most recent MESSAGE block's id: the parent `logAct` / `logThink` name in these tests. */
function lastMessageOf(tracer: { blocks(): readonly { id: string; sub_type: string }[] }): string {
  return tracer.blocks().findLast((block) => block.sub_type === 'MESSAGE')?.id as string;
}

const start = Date.parse('2025-01-31T12:00:00.000Z');

function setup(options: TracerOptions = {}) {
  let now = start;
  const sink = createMemorySink();
  const tracer = createTracer({
    ids: createSequentialIds(),
    clock: () => now,
    sinks: [sink],
    ...options,
  });
  return {
    tracer,
    sink,
    tick(ms = 1) {
      now += ms;
    },
  };
}

function rejection(run: () => unknown): TraceError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TraceError);
    return error as TraceError;
  }
  throw new Error('expected a TraceError');
}

/** Asserts that `run` throws `code` and leaves the tracer and its sink exactly as they were. */
function expectRejectedUnchanged(
  tracer: Tracer,
  sink: { blocks: readonly Block[] },
  run: () => unknown,
  code: string,
): TraceError {
  const before = tracer.blocks();
  const sinkBefore = sink.blocks.length;
  const stitchedBefore = JSON.stringify(tracer.stitched());
  const error = rejection(run);
  expect(error.code).toBe(code);
  expect(tracer.blocks()).toEqual(before);
  expect(sink.blocks.length).toBe(sinkBefore);
  expect(JSON.stringify(tracer.stitched())).toBe(stitchedBefore);
  return error;
}

function entry(callId: string, returnValue: unknown = { ok: true }): TraceEntry {
  return {
    call: {
      call_id: callId,
      tool_name: 'send_email',
      args: [],
      kwargs: { to: 'mom@mail.com' },
      timestamp: '2025-01-31T12:00:01.000Z',
      session_id: null,
      metadata: {},
    },
    result: {
      call_id: callId,
      tool_name: 'send_email',
      status: 'success',
      return_value: returnValue,
      exception: null,
      exception_type: null,
      execution_time_ms: 12,
      retry_count: 0,
      validations: [],
      hallucination: null,
      cost: null,
      timestamp: '2025-01-31T12:00:02.000Z',
    },
  };
}

describe('createTracer', () => {
  it("records and stitches the seed's example trace (message, tool call, result, think)", async () => {
    const { tracer, sink, tick } = setup();
    const message = tracer.logMessage({ role: 'user', content: "what's the weather?" });
    tick();
    const call = tracer.logAct({
      parent_block_id: message.id,
      payload: { call_id: 'call_1', name: 'get_weather', arguments: { city: 'bogotá' } },
    });
    tick();
    const result = tracer.logObserve({
      parent_block_id: call.id,
      payload: { call_id: 'call_1', output: { forecast: '22°C cloudy' } },
      extra: { reward: 1 },
    });
    tick();
    const think = tracer.logThink({
      parent_block_id: message.id,
      payload: { text: 'decide to show forecast in celsius' },
    });

    expect(message).toEqual({
      id: 'tb_000001',
      trace_id: 'tr_000001',
      block_type: 'MESSAGE',
      sub_type: 'MESSAGE',
      payload: { role: 'user', content: "what's the weather?" },
      parent_block_id: null,
      metadata: {},
      raw: null,
      extra: {},
      created_at: '2025-01-31T12:00:00.000Z',
      updated_at: '2025-01-31T12:00:00.000Z',
    });
    expect(call).toMatchObject({
      id: 'tb_000002',
      block_type: 'ACT',
      sub_type: 'TOOL_CALL',
      parent_block_id: 'tb_000001',
    });
    expect(result).toMatchObject({
      id: 'tb_000003',
      block_type: 'OBSERVE',
      sub_type: 'TOOL_RESULT',
      parent_block_id: 'tb_000002',
      extra: { reward: 1 },
      created_at: '2025-01-31T12:00:00.002Z',
    });
    expect(think).toMatchObject({
      block_type: 'ACT',
      sub_type: 'THINK',
      parent_block_id: 'tb_000001',
    });
    expect(tracer.blocks()).toEqual([message, call, result, think]);
    expect(sink.blocks).toEqual([message, call, result, think]);
    expect(tracer.get(call.id)).toBe(call);
    expect(tracer.findToolCall('call_1')).toBe(call);
    expect(tracer.findToolCall('call_2')).toBeUndefined();

    const stitched = tracer.stitched();
    expect(stitched.trace_id).toBe('tr_000001');
    expect(stitched.messages).toHaveLength(1);
    expect(stitched.messages[0]?.block).toBe(message);
    expect(stitched.messages[0]?.thinks).toEqual([think]);
    expect(stitched.messages[0]?.tool_calls[0]?.block).toBe(call);
    expect(stitched.messages[0]?.tool_calls[0]?.results).toEqual([result]);
    expect(stitched.messages[0]?.tool_calls[0]?.output).toEqual({ forecast: '22°C cloudy' });
    expect(stitched.orphans).toEqual({ tool_calls: [], tool_results: [] });
    await tracer.flush();
  });

  it('keeps metadata, raw, extra and extra payload fields of logMessage', () => {
    const { tracer } = setup();
    const block = tracer.logMessage({
      role: 'assistant',
      content: 'hi',
      name: 'helper',
      metadata: { model: 'gpt-4o' },
      raw: { id: 'chatcmpl-1' },
      extra: { score: 2 },
    });
    expect(block.payload).toEqual({ role: 'assistant', content: 'hi', name: 'helper' });
    expect(block.metadata).toEqual({ model: 'gpt-4o' });
    expect(block.raw).toEqual({ id: 'chatcmpl-1' });
    expect(block.extra).toEqual({ score: 2 });
  });

  it('uses the given trace id, and draws one from ids otherwise', () => {
    expect(createTracer({ traceId: 'tr_given' }).traceId).toBe('tr_given');
    expect(createTracer().traceId).toMatch(/^tr_[0-9A-Z]{26}$/);
    const ids = createSequentialIds();
    expect(createTracer({ ids }).traceId).toBe('tr_000001');
  });

  it('stamps created_at and updated_at from the injected clock', () => {
    let now = start;
    const tracer = createTracer({ clock: () => now });
    const first = tracer.logMessage({ role: 'user', content: 'a' });
    now += 1500;
    const second = tracer.logMessage({ role: 'user', content: 'b' });
    expect(first.created_at).toBe('2025-01-31T12:00:00.000Z');
    expect(first.updated_at).toBe(first.created_at);
    expect(second.created_at).toBe('2025-01-31T12:00:01.500Z');
    expect(first.id < second.id).toBe(true);
  });

  describe('parents', () => {
    it('rejects logAct and logThink without a parent, as the seed server does, changing nothing', () => {
      const { tracer, sink } = setup();
      tracer.logMessage({ role: 'user', content: 'first' });
      for (const log of [
        () => tracer.logAct({ payload: { call_id: 'c1', name: 'search', arguments: {} } } as never),
        () => tracer.logThink({ payload: { text: 'hmm' } } as never),
        () =>
          tracer.logAct({
            parent_block_id: null,
            payload: { call_id: 'c1', name: 'search', arguments: {} },
          } as never),
      ]) {
        const error = expectRejectedUnchanged(tracer, sink, log, 'VALIDATION');
        expect(error.details).toMatchObject({ field: 'parent_block_id' });
      }
      expect(tracer.blocks()).toHaveLength(1);
    });

    it('attaches logObserve to the TOOL_CALL with the same call_id', () => {
      const { tracer } = setup();
      const message = tracer.logMessage({ role: 'user', content: 'go' });
      const parent_block_id = message.id;
      const first = tracer.logAct({
        parent_block_id,
        payload: { call_id: 'c1', name: 'a', arguments: {} },
      });
      const second = tracer.logAct({
        parent_block_id,
        payload: { call_id: 'c2', name: 'b', arguments: {} },
      });
      expect(tracer.logObserve({ payload: { call_id: 'c1', output: 1 } }).parent_block_id).toBe(
        first.id,
      );
      expect(
        tracer.logObserve({ payload: { call_id: 'c2', delta: 'x', seq: 0 } }).parent_block_id,
      ).toBe(second.id);
    });
  });

  describe('rejections change nothing', () => {
    function seeded() {
      const context = setup({ limits: { messageBytes: 10, thinkBytes: 8 } });
      const { tracer } = context;
      const message = tracer.logMessage({ role: 'user', content: 'start' });
      const call = tracer.logAct({
        parent_block_id: lastMessageOf(tracer),
        payload: { call_id: 'c1', name: 'search', arguments: { q: 'x' } },
      });
      tracer.logObserve({ payload: { call_id: 'c1', delta: 'a', seq: 0 } });
      return { ...context, message, call };
    }

    const cases: [
      string,
      string,
      (tracer: Tracer, ids: { message: Block; call: Block }) => unknown,
    ][] = [
      [
        'a MESSAGE role outside system/user/assistant',
        'VALIDATION',
        (t) => t.logMessage({ role: 'tool' as 'user', content: 'x' }),
      ],
      ['an empty user message', 'VALIDATION', (t) => t.logMessage({ role: 'user', content: '' })],
      [
        'a MESSAGE with a parent',
        'VALIDATION',
        (t, b) => t.logMessage({ role: 'user', content: 'x', parent_block_id: b.message.id }),
      ],
      [
        'a message over the byte limit',
        'PAYLOAD_TOO_LARGE',
        (t) => t.logMessage({ role: 'user', content: 'x'.repeat(11) }),
      ],
      [
        'multi-byte UTF-8 one byte over the limit',
        'PAYLOAD_TOO_LARGE',
        (t) => t.logMessage({ role: 'user', content: 'ééééé!' }),
      ],
      [
        'a tool call under an unknown parent',
        'VALIDATION',
        (t) =>
          t.logAct({
            parent_block_id: 'tb_nope',
            payload: { call_id: 'c2', name: 'a', arguments: {} },
          }),
      ],
      [
        'a tool call under a TOOL_CALL',
        'PARENT_SUBTYPE_MISMATCH',
        (t, b) =>
          t.logAct({
            parent_block_id: b.call.id,
            payload: { call_id: 'c2', name: 'a', arguments: {} },
          }),
      ],
      [
        'a duplicate call_id',
        'DUPLICATE_CALL_ID',
        (t) =>
          t.logAct({
            parent_block_id: lastMessageOf(t),
            payload: { call_id: 'c1', name: 'again', arguments: {} },
          }),
      ],
      [
        'a tool call without a name',
        'VALIDATION',
        (t) =>
          t.logAct({
            parent_block_id: lastMessageOf(t),
            payload: { call_id: 'c2', name: '', arguments: {} },
          }),
      ],
      [
        'a result for an unknown call_id',
        'VALIDATION',
        (t) => t.logObserve({ payload: { call_id: 'c9', output: 1 } }),
      ],
      [
        'a result with both output and delta',
        'VALIDATION',
        (t) => t.logObserve({ payload: { call_id: 'c1', output: 1, delta: 2 } }),
      ],
      [
        'a result with neither output nor delta',
        'VALIDATION',
        (t) => t.logObserve({ payload: { call_id: 'c1' } }),
      ],
      [
        'a negative seq',
        'VALIDATION',
        (t) => t.logObserve({ payload: { call_id: 'c1', delta: 'b', seq: -1 } }),
      ],
      [
        'a duplicate result seq',
        'DUPLICATE_RESULT_SEQ',
        (t) => t.logObserve({ payload: { call_id: 'c1', delta: 'b', seq: 0 } }),
      ],
      [
        'a result under a MESSAGE',
        'PARENT_SUBTYPE_MISMATCH',
        (t, b) =>
          t.logObserve({ parent_block_id: b.message.id, payload: { call_id: 'c1', output: 1 } }),
      ],
      [
        'an empty think',
        'VALIDATION',
        (t) => t.logThink({ parent_block_id: lastMessageOf(t), payload: { text: '' } }),
      ],
      [
        'a think over the byte limit',
        'PAYLOAD_TOO_LARGE',
        (t) => t.logThink({ parent_block_id: lastMessageOf(t), payload: { text: 'ü'.repeat(5) } }),
      ],
      ['a null input', 'VALIDATION', (t) => t.logAct(null as never)],
      [
        'a missing payload',
        'VALIDATION',
        (t) => t.logThink({ parent_block_id: lastMessageOf(t) } as never),
      ],
      [
        'metadata that is not an object',
        'VALIDATION',
        (t) =>
          t.logThink({
            parent_block_id: lastMessageOf(t),
            payload: { text: 'x' },
            metadata: 'no' as never,
          }),
      ],
      [
        'arguments that are not JSON',
        'VALIDATION',
        (t) =>
          t.logAct({
            parent_block_id: lastMessageOf(t),
            payload: { call_id: 'c3', name: 'a', arguments: '{not json' },
          }),
      ],
    ];

    for (const [name, code, run] of cases) {
      it(`rejects ${name} with ${code}`, () => {
        const { tracer, sink, message, call } = seeded();
        const error = expectRejectedUnchanged(
          tracer,
          sink,
          () => run(tracer, { message, call }),
          code,
        );
        expect(error.httpStatus).toBe(
          code === 'VALIDATION' ? 422 : code === 'PAYLOAD_TOO_LARGE' ? 413 : 409,
        );
        // the tracer still works, and the rejected block's id is reused (no gap)
        expect(
          tracer.logThink({ parent_block_id: lastMessageOf(tracer), payload: { text: 'ok' } }).id,
        ).toBe('tb_000004');
      });
    }

    it('accepts multi-byte UTF-8 exactly at the limit', () => {
      const { tracer } = seeded();
      expect(tracer.logMessage({ role: 'user', content: 'ééééé' }).payload.content).toBe('ééééé');
    });

    it('names the missing call in a logObserve without parent', () => {
      const { tracer } = seeded();
      const error = rejection(() => tracer.logObserve({ payload: { call_id: 'c9', output: 1 } }));
      expect(error.message).toContain('c9');
      expect(error.details).toMatchObject({
        sub_type: 'TOOL_RESULT',
        call_id: 'c9',
        trace_id: tracer.traceId,
      });
    });
  });

  describe('recordEntry', () => {
    it('records a TOOL_CALL and TOOL_RESULT under the most recent message', () => {
      const { tracer, sink } = setup();
      const message = tracer.logMessage({ role: 'user', content: 'email mom' });
      const [call, result] = tracer.recordEntry(entry('c1'));
      expect(call).toMatchObject({
        sub_type: 'TOOL_CALL',
        parent_block_id: message.id,
        payload: { call_id: 'c1', name: 'send_email', arguments: { to: 'mom@mail.com' } },
      });
      expect(result).toMatchObject({
        sub_type: 'TOOL_RESULT',
        parent_block_id: call.id,
        payload: { call_id: 'c1', output: { ok: true } },
        metadata: { status: 'success', execution_time_ms: 12 },
      });
      expect(sink.blocks).toEqual([message, call, result]);
      expect(tracer.findToolCall('c1')).toBe(call);
    });

    it('records many entries under one message, interleaved with rejections', () => {
      const { tracer } = setup({ limits: { toolResultBytes: 64 } });
      const message = tracer.logMessage({ role: 'user', content: 'go' });
      for (let i = 0; i < 1500; i++) {
        if (i % 500 === 7)
          expect(() => tracer.recordEntry(entry(`c${i}`, 'x'.repeat(100)))).toThrow(TraceError);
        tracer.recordEntry(entry(`c${i}`));
      }
      const stitched = tracer.stitched();
      expect(stitched.messages[0]?.block).toBe(message);
      expect(stitched.messages[0]?.tool_calls).toHaveLength(1500);
      expect(tracer.blocks()).toHaveLength(3001);
    });

    it('honours parentBlockId', () => {
      const { tracer } = setup();
      const first = tracer.logMessage({ role: 'user', content: 'one' });
      tracer.logMessage({ role: 'user', content: 'two' });
      expect(tracer.recordEntry(entry('c1'), { parentBlockId: first.id })[0].parent_block_id).toBe(
        first.id,
      );
    });

    it('logs a synthetic message when the trace has none', () => {
      const { tracer } = setup();
      const [call] = tracer.recordEntry(entry('c1'));
      expect(tracer.blocks()).toHaveLength(3);
      expect(tracer.blocks()[0]).toMatchObject({ metadata: { synthetic: true } });
      expect(call.parent_block_id).toBe(tracer.blocks()[0]?.id);
    });

    it('records nothing when the result is invalid (atomic)', () => {
      const { tracer, sink } = setup({ limits: { toolResultBytes: 16 } });
      tracer.logMessage({ role: 'user', content: 'go' });
      expectRejectedUnchanged(
        tracer,
        sink,
        () => tracer.recordEntry(entry('c1', 'x'.repeat(100))),
        'PAYLOAD_TOO_LARGE',
      );
      expect(tracer.findToolCall('c1')).toBeUndefined();
      // the same call id can still be recorded, and ids have no gap
      const [call] = tracer.recordEntry(entry('c1', 'ok'));
      expect(call.id).toBe('tb_000002');
    });

    it('records nothing, not even the synthetic message, when the result is invalid', () => {
      const { tracer, sink } = setup({ limits: { toolResultBytes: 16 } });
      expectRejectedUnchanged(
        tracer,
        sink,
        () => tracer.recordEntry(entry('c1', 'x'.repeat(100))),
        'PAYLOAD_TOO_LARGE',
      );
      expect(tracer.blocks()).toEqual([]);
    });

    it('rejects a malformed entry with VALIDATION', () => {
      const { tracer, sink } = setup();
      tracer.logMessage({ role: 'user', content: 'go' });
      expectRejectedUnchanged(
        tracer,
        sink,
        () => tracer.recordEntry({} as TraceEntry),
        'VALIDATION',
      );
      const mismatched = entry('c1');
      mismatched.result.call_id = 'other';
      expectRejectedUnchanged(tracer, sink, () => tracer.recordEntry(mismatched), 'VALIDATION');
    });

    it('frees the call id of a rejected entry, and still rejects reusing an accepted one', () => {
      const { tracer, sink } = setup();
      tracer.logMessage({ role: 'user', content: 'go' });
      tracer.recordEntry(entry('c5'));
      const mismatched = entry('c9');
      mismatched.result.call_id = 'other';
      expectRejectedUnchanged(tracer, sink, () => tracer.recordEntry(mismatched), 'VALIDATION');
      expect(tracer.findToolCall('c9')).toBeUndefined();
      // a call id below the rejected one, then the rejected one itself
      const [lower] = tracer.recordEntry(entry('c7'));
      const [freed] = tracer.recordEntry(entry('c9'));
      expect(tracer.findToolCall('c7')).toBe(lower);
      expect(tracer.findToolCall('c9')).toBe(freed);
      for (const callId of ['c5', 'c7', 'c9'])
        expectRejectedUnchanged(
          tracer,
          sink,
          () => tracer.recordEntry(entry(callId)),
          'DUPLICATE_CALL_ID',
        );
    });

    it('rejects a duplicate call id and an unknown parent without recording', () => {
      const { tracer, sink } = setup();
      tracer.logMessage({ role: 'user', content: 'go' });
      tracer.recordEntry(entry('c1'));
      expectRejectedUnchanged(
        tracer,
        sink,
        () => tracer.recordEntry(entry('c1')),
        'DUPLICATE_CALL_ID',
      );
      expectRejectedUnchanged(
        tracer,
        sink,
        () => tracer.recordEntry(entry('c2'), { parentBlockId: 'tb_nope' }),
        'VALIDATION',
      );
    });
  });

  describe('flush and shutdown', () => {
    it('rejects log* after shutdown with TRACER_CLOSED and closes every sink', async () => {
      const { tracer, sink } = setup();
      const message = tracer.logMessage({ role: 'user', content: 'hi' });
      await tracer.shutdown();
      expect(sink.closed).toBe(true);
      const calls: (() => unknown)[] = [
        () => tracer.logMessage({ role: 'user', content: 'again' }),
        () =>
          tracer.logAct({
            parent_block_id: lastMessageOf(tracer),
            payload: { call_id: 'c', name: 'n', arguments: {} },
          }),
        () => tracer.logObserve({ payload: { call_id: 'c', output: 1 } }),
        () => tracer.logThink({ parent_block_id: lastMessageOf(tracer), payload: { text: 't' } }),
        () => tracer.recordEntry(entry('c')),
      ];
      for (const call of calls) {
        let caught: unknown;
        try {
          call();
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(TracerClosedError);
        expect((caught as TracerClosedError).code).toBe('TRACER_CLOSED');
        expect(TracewardenError.isInstance(caught)).toBe(true);
      }
      expect(tracer.blocks()).toEqual([message]);
      expect(tracer.get(message.id)).toBe(message);
      // idempotent
      await expect(tracer.shutdown()).resolves.toBeUndefined();
    });

    it('flushes every sink and reports each failure after attempting all', async () => {
      const failure = new SinkError({ code: 'SINK_WRITE_FAILED', message: 'disk full' });
      const failing: Sink = {
        write() {},
        flush: () => Promise.reject(failure),
        close: () => Promise.reject(failure),
      };
      const healthy = createMemorySink();
      const flushSpy = vi.spyOn(healthy, 'flush');
      const tracer = createTracer({ sinks: [failing, healthy] });
      tracer.logMessage({ role: 'user', content: 'hi' });
      const error = await tracer.flush().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TracerFlushError);
      expect((error as TracerFlushError).code).toBe('TRACER_FLUSH_FAILED');
      expect((error as TracerFlushError).errors).toEqual([failure]);
      expect((error as TracerFlushError).message).toContain('disk full');
      expect(flushSpy).toHaveBeenCalledOnce();
      const shutdownError = await tracer.shutdown().catch((caught: unknown) => caught);
      expect(shutdownError).toBeInstanceOf(TracerFlushError);
      expect(healthy.closed).toBe(true);
    });

    it('keeps a block a sink threw on, reports it to onError and through flush', async () => {
      const thrown = new Error('sink exploded');
      const seen: unknown[] = [];
      const broken: Sink = {
        write() {
          throw thrown;
        },
        flush: () => Promise.resolve(),
        close: () => Promise.resolve(),
      };
      const memory = createMemorySink();
      const tracer = createTracer({
        sinks: [broken, memory],
        onError: (error) => seen.push(error),
      });
      const block = tracer.logMessage({ role: 'user', content: 'hi' });
      expect(tracer.blocks()).toEqual([block]);
      expect(memory.blocks).toEqual([block]);
      expect(seen).toEqual([thrown]);
      const error = await tracer.flush().catch((caught: unknown) => caught);
      expect((error as TracerFlushError).errors).toEqual([thrown]);
      // reported once
      await expect(tracer.flush()).resolves.toBeUndefined();
    });

    it('reports a sink whose flush throws synchronously', async () => {
      const broken = new Error('sync failure');
      const sink: Sink = {
        write() {},
        flush() {
          throw broken;
        },
        close() {
          throw broken;
        },
      };
      const tracer = createTracer({ sinks: [sink] });
      await expect(tracer.flush()).rejects.toMatchObject({
        code: 'TRACER_FLUSH_FAILED',
        errors: [broken],
      });
      await expect(tracer.shutdown()).rejects.toMatchObject({
        code: 'TRACER_FLUSH_FAILED',
        errors: [broken],
      });
    });

    it('rejects a clock that does not return epoch milliseconds', () => {
      const tracer = createTracer({ clock: () => Number.NaN, ids: createSequentialIds() });
      expect(rejection(() => tracer.logMessage({ role: 'user', content: 'hi' })).code).toBe(
        'VALIDATION',
      );
      expect(tracer.blocks()).toEqual([]);
    });

    it('returns a copy from blocks()', () => {
      const { tracer } = setup();
      tracer.logMessage({ role: 'user', content: 'hi' });
      const blocks = tracer.blocks() as Block[];
      blocks.length = 0;
      expect(tracer.blocks()).toHaveLength(1);
    });
  });

  it('keeps sink and tracer identical and the tree orphan-free for any sequence of calls (property)', () => {
    type Operation =
      | { kind: 'message'; role: 'user' | 'assistant' | 'system'; content: string }
      | { kind: 'act'; call: number; name: string }
      | { kind: 'observe'; call: number; seq: number | undefined; delta: boolean }
      | { kind: 'think'; text: string };
    const operation: fc.Arbitrary<Operation> = fc.oneof(
      fc.record({
        kind: fc.constant('message' as const),
        role: fc.constantFrom('user' as const, 'assistant' as const, 'system' as const),
        content: fc.string({ maxLength: 12 }),
      }),
      fc.record({
        kind: fc.constant('act' as const),
        call: fc.nat(5),
        name: fc.string({ maxLength: 6 }),
      }),
      fc.record({
        kind: fc.constant('observe' as const),
        call: fc.nat(5),
        seq: fc.option(fc.nat(3), { nil: undefined }),
        delta: fc.boolean(),
      }),
      fc.record({ kind: fc.constant('think' as const), text: fc.string({ maxLength: 12 }) }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 40 }), (operations) => {
        const { tracer, sink } = setup({ limits: { messageBytes: 8 } });
        let accepted = 0;
        for (const op of operations) {
          const before = tracer.blocks().length;
          try {
            if (op.kind === 'message') tracer.logMessage({ role: op.role, content: op.content });
            else if (op.kind === 'act')
              tracer.logAct({
                parent_block_id: lastMessageOf(tracer),
                payload: { call_id: `c${op.call}`, name: op.name, arguments: {} },
              });
            else if (op.kind === 'observe') {
              const payload = op.delta
                ? { call_id: `c${op.call}`, delta: 'd' }
                : { call_id: `c${op.call}`, output: 'o' };
              tracer.logObserve({
                payload: op.seq === undefined ? payload : { ...payload, seq: op.seq },
              });
            } else
              tracer.logThink({
                parent_block_id: lastMessageOf(tracer),
                payload: { text: op.text },
              });
          } catch (error) {
            expect(error).toBeInstanceOf(TraceError);
            expect(tracer.blocks().length).toBe(before);
            continue;
          }
          accepted += tracer.blocks().length - before;
        }
        expect(tracer.blocks()).toEqual(sink.blocks);
        expect(tracer.blocks()).toHaveLength(accepted);
        // sequential ids without gaps: rejected blocks gave their ids back
        tracer.blocks().forEach((block, index) => {
          expect(block.id).toBe(`tb_${String(index + 1).padStart(6, '0')}`);
        });
        const stitched = tracer.stitched();
        expect(stitched.orphans).toEqual({ tool_calls: [], tool_results: [] });
      }),
    );
  });
});

describe('block ids and the clock', () => {
  const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  /** The time a ULID block id encodes (its first ten characters after `tb_`). */
  const idTime = (id: string) =>
    [...id.slice(3, 13)].reduce((time, char) => time * 32 + crockford.indexOf(char), 0);

  it('reads its clock once per block: the id encodes the created_at time', async () => {
    let now = Date.UTC(2026, 0, 1);
    const tracer = createTracer({ clock: () => now++ }); // every read moves the clock
    const message = tracer.logMessage({ role: 'user', content: 'hi' });
    const call = tracer.logAct({
      parent_block_id: message.id,
      payload: { call_id: 'c1', name: 'f', arguments: {} },
    });
    const result = tracer.logObserve({ payload: { call_id: 'c1', output: 1 } });
    for (const block of [message, call, result]) {
      expect(idTime(block.id)).toBe(Date.parse(block.created_at));
    }
    // one read each: consecutive milliseconds
    expect(
      [message, call, result].map((b) => Date.parse(b.created_at) - Date.UTC(2026, 0, 1)),
    ).toEqual([1, 2, 3]);
  });

  it('keeps ids on the fake clock when fake timers replace Date.now after import', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.UTC(2020, 0, 1));
      const tracer = createTracer();
      tracer.logMessage({ role: 'user', content: 'go' });
      await guard(async () => 'ok', { tracer })();
      const last = tracer.logMessage({ role: 'user', content: 'again' });
      for (const block of tracer.blocks()) {
        expect(idTime(block.id)).toBe(Date.UTC(2020, 0, 1));
      }
      expect(Date.parse(last.created_at)).toBe(Date.UTC(2020, 0, 1));
    } finally {
      vi.useRealTimers();
    }
  });

  it("stamps a guarded call's block ids with its end time (Date.now clocks)", async () => {
    const tracer = createTracer();
    tracer.logMessage({ role: 'user', content: 'go' });
    const before = Date.now();
    await guard(async () => 'ok', { tracer })();
    const after = Date.now();
    const [, call, result] = tracer.blocks();
    for (const block of [call!, result!]) {
      expect(idTime(block.id)).toBeGreaterThanOrEqual(before);
      expect(idTime(block.id)).toBeLessThanOrEqual(after);
    }
    expect(call!.id < result!.id).toBe(true);
  });
});

describe('guarded calls recorded without a TraceEntry', () => {
  it('records the same blocks as recordEntry of the entry the guard would build', async () => {
    const run = async (viaEntry: boolean) => {
      const tracer = createTracer({ ids: createSequentialIds(), clock: () => 1_700_000_000_000 });
      let time = 1_700_000_000_000;
      let n = 0;
      const tool = guard(async (q: string, _context?: unknown) => ({ answer: q }), {
        name: 'lookup',
        clock: () => (time += 1.5),
        createCallId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
        budget: createBudget({ maxCostPerSession: 1, costPerCall: 0.001 }),
        sideEffect: 'read',
        ...(viaEntry ? { onEntry: (entry: TraceEntry) => tracer.recordEntry(entry) } : { tracer }),
      });
      await tool('a');
      await tool.invoke({ sessionId: 's-1' }, 'b');
      return tracer.blocks();
    };
    const direct = await run(false);
    expect(direct).toHaveLength(5); // synthetic MESSAGE + 2 calls
    expect(direct).toEqual(await run(true));
  });
});
