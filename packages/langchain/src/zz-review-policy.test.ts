import { HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createTracer, parsePolicy } from '@tracewarden/core';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { guardTools, TracewardenCallbackHandler, tracewardenAgentMiddleware } from './index.js';
import { ai, dump, inspect } from './zz-review-helpers.js';

const ran: string[] = [];
const weather = tool(async ({ city }: { city: string }) => { ran.push(`w:${city}`); return `Sunny in ${city}`; },
  { name: 'weather', description: 'w', schema: z.object({ city: z.string() }) });
const send = tool(async ({ to }: { to: string }) => { ran.push(`send:${to}`); return `sent ${to}`; },
  { name: 'send_email', description: 's', schema: z.object({ to: z.string() }) });
const policy = parsePolicy('raise "no mail" if:\n    (call: ToolCall)\n    call is tool:send_email');

function model() {
  return fakeModel()
    .respond(ai({ content: '', tool_calls: [
      { name: 'weather', args: { city: 'Paris' }, id: 'c1', type: 'tool_call' },
      { name: 'send_email', args: { to: 'x@evil.com' }, id: 'c2', type: 'tool_call' },
    ] }))
    .respond(ai({ content: 'ok' }));
}
function compact(r: ReturnType<typeof inspect>) {
  return { errors: r.errors, orphans: r.orphans, msgs: r.messages.map((m) => `${m.role}:${JSON.stringify(m.content)} calls=${JSON.stringify(m.tool_calls.map((c) => [c.call_id, c.name, c.blocked, c.results.map((x) => [x.output, x.status, x.refused])]))}`) };
}

describe('review: policy', () => {
  for (const attach of ['handler', 'middleware'] as const)
    for (const mode of ['throw', 'refuse'] as const)
      for (const guarded of [false, true])
        it(`${attach} ${mode} guarded=${guarded}`, async () => {
          ran.length = 0;
          const tracer = createTracer();
          const opts = { tracer, policy, onPolicyViolation: mode, pricing: false } as const;
          const tools = guarded ? guardTools([weather, send]) : [weather, send];
          const agent = createAgent({ model: model(), tools, middleware: attach === 'middleware' ? [tracewardenAgentMiddleware(opts)] : [] });
          const cfg = attach === 'handler' ? { callbacks: [new TracewardenCallbackHandler(opts)] } : {};
          let err: unknown;
          let res: any;
          try { res = await agent.invoke({ messages: [new HumanMessage('hi')] }, cfg); } catch (e) { err = e; }
          const call = tracer.blocks().find((b) => b.sub_type === 'TOOL_CALL' && (b.payload as any).name === 'send_email');
          dump({ attach, mode, guarded, ran, err: err && String(err).slice(0, 150), errName: (err as any)?.name, cause: (err as any)?.cause?.name,
            last: res?.messages?.map((m: any) => [m.type, String(m.content).slice(0, 90)]),
            policyMeta: call?.metadata.policy, violations: (call?.metadata as any)?.violations?.length, ...compact(inspect(tracer)) });
          expect(ran).not.toContain('send:x@evil.com');
          expect(call?.metadata.policy).toBe('block');
          expect(inspect(tracer).orphans).toBe(0);
          expect(inspect(tracer).errors).toEqual([]);
        });
});
