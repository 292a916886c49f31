import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createTracer, type Tracer } from '@tracewarden/core';
import { startScriptedServer } from '@tracewarden/testing';
import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { tracewardenTelemetry } from '../index.js';

function statuses(tracer: Tracer): unknown[] {
  return tracer
    .blocks()
    .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant')
    .map((block) => block.metadata.status);
}

describe('tracewardenTelemetry: a call ended by a deadline or by its caller (over HTTP)', () => {
  const cases = {
    'AbortSignal.timeout()': { expected: 'timeout', streamed: false },
    'the AI SDK timeout option': { expected: 'timeout', streamed: false },
    'the AI SDK timeout option, streamed': { expected: 'timeout', streamed: true },
    'the caller’s AbortController': { expected: 'cancelled', streamed: false },
  } as const;
  for (const [name, { expected, streamed }] of Object.entries(cases))
    it(`${name}: recorded as ${expected}, as the middleware records it`, async () => {
      await using server = await startScriptedServer({
        turns: [{ text: 'late', fault: { type: 'slow-first-byte', delayMs: 400 } }],
      });
      const tracer = createTracer();
      const telemetry = tracewardenTelemetry({ tracer, pricing: false });
      const model = createOpenAICompatible({
        name: 'scripted',
        baseURL: server.url,
        apiKey: 'sk-test',
        includeUsage: true,
      })('gpt-4o-mini');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const ending = name.startsWith('AbortSignal')
        ? { abortSignal: AbortSignal.timeout(50) }
        : name.startsWith('the caller')
          ? { abortSignal: controller.signal }
          : { timeout: 50 };
      const settings = {
        model,
        prompt: 'hi',
        maxRetries: 0,
        ...ending,
        telemetry: { integrations: [telemetry] },
      };
      if (streamed) await streamText({ ...settings, onError: () => {} }).consumeStream();
      else await expect(generateText(settings)).rejects.toBeDefined();
      await telemetry.flush();
      expect(statuses(tracer)).toEqual([expected]);
    });
});
