import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { createTracer, parsePolicy, validateBlocks } from '@tracewarden/core';
import { comparableTrace } from '@tracewarden/core/testing';
import { wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Step, streamParts, usage } from '../__fixtures__/mock-model.js';
import { type TracewardenMiddlewareOptions, tracewardenMiddleware } from '../index.js';

// An observed stream is read two ways: by a reader (a user of doStream, iteration) and through
// pipeThrough (how the AI SDK reads a model's stream). Either way the caller must get the same
// parts, the same end and the same trace.

const sendPolicy = parsePolicy(`
raise "no email" if:
  (call: ToolCall)
  call is tool:send_email
`);

type Source = () => ReadableStream<LanguageModelV4StreamPart>;
/** Reads a stream's parts into `parts` until it ends or fails. */
type Read = (stream: ReadableStream<LanguageModelV4StreamPart>, parts: unknown[]) => Promise<void>;

/** Reads through the pull layer. */
const viaReader: Read = async (stream, parts) => {
  const reader = stream.getReader();
  for (;;) {
    const next = await reader.read();
    if (next.done) return;
    parts.push(next.value);
  }
};

/** Reads through pipeThrough, as the AI SDK does. */
const viaPipeThrough: Read = (stream, parts) =>
  viaReader(stream.pipeThrough(new TransformStream()), parts);

async function run(source: Source, options: TracewardenMiddlewareOptions, read: Read) {
  const tracer = createTracer();
  const model = wrapLanguageModel({
    model: new MockLanguageModelV4({ doStream: async () => ({ stream: source() }) }),
    middleware: tracewardenMiddleware({ ...options, tracer }),
  });
  const { stream } = await model.doStream({
    prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
  });
  const parts: unknown[] = [];
  let error: unknown;
  try {
    await read(stream, parts);
  } catch (caught) {
    error = caught;
  }
  expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  return {
    parts,
    error: error === undefined ? undefined : String((error as Error).message ?? error),
    trace: comparableTrace(tracer.stitched()),
    status: tracer.blocks().find((block) => block.payload.role === 'assistant')?.metadata?.status,
    streamError: tracer.blocks().find((block) => block.payload.role === 'assistant')?.metadata
      ?.stream_error,
  };
}

async function expectSameThroughBoth(source: Source, options: TracewardenMiddlewareOptions) {
  const pulled = await run(source, options, viaReader);
  const piped = await run(source, options, viaPipeThrough);
  expect(piped).toEqual(pulled);
  return piped;
}

