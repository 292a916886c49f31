import { tracewardenMiddleware, guardTools } from '@tracewarden/ai-sdk';
import { createTracer, parsePolicy } from '@tracewarden/core';
import { emailAgent } from '@tracewarden/testing';
import { generateText, streamText, stepCountIs, tool, wrapLanguageModel, extractReasoningMiddleware, simulateStreamingMiddleware, defaultSettingsMiddleware } from 'ai';
import { z } from 'zod';
import { check, server, providerFor, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const stacks: [string, (t: any) => any[]][] = [
  ['[tw, extractReasoning]', (t) => [tracewardenMiddleware({ tracer: t }), extractReasoningMiddleware({ tagName: 'think' })]],
  ['[extractReasoning, tw]', (t) => [extractReasoningMiddleware({ tagName: 'think' }), tracewardenMiddleware({ tracer: t })]],
  ['[tw, simulateStreaming]', (t) => [tracewardenMiddleware({ tracer: t }), simulateStreamingMiddleware()]],
  ['[simulateStreaming, tw]', (t) => [simulateStreamingMiddleware(), tracewardenMiddleware({ tracer: t })]],
  ['[tw(T), tw(T)] (wrapped twice)', (t) => [tracewardenMiddleware({ tracer: t }), tracewardenMiddleware({ tracer: t })]],
  ['[defaultSettings, tw]', (t) => [defaultSettingsMiddleware({ settings: { temperature: 0.1 } }), tracewardenMiddleware({ tracer: t })]],
];
for (const [label, mk] of stacks) for (const stream of [false, true]) {
  const srv = await server([{ text: '<think>secret plan</think>The answer is 42.' }], { chunkSize: 5 });
  const tracer = createTracer();
  const model = wrapLanguageModel({ model: providerFor(srv.url)('gpt-4o-mini'), middleware: mk(tracer) });
  let out = '';
  try {
    if (!stream) { const r = await generateText({ model, prompt: 'q' }); out = `text=${JSON.stringify(r.text)} reasoning=${JSON.stringify(r.reasoningText)}`; }
    else { const r = streamText({ model, prompt: 'q' }); for await (const _ of r.fullStream) {} out = `text=${JSON.stringify(await r.text)} reasoning=${JSON.stringify(await r.reasoningText)}`; }
  } catch (e: any) { out = `THREW ${e?.name} ${e?.message}`; }
  console.log(`\n##### ${label} stream=${stream}: ${out}`);
  const { blocks } = check(`${label}/${stream}`, tracer);
  for (const b of blocks as any[]) if (b.payload.role === 'assistant') console.log(`   stream=${b.metadata.stream} ttft=${b.metadata.time_to_first_token_ms} request=${JSON.stringify(b.raw?.request ?? b.metadata.raw?.request ?? '')}`);
  await srv.close();
}
// the email story with twice-wrapped enforcing middleware
{
  const srv = await server([...emailAgent.turns]);
  const tracer = createTracer();
  const policy = parsePolicy(emailAgent.policy);
  const model = wrapLanguageModel({ model: providerFor(srv.url)('gpt-4o-mini'), middleware: [tracewardenMiddleware({ tracer, policy, onPolicyViolation: 'refuse' }), tracewardenMiddleware({ tracer, policy, onPolicyViolation: 'refuse' })] });
  const sent: string[] = [];
  const tools = guardTools({ get_inbox: tool({ inputSchema: z.object({}), execute: async () => emailAgent.inbox }), send_email: tool({ inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }), execute: async ({ to }) => { sent.push(to); return 'sent'; } }) }, { tracer });
  const r = await generateText({ model, tools, system: emailAgent.system, prompt: emailAgent.user, stopWhen: stepCountIs(5) });
  console.log(`\n##### email story, enforcing middleware twice: sent=${JSON.stringify(sent)} text=${r.text.slice(0, 40)}`);
  check('twice enforcing', tracer);
  await srv.close();
}
console.log('warnings', warnings);
