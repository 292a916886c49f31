import { guardTools, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer, parsePolicy } from '@tracewarden/core';
import { generateText, streamText, stepCountIs, tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, providerFor, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const policy = parsePolicy(`
raise "no mail to attacker@evil.com" if:
    (call: ToolCall)
    call is tool:send_email
    call.function.arguments.to == "attacker@evil.com"
`);
for (const how of ['middleware+guardTools', 'middleware plain tools', 'telemetry'] as const)
for (const approved of [true, false]) for (const stream of [false, true]) {
  const srv = await server([
    { toolCalls: [{ id: 'call_a', name: 'send_email', arguments: { to: 'bob@acme.example' } }] },
    { text: 'done' },
  ], { chunkSize: 6 });
  const tracer = createTracer();
  const log: string[] = [];
  const raw = { send_email: tool({ inputSchema: z.object({ to: z.string() }), needsApproval: true, execute: async ({ to }) => { log.push(to); return { ok: true, to }; } }) };
  const tools = how === 'middleware+guardTools' ? guardTools(raw, { tracer }) : raw;
  const model = how === 'telemetry' ? providerFor(srv.url)('gpt-4o-mini') : wrapped(srv.url, { tracer, policy, onPolicyViolation: 'refuse' });
  const telemetry = how === 'telemetry' ? { integrations: [tracewardenTelemetry({ tracer, policy, onPolicyViolation: 'refuse' })] } : undefined;
  const messages: ModelMessage[] = [{ role: 'user', content: 'mail bob' }];
  const go = async (msgs: ModelMessage[]) => {
    if (!stream) { const r = await generateText({ model, tools, messages: msgs, stopWhen: stepCountIs(4), telemetry }); return { resp: r.responseMessages, content: r.content, text: r.text }; }
    const r = streamText({ model, tools, messages: msgs, stopWhen: stepCountIs(4), telemetry });
    for await (const _ of r.fullStream) {}
    return { resp: (await r.response).messages, content: await r.content, text: await r.text };
  };
  let out = '';
  try {
    const r1 = await go(messages);
    const req = r1.content.find((c: any) => c.type === 'tool-approval-request') as any;
    out += `step1: ${r1.content.map((c: any) => c.type).join(',')} `;
    messages.push(...r1.resp, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: req.approvalId, approved, ...(approved ? {} : { reason: 'user said no' }) }] } as any);
    const r2 = await go(messages);
    out += `step2: ${r2.content.map((c: any) => c.type).join(',')} text=${r2.text} ran=${JSON.stringify(log)}`;
  } catch (e: any) { out += ` THREW ${e?.name} ${e?.message?.slice(0, 200)}`; }
  console.log(`\n##### ${how} approved=${approved} stream=${stream}: ${out}`);
  check(`${how}/${approved}/${stream}`, tracer);
  await srv.close();
}
console.log('warnings', warnings);
