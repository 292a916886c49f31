import { HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createTracer, TracewardenError } from '@tracewarden/core';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { guardTool, guardTools, TracewardenCallbackHandler, tracewardenAgentMiddleware } from './index.js';
import { ai, AIMessageChunk, dump, inspect, ScriptedModel } from './zz-review-helpers.js';

function compact(r: ReturnType<typeof inspect>) {
  return { errors: r.errors, orphans: r.orphans, msgs: r.messages.map((m) => `${m.role}:${JSON.stringify(m.content)} thinks=${JSON.stringify(m.thinks)} calls=${JSON.stringify(m.tool_calls.map((c) => [c.call_id, c.name, c.blocked, c.results.map((x) => [x.output, x.status, x.refused])]))}`) };
}
const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`,
  { name: 'weather', description: 'w', schema: z.object({ city: z.string() }) });

function codeOf(fn: () => unknown) {
  try { fn(); return 'no throw'; } catch (e) { return `${(e as any).name}/${(e as any).code}: ${String((e as Error).message).slice(0, 140)}`; }
}

describe('review: options', () => {
  it('typos', () => {
    const out = {
      handlerTop: codeOf(() => new TracewardenCallbackHandler({ tracr: createTracer() } as never)),
      handlerPolicyMode: codeOf(() => new TracewardenCallbackHandler({ onPolicyViolation: 'refuze' } as never)),
      handlerGuardsNested: codeOf(() => new TracewardenCallbackHandler({ guards: { budgt: { maxCostPerSession: 1 } } } as never)),
      handlerGuardsDeep: codeOf(() => new TracewardenCallbackHandler({ guards: { budget: { maxCostPerSesion: 1 } } } as never)),
      handlerPrefer: codeOf(() => new TracewardenCallbackHandler({ preferStreaming: 'yes' } as never)),
      handlerFactory: codeOf(() => new TracewardenCallbackHandler({ tracerFactory: 1 } as never)),
      handlerTimeout: codeOf(() => new TracewardenCallbackHandler({ timeoutSeconds: -1 } as never)),
      handlerIgnore: codeOf(() => new TracewardenCallbackHandler({ raiseError: true } as never)),
      mwTop: codeOf(() => tracewardenAgentMiddleware({ onToolErorr: 'throw' } as never)),
      mwPrefer: codeOf(() => tracewardenAgentMiddleware({ preferStreaming: true } as never)),
      gtTop: codeOf(() => guardTools([weather], { retries: 2 } as never)),
      gtPerTool: codeOf(() => guardTools([weather], { tools: { weather: { timout: { timeoutSeconds: 1 } } } } as never)),
      gtUnknownTool: codeOf(() => guardTools([weather], { tools: { wether: { timeout: { timeoutSeconds: 1 } } } })),
      gtPerToolOnGuardError: codeOf(() => guardTools([weather], { tools: { weather: { onGuardError: 'throw' } } } as never)),
      gtPerToolPolicy: codeOf(() => guardTools([weather], { tools: { weather: { policy: {} } } } as never)),
      gt1: codeOf(() => guardTool(weather, { tools: { weather: {} } } as never)),
      gtName: codeOf(() => guardTool(weather, { name: 'x' } as never)),
      gtTracer: codeOf(() => guardTool(weather, { tracer: {} } as never)),
      gtOnGuardErr: codeOf(() => guardTool(weather, { onGuardError: 'msg' } as never)),
      gtNull: codeOf(() => guardTools([weather], null as never)),
      gtOptsNotObj: codeOf(() => guardTools([weather], 'x' as never)),
    };
    dump(out);
  });
});

describe('review: model-call guards', () => {
  for (const attach of ['handler', 'middleware'] as const) {
    it(`${attach}: budget maxCallsPerSession 1 stops 2nd model call`, async () => {
      const tracer = createTracer();
      const opts = { tracer, pricing: false, guards: { budget: { maxCallsPerSession: 1 } } } as const;
      const model = fakeModel().respond(ai({ content: '', tool_calls: [{ name: 'weather', args: { city: 'P' }, id: 'b1', type: 'tool_call' }] })).respond(ai({ content: 'fin' }));
      const agent = createAgent({ model, tools: [weather], middleware: attach === 'middleware' ? [tracewardenAgentMiddleware(opts)] : [] });
      let err: any;
      try { await agent.invoke({ messages: [new HumanMessage('go')] }, attach === 'handler' ? { callbacks: [new TracewardenCallbackHandler(opts)] } : {}); } catch (e) { err = e; }
      dump({ attach, err: String(err).slice(0, 200), name: err?.name, causeName: err?.cause?.name, isTw: TracewardenError.isInstance(err) || TracewardenError.isInstance(err?.cause), callCount: (model as any).callCount, ...compact(inspect(tracer)) });
      expect(inspect(tracer).orphans).toBe(0);
      expect(inspect(tracer).errors).toEqual([]);
    });
    it(`${attach}: timeoutSeconds on a slow model`, async () => {
      const tracer = createTracer();
      const opts = { tracer, pricing: false, timeoutSeconds: 0.05 } as const;
      const model = new ScriptedModel([[new AIMessageChunk({ content: 'late' })]], 400);
      const agent = createAgent({ model: model as never, tools: [weather], middleware: attach === 'middleware' ? [tracewardenAgentMiddleware(opts)] : [] });
      let err: any;
      const t0 = Date.now();
      try { await agent.invoke({ messages: [new HumanMessage('go')] }, attach === 'handler' ? { callbacks: [new TracewardenCallbackHandler(opts)] } : {}); } catch (e) { err = e; }
      const resp = tracer.blocks().filter((b) => b.sub_type === 'MESSAGE' && b.metadata.status !== undefined);
      dump({ attach, ms: Date.now() - t0, err: String(err).slice(0, 200), status: resp.map((b) => b.metadata.status), ...compact(inspect(tracer)) });
      expect(err).toBeDefined();
    });
  }
});

describe('review: abort', () => {
  for (const attach of ['handler', 'middleware'] as const) {
    it(`${attach}: abort during model call`, async () => {
      const tracer = createTracer();
      const model = new ScriptedModel([[new AIMessageChunk({ content: 'late' })]], 300);
      const agent = createAgent({ model: model as never, tools: [weather], middleware: attach === 'middleware' ? [tracewardenAgentMiddleware({ tracer, pricing: false })] : [] });
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 30);
      let err: any;
      try { await agent.invoke({ messages: [new HumanMessage('go')] }, { signal: ac.signal, ...(attach === 'handler' ? { callbacks: [new TracewardenCallbackHandler({ tracer, pricing: false })] } : {}) }); } catch (e) { err = e; }
      await new Promise((r) => setTimeout(r, 400));
      const resp = tracer.blocks().filter((b) => b.sub_type === 'MESSAGE' && b.metadata.status !== undefined);
      dump({ attach, err: String(err).slice(0, 100), blocks: tracer.blocks().map((b) => [b.sub_type, b.metadata.status]), status: resp.map((b) => b.metadata.status), ...compact(inspect(tracer)) });
      expect(resp.map((b) => b.metadata.status)).toEqual(['cancelled']);
    });
    it(`${attach}: abort during tool call`, async () => {
      const tracer = createTracer();
      const slow = tool(async (_: { q: string }, config) => { await new Promise((r, j) => { const t = setTimeout(r, 300); config?.signal?.addEventListener('abort', () => { clearTimeout(t); j(new Error('aborted slow')); }); }); return 'slow done'; },
        { name: 'slow', description: 's', schema: z.object({ q: z.string() }) });
      const model = fakeModel().respond(ai({ content: '', tool_calls: [{ name: 'slow', args: { q: 'x' }, id: 's1', type: 'tool_call' }] })).respond(ai({ content: 'fin' }));
      const agent = createAgent({ model, tools: [slow], middleware: attach === 'middleware' ? [tracewardenAgentMiddleware({ tracer, pricing: false })] : [] });
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 30);
      let err: any;
      try { await agent.invoke({ messages: [new HumanMessage('go')] }, { signal: ac.signal, ...(attach === 'handler' ? { callbacks: [new TracewardenCallbackHandler({ tracer, pricing: false })] } : {}) }); } catch (e) { err = e; }
      await new Promise((r) => setTimeout(r, 400));
      const res = tracer.blocks().filter((b) => b.sub_type === 'TOOL_RESULT');
      dump({ attach, err: String(err).slice(0, 100), results: res.map((b) => [b.payload.output, b.metadata.status]), ...compact(inspect(tracer)) });
      expect(inspect(tracer).orphans).toBe(0);
    });
  }
});
