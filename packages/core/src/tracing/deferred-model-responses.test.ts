import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { guard } from '../guards/guard.js';
import type { Block } from '../model/index.js';
import { createModelCallRecorder } from '../recording/create-model-call-recorder.js';
import type { ModelCallResponse, ModelToolCall } from '../recording/types.js';
import type { Sink } from '../sinks/sink.js';
import { noopSink, normalise } from './__fixtures__/compare-traces.js';
import { createTracer } from './create-tracer.js';
import { type ModelResponseTracer, recordModelResponse } from './record-model-response.js';
import { TracerClosedError } from './tracer-closed-error.js';
import type { Tracer } from './types.js';

// A tracer with no sink defers the response MESSAGE of a model call until the trace is next read
// or written (decision 008). These tests hold it to the promise that this is invisible: the same
// blocks, ids in the same order, the same metadata, and the same recording errors as a tracer
// that records at once (any sink makes it do so), over-limit and unencodable values included.

/** An error as comparable text: its class, code and message without block or trace ids. */
function describeError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return `${(error as Error)?.constructor?.name}:${String(code)}:${message.replace(/t[br]_\w+/g, 'id')}`;
}

type Step =
  | {
      kind: 'model';
      end: 'finish' | 'fail' | 'cancel';
      stream: boolean;
      text: string | null;
      reasoning: string | null;
      calls: number;
      usage: boolean;
      metadata: boolean;
    }
  | { kind: 'tool' }
  | { kind: 'message'; content: string }
  | { kind: 'read' };

// short, empty, over the 200-byte limit below (by characters, and by bytes only), unencodable
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constant(''),
  fc.constant(null),
  fc.constant('x'.repeat(300)),
  fc.constant('é'.repeat(90)), // 90 characters, 180 bytes: fits
  fc.constant('€'.repeat(70)), // 70 characters, 210 bytes: too large, though 70 × 3 > 200
  fc.constant('\uD800 lone surrogate'),
  fc.constant('ok \uDC00'),
);

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('model' as const),
      end: fc.constantFrom(
        'finish' as const,
        'finish' as const,
        'fail' as const,
        'cancel' as const,
      ),
      stream: fc.boolean(),
      text,
      reasoning: fc.oneof(fc.constant(null), text),
      calls: fc.nat({ max: 2 }),
      usage: fc.boolean(),
      metadata: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'tool' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('message' as const),
      content: fc.string({ minLength: 1, maxLength: 8 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'read' as const }) },
);

type ClockKind = 'whole' | 'fractional' | 'before-1970' | 'after-9999';

const clocks: Record<ClockKind, number> = {
  whole: Date.parse('2025-01-31T12:00:00.000Z'),
  fractional: Date.parse('2025-01-31T12:00:00.000Z') + 0.25,
  'before-1970': Date.parse('1969-12-31T23:59:00.000Z'),
  'after-9999': Date.parse('9999-12-31T23:59:59.990Z'),
};

