import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { createTracer, validateBlocks } from '@tracewarden/core';
import { comparableTrace } from '@tracewarden/core/testing';
import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generated, type Step, usage } from '../__fixtures__/mock-model.js';
import { tracewardenMiddleware } from '../index.js';

/** Splits `text` at the given cut points (any, possibly empty pieces). */
function split(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const point of points) {
    pieces.push(text.slice(from, point));
    from = point;
  }
  pieces.push(text.slice(from));
  return pieces;
}

function parts(step: Step, cuts: number[]): LanguageModelV4StreamPart[] {
  const out: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if (step.reasoning !== undefined) {
    out.push({ type: 'reasoning-start', id: 'r' });
    for (const piece of split(step.reasoning, cuts))
      out.push({ type: 'reasoning-delta', id: 'r', delta: piece });
    out.push({ type: 'reasoning-end', id: 'r' });
  }
  if (step.text !== undefined) {
    out.push({ type: 'text-start', id: 't' });
    for (const piece of split(step.text, cuts))
      out.push({ type: 'text-delta', id: 't', delta: piece });
    out.push({ type: 'text-end', id: 't' });
  }
  for (const call of step.calls ?? []) {
    const input = JSON.stringify(call.input);
    out.push({ type: 'tool-input-start', id: call.id, toolName: call.name });
    for (const piece of split(input, cuts))
      out.push({ type: 'tool-input-delta', id: call.id, delta: piece });
    out.push({ type: 'tool-input-end', id: call.id });
    out.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input });
  }
  out.push({
    type: 'finish',
    finishReason: step.calls?.length
      ? { unified: 'tool-calls', raw: 'tool_calls' }
      : { unified: 'stop', raw: 'stop' },
    usage,
  });
  return out;
}

const stepArbitrary: fc.Arbitrary<Step> = fc.record(
  {
    text: fc.string({ minLength: 1, maxLength: 40 }),
    reasoning: fc.string({ minLength: 1, maxLength: 40 }),
    calls: fc.uniqueArray(
      fc.record({
        id: fc.stringMatching(/^call_[a-z0-9]{1,6}$/),
        name: fc.constantFrom('search', 'send_email'),
        input: fc.dictionary(
          fc.stringMatching(/^[a-z]{1,5}$/),
          fc.oneof(fc.string(), fc.integer()),
        ),
      }),
      { minLength: 1, maxLength: 3, selector: (call) => call.id },
    ),
  },
  { requiredKeys: [] },
);

describe('streamed or not, a response gives the same blocks (any split into parts)', () => {
  it('property: comparable traces of generateText and streamText are equal', async () => {
    await fc.assert(
      fc.asyncProperty(
        stepArbitrary,
        fc.array(fc.nat(60), { maxLength: 6 }),
        async (step, cuts) => {
          const viaGenerate = createTracer();
          await generateText({
            model: wrapLanguageModel({
              model: new MockLanguageModelV4({ doGenerate: generated(step) }),
              middleware: tracewardenMiddleware({ tracer: viaGenerate, pricing: false }),
            }),
            prompt: 'go',
          });
          const viaStream = createTracer();
          const result = streamText({
            model: wrapLanguageModel({
              model: new MockLanguageModelV4({
                doStream: { stream: simulateReadableStream({ chunks: parts(step, cuts) }) },
              }),
              middleware: tracewardenMiddleware({ tracer: viaStream, pricing: false }),
            }),
            prompt: 'go',
          });
          await result.consumeStream();
          expect(validateBlocks(viaStream.blocks()).errors).toEqual([]);
          expect(comparableTrace(viaStream.stitched())).toEqual(
            comparableTrace(viaGenerate.stitched()),
          );
        },
      ),
      { numRuns: 60 },
    );
  });
});
