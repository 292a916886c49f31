import { guardTools, tracewardenMiddleware, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer, parsePolicy, withTrace } from '@tracewarden/core';
import { emailAgent } from '@tracewarden/testing';
import { generateText, streamText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';
import { check, server, providerFor, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const policy = parsePolicy(emailAgent.policy);
const mkTools = () => ({
  get_inbox: tool({ inputSchema: z.object({}), execute: async () => emailAgent.inbox }),
  send_email: tool({ inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }), execute: async () => ({ sent: true }) }),
});
type Cfg = { label: string; mw?: (t: any) => any; tel?: (t: any) => any; withTrace?: boolean; guard?: boolean };
const cfgs: Cfg[] = [
  { label: 'mw(tracer T) + tel(tracer T)', mw: (t) => ({ tracer: t }), tel: (t) => ({ tracer: t }) },
  { label: 'mw() + tel(tracer T)', mw: () => ({}), tel: (t) => ({ tracer: t }) },
  { label: 'mw(T, policy refuse) + tel(T)', mw: (t) => ({ tracer: t, policy, onPolicyViolation: 'refuse' }), tel: (t) => ({ tracer: t }) },
  { label: 'mw(T, policy refuse) + tel(T, policy refuse)', mw: (t) => ({ tracer: t, policy, onPolicyViolation: 'refuse' }), tel: (t) => ({ tracer: t, policy, onPolicyViolation: 'refuse' }) },
  { label: 'withTrace(T){ mw() + tel() }', mw: () => ({}), tel: () => ({}), withTrace: true },
  { label: 'withTrace(T){ mw(policy refuse) + tel() }', mw: () => ({ policy, onPolicyViolation: 'refuse' }), tel: () => ({}), withTrace: true },
  { label: 'withTrace(T){ mw(policy refuse) } + guardTools()', mw: () => ({ policy, onPolicyViolation: 'refuse' }), withTrace: true, guard: true },
  { label: 'mw(T, policy refuse) + tel(T) + guardTools(T)', mw: (t) => ({ tracer: t, policy, onPolicyViolation: 'refuse' }), tel: (t) => ({ tracer: t }), guard: true },
  { label: 'mw(T, guards budget) + tel(T)', mw: (t) => ({ tracer: t, guards: { budget: { maxCostPerSession: 1 } } }), tel: (t) => ({ tracer: t }) },
];
for (const cfg of cfgs) for (const stream of [false, true]) {
  const srv = await server([...emailAgent.turns], { chunkSize: 9 });
  const tracer = createTracer();
  const base = providerFor(srv.url)('gpt-4o-mini');
  const model = cfg.mw ? wrapLanguageModel({ model: base, middleware: tracewardenMiddleware(cfg.mw(tracer)) }) : base;
  const tools = cfg.guard ? guardTools(mkTools(), cfg.withTrace ? {} : { tracer }) : mkTools();
  const telemetry = cfg.tel ? { integrations: [tracewardenTelemetry(cfg.tel(tracer))] } : undefined;
  let out = '';
  const run = async () => {
    if (!stream) { const r = await generateText({ model, tools, system: emailAgent.system, prompt: emailAgent.user, stopWhen: stepCountIs(5), telemetry }); return `text=${r.text.slice(0, 30)}`; }
    const r = streamText({ model, tools, system: emailAgent.system, prompt: emailAgent.user, stopWhen: stepCountIs(5), telemetry }); for await (const _ of r.fullStream) {} return `text=${(await r.text).slice(0, 30)}`;
  };
  try { out = cfg.withTrace ? await withTrace(tracer, run) : await run(); } catch (e: any) { out = `THREW ${e?.name} ${e?.message?.slice(0, 120)}`; }
  const { blocks } = check(`${cfg.label} stream=${stream}`, tracer, { quiet: true });
  const assistant = blocks.filter((b: any) => b.sub_type === 'MESSAGE' && b.payload.role === 'assistant').length;
  const calls = blocks.filter((b: any) => b.sub_type === 'TOOL_CALL').length;
  const results = blocks.filter((b: any) => b.sub_type === 'TOOL_RESULT').length;
  const blocked = blocks.filter((b: any) => b.sub_type === 'TOOL_CALL' && b.metadata.policy === 'block').length;
  const cost = blocks.reduce((a: number, b: any) => a + (b.metadata?.cost?.cost_usd ?? 0), 0);
  console.log(`   ${out}; assistant msgs=${assistant} (expect 3) calls=${calls} (2) results=${results} (2) blocked=${blocked} cost=${cost.toFixed(6)} requests=${srv.requests.length}`);
  if (assistant !== 3 || calls !== 2 || results !== 2) console.log((await import('./lib.ts')).summary(blocks));
  await srv.close();
}
console.log('warnings', warnings);
