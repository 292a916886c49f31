import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError, TracewardenError } from '../errors/index.js';
import type { Block } from '../model/index.js';
import { recordToolResult } from '../recording/record-tool-result.js';
import { createMemorySink } from '../sinks/create-memory-sink.js';
import { createTracer } from './create-tracer.js';
import type { LogObserveInput, Tracer } from './types.js';

// recordToolResult takes createTracer's direct path (the tracer builds the TOOL_RESULT under the
// call it holds and checks only what the caller brought). It must record what logObserve
// records and reject what logObserve rejects, with the same error; and a wrapper with its own
// logObserve must still see every result.

const ulid = /tb_[0-9A-HJKMNP-TV-Z]{26}/g;
const normalise = (text: string) => text.replace(ulid, 'tb_ID');

// the clock reads `at` once the call is recorded (a reading no timestamp can hold included)
function traced(at: number, toolResultBytes: number) {
  let now = Date.UTC(2025, 0, 31, 12);
  const clock = () => now;
  const sink = createMemorySink();
  const tracer = createTracer({
    traceId: 'tr_1',
    clock,
    sinks: [sink],
    limits: { toolResultBytes },
  });
  const message = tracer.logMessage({ role: 'assistant', content: null });
  tracer.logAct({
    parent_block_id: message.id,
    payload: { call_id: 'call_1', name: 'search', arguments: { q: 'x' } },
  });
  now = at;
  return { tracer, sink };
}

function outcome(tracer: Tracer, sink: { blocks: readonly Block[] }, run: () => boolean) {
  let result: unknown;
  try {
    result = run();
  } catch (error) {
    if (!TracewardenError.isInstance(error)) throw error;
    const body = TraceError.isInstance(error)
      ? error.toJSON()
      : { name: error.name, code: error.code, message: error.message };
    result = { error: normalise(JSON.stringify(body)) };
  }
  return {
    result,
    blocks: normalise(JSON.stringify(tracer.blocks())),
    sink: normalise(JSON.stringify(sink.blocks)),
    frozen: tracer
      .blocks()
      .every((block) => Object.isFrozen(block) && Object.isFrozen(block.payload)),
  };
}

const loneSurrogate = fc.constantFrom('\uD800', 'a\uDFFFb', 'ok');
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  loneSurrogate,
  fc.string({ maxLength: 80 }),
  fc.constant(undefined),
  fc.constant(10n),
  fc.constant(new Map([['a', 1]])),
  fc.constant(Number.NaN),
);
const objectOrNot = fc.oneof(
  fc.constant(undefined),
  fc.dictionary(fc.constantFrom('status', 'note', 'ms'), value, { maxKeys: 3 }),
  fc.constant(null),
  fc.constant([1, 2]),
  fc.constant(new Date(0)),
);

describe('recordToolResult through the direct path', () => {
  it('records and rejects exactly as logObserve (property)', () => {
    fc.assert(
      fc.property(
        value,
        objectOrNot,
        objectOrNot,
        fc.constantFrom(Date.UTC(2025, 0, 31, 12), -1e14, 3e14),
        fc.constantFrom(16, 64, 1_000_000),
        fc.constantFrom('call_1', 'call_2'),
        (output, metadata, extra, now, limit, callId) => {
          const input = {
            callId,
            output,
            metadata: metadata as Record<string, unknown> | undefined,
            extra: extra as Record<string, unknown> | undefined,
          };
          const direct = traced(now, limit);
          // a spread copy does not carry the direct path: recordToolResult then calls logObserve
          const viaLogObserve = traced(now, limit);
          const plain = { ...viaLogObserve.tracer };
          expect(
            outcome(direct.tracer, direct.sink, () => recordToolResult(direct.tracer, input)),
          ).toEqual(outcome(plain, viaLogObserve.sink, () => recordToolResult(plain, input)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('records nothing for an unknown call id, also on a closed tracer', async () => {
    const { tracer, sink } = traced(Date.now(), 1_000);
    expect(recordToolResult(tracer, { callId: 'nope', output: 'x' })).toBe(false);
    await tracer.shutdown();
    expect(recordToolResult(tracer, { callId: 'nope', output: 'x' })).toBe(false);
    expect(() => recordToolResult(tracer, { callId: 'call_1', output: 'x' })).toThrow(
      expect.objectContaining({ code: 'TRACER_CLOSED' }),
    );
    expect(sink.blocks).toHaveLength(2);
  });

  it('records a result once per call id, a rejected one not at all', () => {
    const { tracer } = traced(Date.now(), 16);
    expect(() => recordToolResult(tracer, { callId: 'call_1', output: 'x'.repeat(40) })).toThrow(
      expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }),
    );
    expect(recordToolResult(tracer, { callId: 'call_1', output: 'ok' })).toBe(true);
    expect(recordToolResult(tracer, { callId: 'call_1', output: 'again' })).toBe(false);
    const blocks = tracer.blocks();
    expect(blocks.map((block) => block.sub_type)).toEqual(['MESSAGE', 'TOOL_CALL', 'TOOL_RESULT']);
    expect(blocks[2]?.parent_block_id).toBe(blocks[1]?.id);
  });

  for (const kind of ['proxy', 'derived', 'patched'] as const) {
    it(`a ${kind} wrapper's logObserve sees every tool result`, () => {
      const { tracer: base } = traced(Date.now(), 1_000);
      const seen: unknown[] = [];
      const original = base.logObserve;
      const logObserve = (input: LogObserveInput) => {
        seen.push(input.payload.output);
        return original({ ...input, payload: { ...input.payload, output: '[redacted]' } });
      };
      let tracer: Tracer;
      if (kind === 'proxy')
        tracer = new Proxy(base, {
          get: (target, key, receiver) =>
            key === 'logObserve' ? logObserve : Reflect.get(target, key, receiver),
        });
      else if (kind === 'derived')
        tracer = Object.assign(Object.create(base) as Tracer, { logObserve });
      else {
        base.logObserve = logObserve;
        tracer = base;
      }
      expect(recordToolResult(tracer, { callId: 'call_1', output: 'secret' })).toBe(true);
      expect(seen).toEqual(['secret']);
      expect(base.blocks().at(-1)?.payload).toEqual({ call_id: 'call_1', output: '[redacted]' });
    });
  }
});
