import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createTracer } from '@tracewarden/core';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TracewardenCallbackHandler, tracewardenAgentMiddleware } from './index.js';
import { AIMessageChunk, dump, inspect, ScriptedModel } from './zz-review-helpers.js';

const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`,
  { name: 'weather', description: 'w', schema: z.object({ city: z.string() }) });

function turns() {
  return [
    [
      new AIMessageChunk({ content: [{ type: 'reasoning', reasoning: 'let me ' }] as never }),
      new AIMessageChunk({ content: [{ type: 'reasoning', reasoning: 'think' }] as never }),
      new AIMessageChunk({ content: '', tool_call_chunks: [{ index: 0, id: 'c1', name: 'weather', args: '{"city":' }] }),
      new AIMessageChunk({ content: '', tool_call_chunks: [{ index: 0, args: '"Paris"}' }], response_metadata: { finish_reason: 'tool_calls' } }),
    ],
    [
      new AIMessageChunk({ content: 'It is ', additional_kwargs: { reasoning_content: 'ok ' } }),
      new AIMessageChunk({ content: 'sunny.', additional_kwargs: { reasoning_content: 'done' }, usage_metadata: { input_tokens: 5, output_tokens: 3, total_tokens: 8 }, response_metadata: { finish_reason: 'stop' } }),
    ],
  ];
}

function compact(r: ReturnType<typeof inspect>) {
  return { errors: r.errors, orphans: r.orphans, msgs: r.messages.map((m) => `${m.role}:${JSON.stringify(m.content)} thinks=${JSON.stringify(m.thinks)} calls=${JSON.stringify(m.tool_calls.map((c) => [c.call_id, c.name, c.arguments, c.results.map((x) => x.output)]))}`) };
}

describe('review: streaming', () => {
  for (const mode of ['handler', 'middleware'] as const) {
    for (const streamMode of ['values', 'messages', 'updates'] as const) {
      it(`agent.stream ${streamMode} via ${mode}`, async () => {
        const tracer = createTracer();
        const agent = createAgent({ model: new ScriptedModel(turns()) as never, tools: [weather],
          middleware: mode === 'middleware' ? [tracewardenAgentMiddleware({ tracer, pricing: false })] : [] });
        const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
        const cfg = { streamMode, ...(mode === 'handler' ? { callbacks: [handler] } : {}) };
        let n = 0;
        for await (const _ of await agent.stream({ messages: [new HumanMessage('hi')] }, cfg as never)) n++;
        const r = compact(inspect(tracer));
        dump({ mode, streamMode, n, ...r });
        expect(r.errors).toEqual([]);
        expect(r.orphans).toBe(0);
      });
    }
    it(`agent.streamEvents v2 via ${mode}`, async () => {
      const tracer = createTracer();
      const agent = createAgent({ model: new ScriptedModel(turns()) as never, tools: [weather],
        middleware: mode === 'middleware' ? [tracewardenAgentMiddleware({ tracer, pricing: false })] : [] });
      const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
      const cfg = { version: 'v2', ...(mode === 'handler' ? { callbacks: [handler] } : {}) };
      const kinds = new Set<string>();
      for await (const e of agent.streamEvents({ messages: [new HumanMessage('hi')] }, cfg as never)) kinds.add((e as { event: string }).event);
      const r = compact(inspect(tracer));
      dump({ mode, ev: [...kinds], ...r });
      expect(r.errors).toEqual([]);
      expect(r.orphans).toBe(0);
    });
  }
  it('model.stream direct with handler (reasoning + tool chunks)', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const model = new ScriptedModel(turns());
    for await (const _ of await model.stream([new HumanMessage('hi')], { callbacks: [handler] }));
    const r = compact(inspect(tracer));
    dump(r);
    const resp = tracer.blocks().find((b) => b.sub_type === 'MESSAGE' && b.metadata.status !== undefined);
    dump(resp?.metadata);
    expect(r.orphans).toBe(0);
  });
  it('model.streamEvents direct with handler', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const model = new ScriptedModel(turns());
    for await (const _ of model.streamEvents([new HumanMessage('hi')], { version: 'v2', callbacks: [handler] }));
    const r = compact(inspect(tracer));
    dump(r);
    expect(r.orphans).toBe(0);
  });
});
