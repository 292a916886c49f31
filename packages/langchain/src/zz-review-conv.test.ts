import { HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createTracer, type Tracer } from '@tracewarden/core';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TracewardenCallbackHandler, tracewardenAgentMiddleware } from './index.js';
import { ai, dump, inspect } from './zz-review-helpers.js';

const CP = '/work/main/node_modules/.pnpm/@langchain+langgraph-checkpoint@1.2.2_@langchain+core@1.4.0_openai@7.57.0_zod@4.6.7__/node_modules/@langchain/langgraph-checkpoint/dist/index.js';

function compact(r: ReturnType<typeof inspect>) {
  return { errors: r.errors, orphans: r.orphans, msgs: r.messages.map((m) => `${m.role}:${JSON.stringify(m.content)} calls=${JSON.stringify(m.tool_calls.map((c) => [c.call_id, c.name, c.results.map((x) => x.output)]))}`) };
}
const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`,
  { name: 'weather', description: 'w', schema: z.object({ city: z.string() }) });
function model() {
  return fakeModel()
    .respond(ai({ content: '', tool_calls: [{ name: 'weather', args: { city: 'Paris' }, id: 'c1', type: 'tool_call' }] }))
    .respond(ai({ content: 'Sunny.' }))
    .respond(ai({ content: '', tool_calls: [{ name: 'weather', args: { city: 'Rome' }, id: 'c2', type: 'tool_call' }] }))
    .respond(ai({ content: 'Also sunny.' }));
}

describe('review: multi-turn', () => {
  for (const attach of ['handler', 'middleware'] as const) {
    it(`${attach}: checkpointer 2 turns, no tracer`, async () => {
      const { MemorySaver } = await import(CP);
      const mw = tracewardenAgentMiddleware({ pricing: false });
      const handler = new TracewardenCallbackHandler({ pricing: false });
      const agent = createAgent({ model: model(), tools: [weather], checkpointer: new MemorySaver(), middleware: attach === 'middleware' ? [mw] : [] });
      const cfg = { configurable: { thread_id: 't1' }, ...(attach === 'handler' ? { callbacks: [handler] } : {}) };
      await agent.invoke({ messages: [new HumanMessage('Paris?')] }, cfg);
      await agent.invoke({ messages: [new HumanMessage('Rome?')] }, cfg);
      const tracers: readonly Tracer[] = attach === 'handler' ? handler.tracers : mw.tracers;
      dump({ attach, n: tracers.length, traces: tracers.map((t) => compact(inspect(t))) });
      expect(tracers.length).toBe(1);
    });
    it(`${attach}: manual history re-send 2 turns, no tracer`, async () => {
      const mw = tracewardenAgentMiddleware({ pricing: false });
      const handler = new TracewardenCallbackHandler({ pricing: false });
      const agent = createAgent({ model: model(), tools: [weather], middleware: attach === 'middleware' ? [mw] : [] });
      const cfg = attach === 'handler' ? { callbacks: [handler] } : {};
      const r1 = await agent.invoke({ messages: [new HumanMessage('Paris?')] }, cfg);
      await agent.invoke({ messages: [...r1.messages, new HumanMessage('Rome?')] }, cfg);
      const tracers: readonly Tracer[] = attach === 'handler' ? handler.tracers : mw.tracers;
      dump({ attach, n: tracers.length, traces: tracers.map((t) => compact(inspect(t))) });
      expect(tracers.length).toBe(1);
    });
    it(`${attach}: two concurrent runs, one handler/middleware, no tracer`, async () => {
      const mw = tracewardenAgentMiddleware({ pricing: false });
      const handler = new TracewardenCallbackHandler({ pricing: false });
      const mk = (city: string, id: string) => createAgent({ model: fakeModel()
        .respond(ai({ content: '', tool_calls: [{ name: 'weather', args: { city }, id, type: 'tool_call' }] }))
        .respond(ai({ content: `done ${city}` })), tools: [weather], middleware: attach === 'middleware' ? [mw] : [] });
      const cfg = attach === 'handler' ? { callbacks: [handler] } : {};
      await Promise.all([mk('Paris', 'call_0').invoke({ messages: [new HumanMessage('P')] }, cfg), mk('Rome', 'call_0').invoke({ messages: [new HumanMessage('R')] }, cfg)]);
      const tracers: readonly Tracer[] = attach === 'handler' ? handler.tracers : mw.tracers;
      dump({ attach, n: tracers.length, traces: tracers.map((t) => compact(inspect(t))) });
      expect(tracers.length).toBe(2);
    });
  }
});
