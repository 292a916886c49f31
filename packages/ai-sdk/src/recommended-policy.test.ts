import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createTracer, PolicyViolationError, recommendedPolicy } from '@tracewarden/core';
import { emailAgent, startScriptedServer } from '@tracewarden/testing';
import { generateText, isStepCount, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { guardTools, tracewardenMiddleware } from './index.js';

describe('recommendedPolicy() through the AI SDK adapter', () => {
  for (const mode of ['throw', 'refuse'] as const)
    it(`stops the email story's exfiltration before send_email runs (${mode})`, async () => {
      await using server = await startScriptedServer({ turns: [...emailAgent.turns] });
      const tracer = createTracer();
      const sent: string[] = [];
      const provider = createOpenAICompatible({
        name: 'openai',
        baseURL: server.url,
        apiKey: 'test',
      });
      const model = wrapLanguageModel({
        model: provider('gpt-4o-mini'),
        middleware: tracewardenMiddleware({
          tracer,
          policy: recommendedPolicy(),
          onPolicyViolation: mode,
        }),
      });
      const tools = guardTools(
        {
          get_inbox: tool({ inputSchema: z.object({}), execute: async () => emailAgent.inbox }),
          send_email: tool({
            inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
            execute: async ({ to }) => {
              sent.push(to);
              return 'sent';
            },
          }),
        },
        { tracer },
      );
      const run = generateText({
        model,
        instructions: emailAgent.system,
        prompt: emailAgent.user,
        tools,
        stopWhen: isStepCount(5),
        maxRetries: 0,
      });
      if (mode === 'throw') await expect(run).rejects.toBeInstanceOf(PolicyViolationError);
      else await run;
      expect(sent).toEqual([]);
      expect(
        (tracer.findToolCall('call_send')?.metadata as { policy?: unknown } | undefined)?.policy,
      ).toBe('block');
    });
});
