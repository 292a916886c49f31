import { createTracer, guard, validateBlocks, withTrace } from '@tracewarden/core';
import { generateText, isStepCount, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../__fixtures__/mock-model.js';
import { tracewardenMiddleware } from './tracewarden-middleware.js';

describe("a core guard() inside a tool's execute, with the middleware alone", () => {
  // The SDK runs tools out of the middleware's sight (README, "Guards inside your own tools"):
  // the tool hands the guard the model's call id, which `execute` receives
  it("records under the model's call, once, given the toolCallId", async () => {
    const tracer = createTracer();
    const inbox = guard(async (folder: string) => [`mail in ${folder}`], { name: 'inbox' });
    await withTrace(tracer, () =>
      generateText({
        model: wrapLanguageModel({
          model: scriptedModel([
            { calls: [{ id: 'call_1', name: 'get_inbox', input: { folder: 'in' } }] },
            { text: 'ok' },
          ]),
          middleware: tracewardenMiddleware({ pricing: false }),
        }),
        prompt: 'go',
        tools: {
          get_inbox: tool({
            inputSchema: z.object({ folder: z.string() }),
            execute: ({ folder }, { toolCallId }) => inbox.invoke({ callId: toolCallId }, folder),
          }),
        },
        stopWhen: isStepCount(3),
      }),
    );
    const blocks = tracer.blocks();
    expect(validateBlocks(blocks).errors).toEqual([]);
    expect(blocks.filter((block) => block.sub_type === 'TOOL_CALL')).toHaveLength(1);
    const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results).toHaveLength(1);
    expect(results[0]?.payload).toMatchObject({ call_id: 'call_1', output: ['mail in in'] });
    expect(results[0]?.metadata).toMatchObject({ guard: { attempts: [{ attempt: 1 }] } });
  });
});
