// Process 1 (arg "first"): the policy blocks send_email, yet the tool (needsApproval) asks the user to approve it.
// Process 2 (arg "resume"): a fresh process (a serverless route) resumes with the user's "approve",
// set up exactly like process 1 (middleware with the policy in refuse mode + guardTools(tools, { tracer })).
import { writeFileSync, readFileSync } from 'node:fs';
import { guardTools } from '@tracewarden/ai-sdk';
import { createTracer, parsePolicy } from '@tracewarden/core';
import { emailAgent } from '@tracewarden/testing';
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { server, wrapped } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const file = '/tmp/s20/aisdk-review/approval-messages.json';
const policy = parsePolicy(emailAgent.policy);
const srv = await server([emailAgent.turns[0], emailAgent.turns[1], { text: 'Report.' }].slice(process.argv[2] === 'resume' ? 2 : 0));
const tracer = createTracer();
const sent: string[] = [];
const tools = guardTools({
  get_inbox: tool({ inputSchema: z.object({}), execute: async () => emailAgent.inbox }),
  send_email: tool({ inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }), needsApproval: true, execute: async ({ to }) => { sent.push(to); return 'sent'; } }),
}, { tracer, ...(process.env.TOOL_POLICY ? { policy } : {}) });
const model = wrapped(srv.url, { tracer, policy, onPolicyViolation: 'refuse' });
if (process.argv[2] !== 'resume') {
  const messages: ModelMessage[] = [{ role: 'user', content: emailAgent.user }];
  const r = await generateText({ model, tools, system: emailAgent.system, messages, stopWhen: stepCountIs(5) });
  const req = r.content.find((c: any) => c.type === 'tool-approval-request') as any;
  console.log('process 1: approval requested for', JSON.stringify(req?.toolCall?.input));
  writeFileSync(file, JSON.stringify([...messages, ...r.responseMessages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: req.approvalId, approved: true }] }]));
} else {
  const messages = JSON.parse(readFileSync(file, 'utf8'));
  await generateText({ model, tools, system: emailAgent.system, messages, stopWhen: stepCountIs(5) });
  console.log('process 2: emails sent:', JSON.stringify(sent));
}
await srv.close();
