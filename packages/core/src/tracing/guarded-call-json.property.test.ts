import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { guard } from '../guards/guard.js';
import type { Block } from '../model/index.js';
import { createJsonlFileSink } from '../sinks/create-jsonl-file-sink.js';
import { writeSerialized } from '../sinks/serialized-write.js';
import type { Sink } from '../sinks/sink.js';
import { createTracer } from './create-tracer.js';

/**
 * A tracer hands a sink that writes JSON lines each guarded call's blocks with their JSON text,
 * written from the blocks' known shape (`GuardedCallJson`, the guard record's `guardJson`). The
 * text must be `JSON.stringify(block)` exactly, for every value a call can bring: tool names,
 * session ids and outputs with characters to escape, budgets, side effects, retries (the general
 * path's guard record), validators (their results in the metadata), any clock reading.
 */
function capturingSink() {
  const written: { block: Block; json: string | undefined }[] = [];
  const decoder = new TextDecoder();
  const sink: Sink & { [writeSerialized](block: Block, json: Uint8Array): void } = {
    write(block) {
      written.push({ block, json: undefined });
    },
    [writeSerialized](block, json) {
      // a view the tracer reuses: read at once, as a sink copies it
      written.push({ block, json: decoder.decode(json) });
    },
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  return { sink, written };
}

const calls = fc.array(
  fc.record({
    args: fc.array(fc.jsonValue({ stringUnit: 'binary' }), { maxLength: 3 }),
    output: fc.oneof(fc.jsonValue({ stringUnit: 'binary' }), fc.constant(undefined)),
    sessionId: fc.option(fc.string({ unit: 'binary' }), { nil: undefined }),
    failFirst: fc.boolean(),
  }),
  { minLength: 1, maxLength: 6 },
);

const options = fc.record({
  name: fc.string({ minLength: 1, unit: 'binary' }),
  traceId: fc.option(fc.string({ minLength: 1, unit: 'binary' }), { nil: undefined }),
  budget: fc.option(
    fc.record({
      maxCostPerSession: fc.option(fc.double({ min: 0.01, max: 1e6, noNaN: true }), {
        nil: undefined,
      }),
      costPerCall: fc.option(fc.double({ min: 0, max: 0.01, noNaN: true }), { nil: undefined }),
    }),
    { nil: undefined },
  ),
  sideEffect: fc.constantFrom(undefined, 'read' as const),
  validators: fc.boolean(),
  // within years 1970-9999 (with the calls' durations), so every reading makes a valid timestamp
  clockMs: fc.integer({ min: 0, max: 253_402_300_000_000 }),
  durationMs: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1e4, noNaN: true })),
});

describe('GuardedCallJson', () => {
  it('writes a guarded call as JSON.stringify writes its blocks', async () => {
    await fc.assert(
      fc.asyncProperty(calls, options, async (sequence, o) => {
        const { sink, written } = capturingSink();
        const tracer = createTracer(
          o.traceId === undefined ? { sinks: [sink] } : { sinks: [sink], traceId: o.traceId },
        );
        tracer.logMessage({ role: 'user', content: 'go' });
        const time = { now: o.clockMs };
        let failNext = false;
        const fn = guard(
          async (..._args: unknown[]) => {
            time.now += o.durationMs;
            if (failNext) {
              failNext = false;
              throw new Error('flaky');
            }
            return sequence[0]?.output;
          },
          {
            name: o.name,
            tracer,
            clock: () => time.now,
            logger: { warn: () => {} },
            sideEffect: o.sideEffect,
            retry: { maxRetries: 1, initialDelay: 0, maxDelay: 0, jitter: false },
            ...(o.budget === undefined ? {} : { budget: o.budget }),
            ...(o.validators ? { validators: { output: () => true } } : {}),
          },
        );
        for (const call of sequence) {
          failNext = call.failFirst;
          // a budget may refuse a call: recorded or not, it is not what this test is about
          const pending =
            call.sessionId === undefined
              ? fn(...call.args)
              : fn.invoke({ sessionId: call.sessionId }, ...call.args);
          await pending.catch(() => undefined);
        }
        const blocks = tracer.blocks();
        expect(written.map((w) => w.block)).toEqual(blocks);
        const withJson = written.filter((w) => w.json !== undefined);
        // the first call is always within budget, and comes with its text (a call the budget
        // refused is recorded with its exception, through the sink's own JSON.stringify)
        expect(withJson.length).toBeGreaterThanOrEqual(2);
        for (const { block, json } of withJson) expect(json).toBe(JSON.stringify(block));
      }),
      { numRuns: 300 },
    );
  });

  it('writes calls of any size to a JSONL file sink as JSON.stringify writes them', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'tracewarden-guarded-json-'));
    try {
      const path = join(directory, 'trace.jsonl');
      const tracer = createTracer({ sinks: [createJsonlFileSink(path, { bufferBytes: 4096 })] });
      tracer.logMessage({ role: 'user', content: 'go' });
      // past the sink's buffer and the tracer's scratch: 3 UTF-8 bytes per character
      const sizes = [0, 10, 5_000, 70_000, 10, 200_000];
      const fn = guard(async (size: number) => '€'.repeat(size), { name: 'euros €', tracer });
      for (const size of sizes) await fn(size);
      await tracer.shutdown();
      const lines = readFileSync(path, 'utf8').split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toEqual(tracer.blocks().map((block) => JSON.stringify(block)));
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
