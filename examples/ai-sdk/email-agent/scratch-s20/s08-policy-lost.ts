// Middleware with a policy + tracing-only telemetry integration, both given the same tracer:
// is the policy's verdict visible in that tracer?
import { tracewardenMiddleware, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer, parsePolicy, renderTree } from '@tracewarden/core';
import { emailAgent, startScriptedServer } from '@tracewarden/testing';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';

const srv = await startScriptedServer({ turns: [...emailAgent.turns] });
const tracer = createTracer();
const sent: string[] = [];
const model = wrapLanguageModel({
  model: createOpenAICompatible({ name: 'openai', baseURL: srv.url, apiKey: 'x', includeUsage: true })('gpt-4o-mini'),
  middleware: tracewardenMiddleware({ tracer, policy: parsePolicy(emailAgent.policy), onPolicyViolation: process.argv[2] === 'throw' ? 'throw' : 'refuse' }),
});
try {
  await generateText({
    model, system: emailAgent.system, prompt: emailAgent.user, stopWhen: stepCountIs(5),
    tools: {
      get_inbox: tool({ inputSchema: z.object({}), execute: async () => emailAgent.inbox }),
      send_email: tool({ inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }), execute: async ({ to }) => { sent.push(to); return { sent: true }; } }),
    },
    telemetry: { integrations: [tracewardenTelemetry({ tracer })] },
  });
} catch (e: any) { console.log('threw', e.name); }
console.log('emails sent:', sent);
const call = tracer.blocks().find((b) => b.sub_type === 'TOOL_CALL' && (b.payload as any).name === 'send_email');
const result = tracer.blocks().find((b) => b.sub_type === 'TOOL_RESULT' && (b.payload as any).call_id === (call?.payload as any)?.call_id);
console.log('send_email TOOL_CALL metadata:', JSON.stringify(call?.metadata));
console.log('send_email TOOL_RESULT metadata:', JSON.stringify(result?.metadata));
console.log(renderTree(tracer.stitched(), { color: false }));
await srv.close();
const last = tracer.blocks().filter((b) => b.sub_type === 'MESSAGE').at(-1);
console.log('last MESSAGE metadata.error / violations:', JSON.stringify({ error: (last?.metadata as any)?.error, violations: (last?.metadata as any)?.violations, policy: (last?.metadata as any)?.policy }));
