import { createTracer } from '@tracewarden/core';
import { comparableTrace } from '@tracewarden/core/testing';
import { generateText, isStepCount, tool, wrapLanguageModel } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../__fixtures__/mock-model.js';
import { tracewardenMiddleware } from '../index.js';

it('a system prompt that changes every step (prepareStep) is recorded at each change; the history is not recorded again', async () => {
  const tracer = createTracer();
  const result = await generateText({
    model: wrapLanguageModel({
      model: scriptedModel([
        { calls: [{ id: 'c1', name: 'get_time', input: {} }] },
        { calls: [{ id: 'c2', name: 'get_time', input: {} }] },
        { text: 'It is late.' },
      ]),
      middleware: tracewardenMiddleware({ tracer, pricing: false }),
    }),
    tools: {
      get_time: tool({ inputSchema: z.object({}), execute: async () => '23:59' }),
    },
    prompt: 'what time is it?',
    stopWhen: isStepCount(3),
    prepareStep: ({ stepNumber }) => ({ system: `You tell the time. Step ${stepNumber}.` }),
  });
  expect(result.text).toBe('It is late.');
  const lines = tracer
    .blocks()
    .map((block) =>
      block.sub_type === 'MESSAGE'
        ? `${block.payload.role}: ${block.payload.content}`
        : `${block.sub_type} ${block.payload.call_id}`,
    );
  expect(lines).toEqual([
    'system: You tell the time. Step 0.',
    'user: what time is it?',
    'assistant: null',
    'TOOL_CALL c1',
    'system: You tell the time. Step 1.',
    'TOOL_RESULT c1',
    'assistant: null',
    'TOOL_CALL c2',
    'system: You tell the time. Step 2.',
    'TOOL_RESULT c2',
    'assistant: It is late.',
  ]);
  expect(comparableTrace(tracer.stitched()).orphans).toBe(0);
});
