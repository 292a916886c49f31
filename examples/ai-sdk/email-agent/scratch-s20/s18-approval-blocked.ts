// refuse mode: the model proposes a call the policy blocks, and the tool needs approval.
import { guardTools, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer, parsePolicy } from '@tracewarden/core';
import { emailAgent } from '@tracewarden/testing';
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, providerFor, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const policy = parsePolicy(emailAgent.policy);
for (const how of ['mw+guardTools', 'mw plain', 'telemetry'] as const) {
  const srv = await server([emailAgent.turns[0], emailAgent.turns[1], { text: 'Report after approval.' }]);
  const tracer = createTracer();
  const sent: string[] = [];
  const raw = {
    get_inbox: tool({ inputSchema: z.object({}), execute: async () => emailAgent.inbox }),
    send_email: tool({ inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }), needsApproval: true, execute: async ({ to }) => { sent.push(to); return 'sent'; } }),
  };
  const tools = how === 'mw+guardTools' ? guardTools(raw, { tracer }) : raw;
  const model = how === 'telemetry' ? providerFor(srv.url)('gpt-4o-mini') : wrapped(srv.url, { tracer, policy, onPolicyViolation: 'refuse' });
  const telemetry = how === 'telemetry' ? { integrations: [tracewardenTelemetry({ tracer, policy, onPolicyViolation: 'refuse' })] } : undefined;
  const messages: ModelMessage[] = [{ role: 'user', content: emailAgent.user }];
  const r1 = await generateText({ model, tools, system: emailAgent.system, messages, stopWhen: stepCountIs(5), telemetry });
  const req = r1.content.find((c: any) => c.type === 'tool-approval-request') as any;
  console.log(`\n##### ${how}: first run ends with: ${r1.content.map((c: any) => c.type).join(',')} text=${JSON.stringify(r1.text).slice(0, 80)}`);
  console.log(`   -> the user is asked to approve: ${req ? JSON.stringify(req.toolCall?.input ?? req) : 'nothing'}`);
  if (req) {
    messages.push(...r1.responseMessages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: req.approvalId, approved: true }] } as any);
    const r2 = await generateText({ model, tools, system: emailAgent.system, messages, stopWhen: stepCountIs(5), telemetry });
    console.log(`   user approved; second run: ${r2.content.map((c: any) => c.type).join(',')} first tool answer: ${JSON.stringify((r2.responseMessages[0] as any)?.content?.[0]?.output).slice(0, 120)}`);
  }
  console.log(`   emails sent: ${JSON.stringify(sent)}`);
  check(how, tracer, { quiet: true });
  await srv.close();
}
console.log(warnings);
