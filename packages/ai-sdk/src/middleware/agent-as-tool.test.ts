import { createTracer, type Tracer } from '@tracewarden/core';
import { generateText, isStepCount, type LanguageModel, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { concurrentCall0Runs, slowWeather } from '../__fixtures__/concurrent-call-0.js';
import { scriptedModel } from '../__fixtures__/mock-model.js';
import { guardTools, tracewardenMiddleware, tracewardenTelemetry } from '../index.js';

// An agent as a tool: a tool runs its own generateText, recording into the same trace, and both
// models number calls per answer (`call_0`) or give none (`""`). The inner call is a TOOL_CALL
// of its own, and each output lands under the call that produced it.

type How = 'middleware' | 'middleware + guardTools' | 'telemetry';

async function agentAsTool(id: string, how: How): Promise<Tracer> {
  const tracer = createTracer();
  const wrap = (model: LanguageModel) =>
    how === 'telemetry'
      ? model
      : wrapLanguageModel({
          model: model as never,
          middleware: tracewardenMiddleware({ tracer }),
        });
  const telemetry =
    how === 'telemetry' ? { telemetry: { integrations: [tracewardenTelemetry({ tracer })] } } : {};
  const guarded = <T extends Record<string, unknown>>(tools: T): T =>
    how === 'middleware + guardTools' ? (guardTools(tools as never, { tracer }) as T) : tools;
  const innerTools = guarded({
    search: tool({ inputSchema: z.object({ q: z.string() }), execute: async () => 'search hits' }),
  });
  const outerTools = guarded({
    research: tool({
      inputSchema: z.object({ topic: z.string() }),
      execute: async () => {
        const inner = await generateText({
          model: wrap(
            scriptedModel([
              { calls: [{ id, name: 'search', input: { q: 'x' } }] },
              { text: 'research: 42' },
            ]),
          ),
          prompt: 'research t',
          tools: innerTools,
          stopWhen: isStepCount(3),
          ...telemetry,
        });
        return inner.text;
      },
    }),
  });
  const result = await generateText({
    model: wrap(
      scriptedModel([
        { calls: [{ id, name: 'research', input: { topic: 't' } }] },
        { text: 'answer 42' },
      ]),
    ),
    prompt: 'question',
    tools: outerTools,
    stopWhen: isStepCount(3),
    ...telemetry,
  });
  expect(result.text).toBe('answer 42');
  return tracer;
}

function calls(tracer: Tracer) {
  const stitched = tracer.stitched();
  expect(stitched.orphans).toEqual({ tool_calls: [], tool_results: [] });
  return stitched.messages
    .flatMap((message) => message.tool_calls)
    .map((call) => ({
      name: call.block.payload.name,
      id: call.block.payload.call_id,
      outputs: call.results.map((result) => result.payload.output),
    }));
}

describe('an agent run inside a tool (agent-as-tool), sharing the trace', () => {
  for (const how of ['middleware', 'middleware + guardTools', 'telemetry'] as const) {
    it(`${how}: an inner call_0 is a call of its own, each output under its call`, async () => {
      expect(calls(await agentAsTool('call_0', how))).toEqual([
        { name: 'research', id: 'call_0', outputs: ['research: 42'] },
        { name: 'search', id: 'call_0_2', outputs: ['search hits'] },
      ]);
    });

    it(`${how}: "" ids, each output under its call`, async () => {
      const recorded = calls(await agentAsTool('', how));
      expect(recorded.map(({ name, outputs }) => ({ name, outputs }))).toEqual([
        { name: 'research', outputs: ['research: 42'] },
        { name: 'search', outputs: ['search hits'] },
      ]);
      expect(new Set(recorded.map((call) => call.id)).size).toBe(2);
    });
  }
});

describe('two conversations at once in one trace, both numbering calls call_0', () => {
  it('each guarded tool result lands under its own conversation’s call (told apart by arguments)', async () => {
    const tracer = createTracer();
    // the first conversation's tool ends first, while the second's call (the latest) waits too
    const tools = guardTools({ weather: slowWeather((city) => `weather in ${city}`) }, { tracer });
    await concurrentCall0Runs(tracewardenMiddleware({ tracer }), tools);
    const blocks = tracer.blocks();
    const calls = blocks.filter((block) => block.sub_type === 'TOOL_CALL');
    const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(calls).toHaveLength(2);
    expect(results).toHaveLength(2);
    for (const result of results) {
      const call = calls.find((block) => block.id === result.parent_block_id);
      const args = call?.payload.arguments;
      const city = (typeof args === 'string' ? JSON.parse(args) : args)?.city;
      expect(result.payload.output).toBe(`weather in ${city}`);
    }
  });
});
