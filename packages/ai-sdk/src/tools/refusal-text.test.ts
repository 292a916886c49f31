import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import { createTracer, parsePolicy, type Tracer } from '@tracewarden/core';
import {
  generateText,
  isStepCount,
  type Telemetry,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../__fixtures__/mock-model.js';
import { guardTools, tracewardenMiddleware, tracewardenTelemetry } from '../index.js';

const policy = parsePolicy(`
raise "no deleting" if:
    (call: ToolCall)
    call is tool:delete_all
`);
const refusalMessage = () => 'Not allowed here. Ask the user first.';

const tools = () => ({
  delete_all: tool({
    inputSchema: z.object({}),
    execute: async (): Promise<string> => {
      throw new Error('the blocked tool ran');
    },
  }),
});

/** What the model read for call `c1` in its last prompt (the AI SDK's `error-text`). */
function readByModel(model: ReturnType<typeof scriptedModel>): unknown {
  const prompt = model.doGenerateCalls.at(-1)?.prompt ?? [];
  for (const message of prompt)
    if (message.role === 'tool')
      for (const part of message.content)
        if (part.type === 'tool-result' && part.toolCallId === 'c1') return part.output;
  return undefined;
}

const recordedResult = (tracer: Tracer) =>
  tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT')?.payload.output;

describe('a refused call: the model reads the refusal itself, and the trace records what it read', () => {
  const setups: Record<
    string,
    (tracer: Tracer) => {
      middleware?: LanguageModelV4Middleware;
      tools: ToolSet;
      telemetry?: { integrations: Telemetry[] };
    }
  > = {
    'middleware + guardTools': (tracer: Tracer) => ({
      middleware: tracewardenMiddleware({
        tracer,
        policy,
        onPolicyViolation: 'refuse',
        refusalMessage,
        pricing: false,
      }),
      tools: guardTools(tools(), { tracer }),
    }),
    'guardTools with its own policy': (tracer: Tracer) => ({
      middleware: tracewardenMiddleware({ tracer, pricing: false }),
      tools: guardTools(tools(), { tracer, policy }),
    }),
    'telemetry integration': (tracer: Tracer) => ({
      telemetry: {
        integrations: [
          tracewardenTelemetry({
            tracer,
            policy,
            onPolicyViolation: 'refuse',
            refusalMessage,
            pricing: false,
          }),
        ],
      },
      tools: tools(),
    }),
  };
  for (const [name, setup] of Object.entries(setups))
    it(name, async () => {
      const tracer = createTracer();
      const model = scriptedModel([
        { calls: [{ id: 'c1', name: 'delete_all', input: {} }] },
        { text: 'I did not delete anything.' },
      ]);
      const { middleware, ...rest } = setup(tracer);
      const result = await generateText({
        model: middleware === undefined ? model : wrapLanguageModel({ model, middleware }),
        prompt: 'clean up',
        stopWhen: isStepCount(3),
        ...rest,
      });
      expect(result.text).toBe('I did not delete anything.');
      const read = readByModel(model) as { type: string; value: string };
      expect(read.type).toBe('error-text');
      // the refusal alone, not "PolicyViolationError: ..."
      expect(read.value).not.toMatch(/^PolicyViolationError/);
      expect(read.value).toMatch(
        name === 'guardTools with its own policy'
          ? /^Tool call delete_all was blocked by policy: no deleting/
          : /^Not allowed here\. Ask the user first\.$/,
      );
      expect(recordedResult(tracer)).toBe(read.value);
    });
});
