import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { guard } from '../guards/guard.js';
import type { GuardLogger } from '../guards/types.js';
import type { Block } from '../model/index.js';
import type { Sink } from '../sinks/sink.js';
import { noopSink, normalise } from './__fixtures__/compare-traces.js';
import { createTracer } from './create-tracer.js';
import { type GuardedCallTracer, recordGuardedCall } from './record-guarded-call.js';
import { TracerFlushError } from './tracer-flush-error.js';
import type { Tracer } from './types.js';

// A tracer with no sink defers a guarded call's blocks until the trace is next read or written.
// These tests hold it to the promise that this is invisible: the same blocks, in the same order,
// with the same refusals, as a tracer that records at once (any sink makes it do so).

type Step =
  | { kind: 'call'; args: unknown[]; output: unknown }
  | { kind: 'message'; content: string }
  | { kind: 'read' };

const jsonish = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant('x'.repeat(300)), // over the small limits below
  fc.constant('\uD800 lone surrogate'),
  fc.constant(undefined),
);

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      args: fc.oneof(
        fc.array(jsonish, { maxLength: 2 }),
        fc
          .dictionary(fc.string({ maxLength: 4 }), jsonish, { maxKeys: 2 })
          .map((kwargs) => [kwargs]),
      ),
      output: jsonish,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('message' as const),
      content: fc.string({ minLength: 1, maxLength: 8 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'read' as const }) },
);

/** `entryPath`: the guard sees a wrapper with its own recordEntry, so no direct channel is taken. */
async function run(steps: Step[], sinks: Sink[], entryPath = false) {
  let now = Date.parse('2025-01-31T12:00:00.000Z');
  const clock = () => now++;
  const tracer = createTracer({
    clock,
    sinks,
    limits: { toolArgumentsBytes: 200, toolResultBytes: 200 },
  });
  tracer.logMessage({ role: 'user', content: 'start' });
  const warnings: string[] = [];
  const logger: GuardLogger = {
    warn: (message) => warnings.push(message.replace(/tb_\w+/g, 'tb_')),
  };
  let output: unknown;
  let target: Tracer = tracer;
  if (entryPath) {
    target = Object.create(tracer) as Tracer;
    target.recordEntry = (entry, options) => tracer.recordEntry(entry, options);
  }
  const tool = guard((..._args: unknown[]) => output, {
    name: 'tool',
    tracer: target,
    clock,
    logger,
  });
  const reads: unknown[] = [];
  for (const s of steps) {
    if (s.kind === 'call') {
      output = s.output;
      await tool(...s.args);
    } else if (s.kind === 'message') {
      tracer.logMessage({ role: 'user', content: s.content });
    } else {
      reads.push(normalise(tracer.blocks()));
    }
  }
  return { blocks: normalise(tracer.blocks()), reads, warnings, tracer };
}