const fromParts = (parts: LanguageModelV4StreamPart[]): Source => {
  return () => {
    const queue = parts.slice();
    return new ReadableStream({
      pull(controller) {
        const next = queue.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
  };
};

const stepArbitrary: fc.Arbitrary<Step> = fc.record(
  {
    text: fc.string({ minLength: 1, maxLength: 30 }),
    reasoning: fc.string({ minLength: 1, maxLength: 30 }),
    calls: fc.uniqueArray(
      fc.record({
        id: fc.stringMatching(/^call_[a-z0-9]{1,6}$/),
        name: fc.constantFrom('search', 'send_email'),
        input: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.string(), { maxKeys: 3 }),
      }),
      { minLength: 1, maxLength: 3, selector: (call) => call.id },
    ),
  },
  { requiredKeys: [] },
);

const optionsArbitrary = fc.constantFrom<TracewardenMiddlewareOptions>(
  {},
  { policy: sendPolicy },
  { policy: sendPolicy, onPolicyViolation: 'refuse' },
);

describe('an observed stream gives the same parts, end and trace however it is read', () => {
  it('property: any step, any split, with or without a policy (throw and refuse)', async () => {
    await fc.assert(
      fc.asyncProperty(
        stepArbitrary,
        fc.integer({ min: 1, max: 4 }),
        optionsArbitrary,
        async (step, pieces, options) => {
          const result = await expectSameThroughBoth(fromParts(streamParts(step, pieces)), options);
          const blocked =
            options.policy !== undefined && step.calls?.some((c) => c.name === 'send_email');
          if (blocked && options.onPolicyViolation !== 'refuse')
            expect(result.error).toMatch(/no email/);
          else expect(result.error).toBeUndefined();
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a stream error part the model stopped on: recorded as failed, no held tool call delivered', async () => {
    const parts = streamParts({
      text: 'partial',
      calls: [{ id: 'c1', name: 'search', input: {} }],
    });
    parts.splice(parts.length - 1, 1, { type: 'error', error: new Error('model overloaded') });
    const result = await expectSameThroughBoth(fromParts(parts), { policy: sendPolicy });
    expect(JSON.stringify(result.parts)).not.toContain('"tool-call"');
    expect(result.status).toBe('failure');
    // the provider's finish after a fatal error says so
    const finished = streamParts({
      text: 'partial',
      calls: [{ id: 'c1', name: 'search', input: {} }],
    });
    finished.splice(finished.length - 1, 0, {
      type: 'error',
      error: new Error('model overloaded'),
    });
    const last = finished.at(-1) as Extract<LanguageModelV4StreamPart, { type: 'finish' }>;
    finished[finished.length - 1] = { ...last, finishReason: { unified: 'error', raw: undefined } };
    const failed = await expectSameThroughBoth(fromParts(finished), { policy: sendPolicy });
    expect(JSON.stringify(failed.parts)).not.toContain('"tool-call"');
    expect(failed.status).toBe('failure');
  });

  it('a stream error part the model went on after (an unparsable chunk): the allowed calls are delivered, the error kept', async () => {
    const parts = streamParts({
      text: 'partial',
      calls: [{ id: 'c1', name: 'search', input: {} }],
    });
    parts.splice(2, 0, { type: 'error', error: new Error('bad chunk') });
    for (const options of [{ policy: sendPolicy }, {}]) {
      const result = await expectSameThroughBoth(fromParts(parts), options);
      // as without tracewarden: the AI SDK runs the call, and a policy that allows it changes nothing
      expect(JSON.stringify(result.parts)).toContain('"tool-call"');
      expect(result.status).toBe('success');
      expect(result.streamError).toBe('bad chunk');
    }
  });

  it('a source that fails mid-stream: the caller gets the error, the call is recorded as failed', async () => {
    const source: Source = () => {
      let sent = 0;
      return new ReadableStream({
        pull(controller) {
          if (sent++ < 3) controller.enqueue({ type: 'text-delta', id: 't', delta: `p${sent} ` });
          else controller.error(new Error('socket hang up'));
        },
      });
    };
    const result = await expectSameThroughBoth(source, {});
    expect(result.error).toBe('socket hang up');
    expect(result.parts).toHaveLength(3);
    expect(result.status).toBe('failure');
  });

  it('the live budget cut-off: parts up to the stop are delivered, then BUDGET_EXCEEDED', async () => {
    const parts: LanguageModelV4StreamPart[] = [{ type: 'text-start', id: 't' }];
    for (let i = 0; i < 100; i++)
      parts.push({ type: 'text-delta', id: 't', delta: 'x'.repeat(400) });
    parts.push({ type: 'text-end', id: 't' });
    parts.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
    const result = await expectSameThroughBoth(fromParts(parts), {
      pricing: { overrides: { 'mock-model-id': [0, 1000] } },
      guards: { budget: { maxCostPerCall: 0.5 } },
    });
    expect(result.error).toMatch(/budget/i);
    expect(result.parts.length).toBeGreaterThan(0);
    expect(result.parts.length).toBeLessThan(100);
    expect(result.status).toBe('budget_exceeded');
  });

  it('a caller that cancels early: the source is cancelled and the call recorded as cancelled', async () => {
    for (const pipe of [false, true]) {
      let cancelled: unknown;
      const tracer = createTracer();
      const model = wrapLanguageModel({
        model: new MockLanguageModelV4({
          doStream: async () => ({
            stream: new ReadableStream<LanguageModelV4StreamPart>({
              pull(controller) {
                controller.enqueue({ type: 'text-delta', id: 't', delta: 'more ' });
              },
              cancel(reason) {
                cancelled = reason;
              },
            }),
          }),
        }),
        middleware: tracewardenMiddleware({ tracer }),
      });
      const { stream } = await model.doStream({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      });
      const readable = pipe ? stream.pipeThrough(new TransformStream()) : stream;
      const reader = readable.getReader();
      await reader.read();
      await reader.read();
      await reader.cancel('enough');
      // through pipeThrough the cancel reaches the source a turn later (the native pipe)
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(cancelled).toBe('enough');
      const assistant = tracer.blocks().find((block) => block.payload.role === 'assistant');
      expect(assistant?.metadata).toMatchObject({ status: 'cancelled' });
      expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
    }
  });
});
