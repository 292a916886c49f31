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

/** Interleaves the deltas of several text (or reasoning) parts, each opened before its deltas. */
function interleaved(
  kind: 'text' | 'reasoning',
  texts: string[][],
  order: number[],
): LanguageModelV4StreamPart[] {
  const out: LanguageModelV4StreamPart[] = [];
  const next = texts.map(() => 0);
  const started = texts.map(() => false);
  const emit = (part: number): void => {
    const id = `${kind[0]}${part}`;
    if (!started[part]) {
      started[part] = true;
      out.push({ type: `${kind}-start`, id });
    }
    const pieces = texts[part] as string[];
    const index = next[part] as number;
    if (index < pieces.length) {
      out.push({ type: `${kind}-delta`, id, delta: pieces[index] as string });
      next[part] = index + 1;
    } else if (index === pieces.length) {
      out.push({ type: `${kind}-end`, id });
      next[part] = index + 1;
    }
  };
  for (const pick of order) emit(pick % texts.length);
  for (let part = 0; part < texts.length; part++)
    while ((next[part] as number) <= (texts[part] as string[]).length) emit(part);
  return out;
}

describe('interleaved text and reasoning parts', () => {
  it('property: the recorded answer and reasoning read as the AI SDK assembles them', async () => {
    const pieces = fc.array(fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 4 }), {
      minLength: 1,
      maxLength: 3,
    });
    await fc.assert(
      fc.asyncProperty(
        pieces,
        pieces,
        fc.array(fc.nat(5), { maxLength: 20 }),
        async (texts, reasonings, order) => {
          const tracer = createTracer();
          const result = streamText({
            model: wrapLanguageModel({
              model: new MockLanguageModelV4({
                doStream: {
                  stream: simulateReadableStream({
                    chunks: [
                      { type: 'stream-start', warnings: [] },
                      ...interleaved('reasoning', reasonings, order),
                      ...interleaved('text', texts, order),
                      {
                        type: 'finish',
                        finishReason: { unified: 'stop', raw: 'stop' },
                        usage,
                      },
                    ],
                  }),
                },
              }),
              middleware: tracewardenMiddleware({ tracer, pricing: false }),
            }),
            prompt: 'go',
          });
          const text = await result.text;
          const reasoning = (await result.reasoningText) ?? '';
          const blocks = tracer.blocks();
          expect(validateBlocks(blocks).errors).toEqual([]);
          const answer = blocks.find(
            (block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant',
          );
          expect(answer?.payload.content ?? '').toBe(text);
          const think = blocks.filter((block) => block.sub_type === 'THINK');
          expect(think.map((block) => block.payload.text).join('')).toBe(reasoning);
        },
      ),
      { numRuns: 150 },
    );
  });
});
