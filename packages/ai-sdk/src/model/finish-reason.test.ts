import { createTracer, type Tracer } from '@tracewarden/core';
import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { generated, streamParts } from '../__fixtures__/mock-model.js';
import { tracewardenMiddleware } from '../middleware/tracewarden-middleware.js';

/** A model that stops for `finishReason` (the AI SDK's `{ unified, raw }`), generated or streamed. */
function stoppingModel(finishReason: { unified: string; raw: string | undefined }) {
  const step = { text: 'I cannot help with that.' };
  const parts = streamParts(step).map((part) =>
    part.type === 'finish' ? { ...part, finishReason } : part,
  );
  return new MockLanguageModelV4({
    doGenerate: { ...generated(step), finishReason } as never,
    doStream: { stream: simulateReadableStream({ chunks: parts as never }) },
  });
}

function answerOf(tracer: Tracer) {
  return tracer.blocks().find((block) => block.payload.role === 'assistant')?.metadata;
}

describe("the AI SDK's finish reason, recorded", () => {
  for (const stream of [false, true])
    it(`is recorded in one vocabulary, the provider's own value beside it${stream ? ' (streamText)' : ''}`, async () => {
      for (const [reason, expected] of [
        [
          { unified: 'content-filter', raw: 'SAFETY' },
          { finish_reason: 'content_filter', provider_finish_reason: 'SAFETY' },
        ],
        [
          { unified: 'length', raw: 'max_tokens' },
          { finish_reason: 'length', provider_finish_reason: 'max_tokens' },
        ],
        // a provider that gives no raw value: the AI SDK's is all there is
        [
          { unified: 'other', raw: undefined },
          { finish_reason: 'other', provider_finish_reason: 'other' },
        ],
      ] as const) {
        const tracer = createTracer();
        const model = wrapLanguageModel({
          model: stoppingModel(reason),
          middleware: tracewardenMiddleware({ tracer, pricing: false }),
        });
        if (stream) await streamText({ model, prompt: 'go' }).consumeStream();
        else await generateText({ model, prompt: 'go' });
        expect(answerOf(tracer)).toMatchObject(expected);
      }
    });
});
