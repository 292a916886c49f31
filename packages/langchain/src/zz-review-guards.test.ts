import { HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createTracer } from '@tracewarden/core';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { guardTool, guardTools, TracewardenCallbackHandler, tracewardenAgentMiddleware } from './index.js';
import { ai, dump, inspect } from './zz-review-helpers.js';

function compact(r: ReturnType<typeof inspect>) {
  return { errors: r.errors, orphans: r.orphans, msgs: r.messages.map((m) => `${m.role}:${JSON.stringify(m.content)} calls=${JSON.stringify(m.tool_calls.map((c) => [c.call_id, c.name, c.blocked, c.results.map((x) => [x.output, x.status, x.refused])]))}`) };
}
function flaky() {
  let n = 0;
  return tool(async ({ q }: { q: string }) => { n++; if (n === 1) throw new Error('transient'); return `ok ${q} after ${n}`; },
    { name: 'flaky', description: 'f', schema: z.object({ q: z.string() }) });
}
const slow = tool(async (_: { q: string }, config) => { await new Promise((r, j) => { const t = setTimeout(r, 2000); config?.signal?.addEventListener('abort', () => { clearTimeout(t); j(new Error('aborted slow')); }); }); return 'slow done'; },
  { name: 'slow', description: 's', schema: z.object({ q: z.string() }) });
let cheapRuns = 0;
const cheap = tool(async ({ q }: { q: string }) => { cheapRuns++; return `cheap ${q}`; },
  { name: 'cheap', description: 'c', schema: z.object({ q: z.string() }) });

function model(name: string, n: number) {
  const calls = Array.from({ length: n }, (_, i) => ({ name, args: { q: `a${i}` }, id: `${name}_${i}`, type: 'tool_call' }));
  return fakeModel().respond(ai({ content: '', tool_calls: calls })).respond(ai({ content: 'fin' }));
}

describe('review: tool guards in agents', () => {
  for (const attach of ['handler', 'middleware'] as const) {
    it(`${attach}: retry`, async () => {
      const tracer = createTracer();
      const tools = guardTools([flaky()], { retry: { maxRetries: 2, initialDelay: 0.001 } });
      const agent = createAgent({ model: model('flaky', 1), tools, middleware: attach === 'middleware' ? [tracewardenAgentMiddleware({ tracer, pricing: false })] : [] });
      const res = await agent.invoke({ messages: [new HumanMessage('go')] }, attach === 'handler' ? { callbacks: [new TracewardenCallbackHandler({ tracer, pricing: false })] } : {});
      const result = tracer.blocks().find((b) => b.sub_type === 'TOOL_RESULT');
      dump({ attach, msgs: res.messages.map((m: any) => [m.type, m.content]), ...compact(inspect(tracer)), resultMeta: result?.metadata });
      expect(inspect(tracer).orphans).toBe(0);
    });
    it(`${attach}: timeout`, async () => {
      const tracer = createTracer();
      const tools = guardTools([slow], { timeout: { timeoutSeconds: 0.05 } });
      const agent = createAgent({ model: model('slow', 1), tools, middleware: attach === 'middleware' ? [tracewardenAgentMiddleware({ tracer, pricing: false })] : [] });
      const t0 = Date.now();
      const res = await agent.invoke({ messages: [new HumanMessage('go')] }, attach === 'handler' ? { callbacks: [new TracewardenCallbackHandler({ tracer, pricing: false })] } : {});
      dump({ attach, ms: Date.now() - t0, msgs: res.messages.map((m: any) => [m.type, m.content]), ...compact(inspect(tracer)) });
      expect(inspect(tracer).orphans).toBe(0);
      expect(Date.now() - t0).toBeLessThan(1500);
    });
    it(`${attach}: budget maxCallsPerSession 2 with 3 parallel`, async () => {
      cheapRuns = 0;
      const tracer = createTracer();
      const tools = guardTools([cheap], { budget: { maxCallsPerSession: 2 } });
      const agent = createAgent({ model: model('cheap', 3), tools, middleware: attach === 'middleware' ? [tracewardenAgentMiddleware({ tracer, pricing: false })] : [] });
      const res = await agent.invoke({ messages: [new HumanMessage('go')] }, attach === 'handler' ? { callbacks: [new TracewardenCallbackHandler({ tracer, pricing: false })] } : {});
      dump({ attach, cheapRuns, msgs: res.messages.map((m: any) => [m.type, m.content]), ...compact(inspect(tracer)) });
      expect(cheapRuns).toBe(2);
      expect(inspect(tracer).orphans).toBe(0);
    });
    it(`${attach}: rateLimit burst 1`, async () => {
      cheapRuns = 0;
      const tracer = createTracer();
      const tools = guardTools([cheap], { rateLimit: { callsPerMinute: 1, burst: 1, sharedKey: `rl-${attach}` } });
      const agent = createAgent({ model: model('cheap', 2), tools, middleware: attach === 'middleware' ? [tracewardenAgentMiddleware({ tracer, pricing: false })] : [] });
      const res = await agent.invoke({ messages: [new HumanMessage('go')] }, attach === 'handler' ? { callbacks: [new TracewardenCallbackHandler({ tracer, pricing: false })] } : {});
      dump({ attach, cheapRuns, msgs: res.messages.map((m: any) => [m.type, m.content]), ...compact(inspect(tracer)) });
      expect(cheapRuns).toBe(1);
      expect(inspect(tracer).orphans).toBe(0);
    });
  }
});