async function run(steps: Step[], sinks: Sink[], clockKind: ClockKind) {
  let now = clocks[clockKind];
  // every reading a new millisecond: the response's timestamp and id differ from its neighbours'
  const clock = () => {
    now += 1;
    return now;
  };
  const tracer = createTracer({
    clock,
    sinks,
    limits: { messageBytes: 200, thinkBytes: 200, toolArgumentsBytes: 200, toolResultBytes: 200 },
  });
  const errors: string[] = [];
  let recorderNow = 0;
  const recorder = createModelCallRecorder({
    tracer,
    clock: () => (recorderNow += 0.5),
    pricer: (model, usage) => ({
      cost_usd: 0,
      cost_micro_usd: usage.inputTokens,
      priced_model: model,
    }),
    onRecordingError: (error) => errors.push(describeError(error)),
  });
  const tool = guard(async (n: number) => n * 2, {
    name: 'double',
    tracer,
    clock,
    logger: { warn: (message) => errors.push(message.replace(/t[br]_\w+/g, 'id')) },
  });
  const reads: unknown[] = [];
  const outcomes: unknown[] = [];
  let turn = 0;
  for (const s of steps) {
    if (s.kind === 'model') {
      turn++;
      const handle = recorder.start({
        provider: 'p',
        api: 'chat',
        model: 'm',
        messages: [{ role: 'user', content: `question ${turn}` }],
        stream: s.stream,
        raw: { model: 'm', turn },
      });
      const toolCalls: ModelToolCall[] = Array.from({ length: s.calls }, (_, i) => ({
        id: `call_${turn}_${i}`,
        name: 'lookup',
        arguments: i === 0 ? '{"q":1}' : { q: i },
      }));
      const response: ModelCallResponse = {
        text: s.text,
        reasoning: s.reasoning,
        toolCalls,
        responseId: `resp_${turn}`,
        finishReason: 'stop',
        raw: { id: `resp_${turn}` },
      };
      if (s.usage) response.usage = { inputTokens: 3, outputTokens: 4 };
      if (s.metadata) response.metadata = { extra_key: turn, status: 'overridden' };
      if (s.stream) {
        handle.chunk({ text: s.text ?? undefined, reasoning: s.reasoning ?? undefined });
      }
      try {
        if (s.end === 'finish') {
          outcomes.push(s.stream ? handle.finish() : handle.finish(response));
        } else if (s.end === 'fail') {
          handle.fail(new Error('boom'), s.stream ? undefined : response);
          outcomes.push('failed');
        } else {
          handle.cancel();
          outcomes.push('cancelled');
        }
      } catch (error) {
        outcomes.push(describeError(error));
      }
    } else if (s.kind === 'tool') {
      await tool(turn);
    } else if (s.kind === 'message') {
      try {
        tracer.logMessage({ role: 'user', content: s.content });
      } catch (error) {
        errors.push(describeError(error));
      }
    } else {
      reads.push(normalise(tracer.blocks()));
    }
  }
  const normalisedOutcomes = outcomes.map((outcome) =>
    typeof outcome === 'object' && outcome !== null
      ? { ...outcome, messageBlockId: 'messageBlockId' in outcome }
      : outcome,
  );
  return {
    blocks: normalise(tracer.blocks()),
    reads,
    errors,
    outcomes: normalisedOutcomes,
    tracer,
  };
}

