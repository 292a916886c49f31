import { createTracer, parsePolicy } from '@tracewarden/core';
import { generateText, isStepCount, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../__fixtures__/mock-model.js';
import { guardTools, tracewardenMiddleware } from '../index.js';

const policy = parsePolicy(`
raise "no deleting" if:
    (call: ToolCall)
    call is tool:delete_all
`);

describe('a call the policy refused, executed again', () => {
  it('is refused again: its verdict was taken by the first run, the trace keeps it blocked', async () => {
    const tracer = createTracer();
    let ran = 0;
    const tools = guardTools(
      {
        delete_all: tool({
          inputSchema: z.object({}),
          execute: async () => {
            ran++;
            return 'deleted';
          },
        }),
      },
      { tracer },
    );
    const model = scriptedModel([
      { calls: [{ id: 'c1', name: 'delete_all', input: {} }] },
      { text: 'I did not delete anything.' },
    ]);
    await generateText({
      model: wrapLanguageModel({
        model,
        middleware: tracewardenMiddleware({
          tracer,
          policy,
          onPolicyViolation: 'refuse',
          pricing: false,
        }),
      }),
      prompt: 'clean up',
      stopWhen: isStepCount(3),
      tools,
    });
    expect(ran).toBe(0);
    // the same call executed once more (a retry wrapper, an approval replayed)
    const again = tools.delete_all.execute?.({}, {
      toolCallId: 'c1',
      messages: [],
      context: undefined,
    } as never);
    await expect(Promise.resolve(again)).rejects.toThrow(/blocked by policy: no deleting/);
    expect(ran).toBe(0);
  });
});