describe('a tracer without sinks defers guarded calls', () => {
  it('records the same blocks, in the same order, with the same refusals, as one that records at once (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        const deferred = await run(steps, []);
        const immediate = await run(steps, [noopSink]);
        expect(deferred.blocks).toStrictEqual(immediate.blocks);
        expect(deferred.reads).toStrictEqual(immediate.reads);
        expect(deferred.warnings).toStrictEqual(immediate.warnings);
      }),
      { numRuns: 150 },
    );
  });

  it('records with a sink the same blocks, reads and refusals as through recordEntry (property)', async () => {
    // a tracer with sinks adopts a guarded call's blocks whose values it checked, without
    // inspecting them again: it must agree with the fully checked path of a TraceEntry
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        const adopted = await run(steps, [noopSink]);
        const checked = await run(steps, [noopSink], true);
        expect(adopted.blocks).toStrictEqual(checked.blocks);
        expect(adopted.reads).toStrictEqual(checked.reads);
        expect(adopted.warnings).toStrictEqual(checked.warnings);
      }),
      { numRuns: 150 },
    );
  });

  it('materialises on every read and write: get, findToolCall, stitched, logAct, recordEntry', async () => {
    const tracer = createTracer();
    const message = tracer.logMessage({ role: 'user', content: 'hi' });
    const tool = guard(async (city: string) => `sunny in ${city}`, { name: 'weather', tracer });
    await tool('bogotá');
    const [call, result] = tracer.blocks().slice(1);
    expect(call).toMatchObject({ sub_type: 'TOOL_CALL', parent_block_id: message.id });
    expect(result).toMatchObject({
      sub_type: 'TOOL_RESULT',
      payload: { output: 'sunny in bogotá' },
    });
    expect(Object.isFrozen(call)).toBe(true);
    expect(Object.isFrozen(result?.payload)).toBe(true);

    await tool('lima');
    const lima = tracer.stitched().messages[0]?.tool_calls[1]?.block;
    const callId = lima?.payload.call_id as string;
    expect(tracer.findToolCall(callId)?.payload).toMatchObject({ name: 'weather', args: ['lima'] });

    await tool('quito');
    const third = tracer.blocks().at(-2) as Block;
    expect(tracer.get(third.id)).toBe(third);

    await tool('cusco');
    tracer.logThink({ parent_block_id: message.id, payload: { text: 'thinking' } });
    const kinds = tracer.blocks().map((block) => block.sub_type);
    expect(kinds).toStrictEqual([
      'MESSAGE',
      ...Array(8)
        .fill(0)
        .map((_, i) => (i % 2 === 0 ? 'TOOL_CALL' : 'TOOL_RESULT')),
      'THINK',
    ]);
  });

  it('records a call whose tool logged its own call id eagerly: the same warning, nothing deferred', async () => {
    for (const sinks of [[], [noopSink]]) {
      const warnings: string[] = [];
      const onError = vi.fn();
      const tracer = createTracer({ sinks, onError });
      const message = tracer.logMessage({ role: 'user', content: 'hi' });
      const tool = guard(
        (_q: string, context?: { callId: string }) => {
          tracer.logAct({
            parent_block_id: message.id,
            payload: { call_id: context?.callId as string, name: 'tool', arguments: {} },
          });
          return 'done';
        },
        { name: 'tool', tracer, logger: { warn: (text) => warnings.push(text) } },
      );
      await tool('q');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('already has a TOOL_CALL');
      expect(tracer.blocks().map((block) => block.sub_type)).toStrictEqual([
        'MESSAGE',
        'TOOL_CALL',
      ]);
      await expect(tracer.flush()).resolves.toBeUndefined();
      expect(onError).not.toHaveBeenCalled();
    }
  });

  it('reports a call id that only looked fresh when it materialises: onError hears it, flush rejects', async () => {
    const onError = vi.fn();
    const tracer = createTracer({ onError }) as Tracer as GuardedCallTracer;
    const message = tracer.logMessage({ role: 'user', content: 'hi' });
    tracer.logAct({
      parent_block_id: message.id,
      payload: { call_id: 'taken', name: 'tool', arguments: {} },
    });
    const at = new Date().toISOString();
    tracer[recordGuardedCall]({
      callId: 'taken',
      toolName: 'tool',
      args: [],
      kwargs: {},
      callTimestamp: at,
      sessionId: null,
      status: 'success',
      returnValue: 'ok',
      executionTimeMs: 1,
      retryCount: 0,
      validations: [],
      hallucination: null,
      cost: null,
      resultTimestamp: at,
      guard: { attempts: [], decisions: [] },
      // claims a fresh id, as only the process-wide sequence may
      uniqueCallId: true,
      parentBlockId: '',
      callBlockId: '',
      resultBlockId: '',
    });
    expect(tracer.blocks()).toHaveLength(2);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]?.[0]).toMatchObject({ code: 'DUPLICATE_CALL_ID' });
    await expect(tracer.flush()).rejects.toBeInstanceOf(TracerFlushError);
  });

  it('builds deferred blocks on flush and shutdown too', async () => {
    const tracer = createTracer();
    tracer.logMessage({ role: 'user', content: 'hi' });
    const tool = guard(async () => 'ok', { name: 'tool', tracer });
    await tool();
    await tracer.flush();
    await tool();
    await tracer.shutdown();
    expect(tracer.blocks().map((block) => block.sub_type)).toStrictEqual([
      'MESSAGE',
      'TOOL_CALL',
      'TOOL_RESULT',
      'TOOL_CALL',
      'TOOL_RESULT',
    ]);
  });
});