describe('a tracer without sinks defers model responses', () => {
  it('records the same blocks, ids in the same order, and the same errors as one that records at once (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 10 }),
        fc.constantFrom<ClockKind>('whole', 'whole', 'fractional', 'before-1970', 'after-9999'),
        async (steps, clockKind) => {
          const deferred = await run(steps, [], clockKind);
          const immediate = await run(steps, [noopSink], clockKind);
          expect(deferred.blocks).toStrictEqual(immediate.blocks);
          expect(deferred.reads).toStrictEqual(immediate.reads);
          expect(deferred.errors).toStrictEqual(immediate.errors);
          expect(deferred.outcomes).toStrictEqual(immediate.outcomes);
          // ids increase in acceptance order, as the tracer's own ids do (for whole-millisecond
          // clocks: the id generator needs whole milliseconds to sort)
          if (clockKind === 'whole') {
            const ids = deferred.tracer.blocks().map((block) => block.id);
            expect(ids).toStrictEqual(ids.slice().sort());
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('defers only without sinks: a response recorded with a sink is written at once', () => {
    const written: Block[] = [];
    const sink: Sink = {
      write: (block) => written.push(block),
      flush: async () => {},
      close: async () => {},
    };
    const tracer = createTracer({ sinks: [sink] });
    const recorder = createModelCallRecorder({ tracer });
    recorder
      .start({ provider: 'p', model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .finish({ text: 'hello' });
    expect(written.map((block) => block.sub_type)).toStrictEqual(['MESSAGE', 'MESSAGE']);
    expect(written[1]?.payload).toStrictEqual({ role: 'assistant', content: 'hello' });
  });

  it('materialises on every read and write, frozen, with the id the recorder was given', async () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    const handle = recorder.start({
      provider: 'p',
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const outcome = handle.finish({ text: 'hello', usage: { inputTokens: 1, outputTokens: 2 } });
    const id = outcome.messageBlockId as string;
    const block = tracer.get(id);
    expect(block).toMatchObject({
      sub_type: 'MESSAGE',
      payload: { role: 'assistant', content: 'hello' },
    });
    expect(Object.isFrozen(block)).toBe(true);
    expect(Object.isFrozen(block?.payload)).toBe(true);
    expect(Object.isFrozen(block?.metadata)).toBe(true);
    expect(block?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(block?.updated_at).toBe(block?.created_at);

    // a guarded call after a deferred response attaches to it
    const tool = guard(async () => 'ok', { name: 'tool', tracer });
    recorder
      .start({ provider: 'p', model: 'm', messages: [{ role: 'user', content: 'again' }] })
      .finish({ text: 'sure' });
    await tool();
    const stitched = tracer.stitched();
    expect(stitched.messages.at(-1)?.tool_calls).toHaveLength(1);
    const kinds = tracer
      .blocks()
      .map((b) => `${b.sub_type}:${b.parent_block_id === null ? 'root' : 'child'}`);
    expect(kinds).toStrictEqual([
      'MESSAGE:root',
      'MESSAGE:root',
      'MESSAGE:root',
      'MESSAGE:root',
      'TOOL_CALL:child',
      'TOOL_RESULT:child',
    ]);
    expect(tracer.blocks()[4]?.parent_block_id).toBe(tracer.blocks()[3]?.id);

    recorder
      .start({ provider: 'p', model: 'm', messages: [{ role: 'user', content: 'more' }] })
      .finish({ text: 'ok' });
    await tracer.flush();
    expect(tracer.blocks()).toHaveLength(8);
    recorder
      .start({ provider: 'p', model: 'm', messages: [{ role: 'user', content: 'last' }] })
      .finish({ text: 'bye' });
    await tracer.shutdown();
    expect(tracer.blocks().at(-1)?.payload).toStrictEqual({ role: 'assistant', content: 'bye' });
  });

  it('refuses a response after shutdown like logMessage: TracerClosedError, reported, nothing recorded', async () => {
    const tracer = createTracer() as Tracer as ModelResponseTracer;
    await tracer.shutdown();
    expect(() => tracer[recordModelResponse]('late', {}, null)).toThrow(TracerClosedError);
    const onRecordingError = vi.fn();
    const recorder = createModelCallRecorder({ tracer, onRecordingError });
    const handle = recorder.start({ provider: 'p', model: 'm', messages: [] });
    expect(handle.finish({ text: 'late' }).messageBlockId).toBeUndefined();
    expect(onRecordingError).toHaveBeenCalledWith(expect.any(TracerClosedError));
    expect(tracer.blocks()).toHaveLength(0);
  });

  it('checks an over-limit or unencodable response at once, with the error logMessage gives', () => {
    for (const content of ['x'.repeat(300), '€'.repeat(70), 'bad \uD800']) {
      const errors: unknown[] = [];
      const tracer = createTracer({
        limits: { messageBytes: 200 },
      }) as Tracer as ModelResponseTracer;
      const eager = createTracer({ limits: { messageBytes: 200 }, sinks: [noopSink] });
      try {
        tracer[recordModelResponse](content, {}, null);
      } catch (error) {
        errors.push(describeError(error));
      }
      try {
        eager.logMessage({ role: 'assistant', content, metadata: {}, raw: null });
      } catch (error) {
        errors.push(describeError(error));
      }
      expect(errors).toHaveLength(2);
      expect(errors[0]).toBe(errors[1]);
      expect(tracer.blocks()).toHaveLength(0);
    }
  });

  it('takes a tracer of another kind, or a wrapper spread from one, through logMessage', () => {
    const inner = createTracer();
    const logged: unknown[] = [];
    // a wrapper made by spreading: the fast path is not enumerable, so it is left behind
    const custom: Tracer = {
      ...inner,
      logMessage(input) {
        logged.push(input);
        return inner.logMessage(input);
      },
    };
    expect(recordModelResponse in custom).toBe(false);
    const recorder = createModelCallRecorder({ tracer: custom });
    recorder.start({ provider: 'p', model: 'm', messages: [] }).finish({ text: 'hi' });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ role: 'assistant', content: 'hi' });
    expect(inner.blocks().map((block) => block.payload)).toStrictEqual([
      { role: 'assistant', content: 'hi' },
    ]);
  });
});
