// guardTools({ tracer, policy }) with a plain (unwrapped) model: what does the trace show?
import { guardTools } from '@tracewarden/ai-sdk';
import { createTracer, parsePolicy, renderTree } from '@tracewarden/core';
import { emailAgent } from '@tracewarden/testing';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { check, server, providerFor, warnings } from './lib.ts';
const srv = await server([...emailAgent.turns]);
const tracer = createTracer();
const sent: string[] = [];
const tools = guardTools({
  get_inbox: tool({ inputSchema: z.object({}), execute: async () => emailAgent.inbox }),
  send_email: tool({ inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }), execute: async ({ to }) => { sent.push(to); return 'sent'; } }),
}, { tracer, policy: parsePolicy(emailAgent.policy) });
const r = await generateText({ model: providerFor(srv.url)('gpt-4o-mini'), tools, system: emailAgent.system, prompt: emailAgent.user, stopWhen: stepCountIs(5) });
console.log('sent', sent, 'step2 content', JSON.stringify(r.steps[1]?.content.map((c: any) => [c.type, String(c.error ?? c.output ?? '').slice(0, 80)])));
check('guardTools only', tracer);
console.log(renderTree(tracer.stitched(), { color: false }));
console.log(warnings);
await srv.close();
