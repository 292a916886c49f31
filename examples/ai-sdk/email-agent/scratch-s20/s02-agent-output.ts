import { guardTools, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer, parsePolicy } from '@tracewarden/core';
import { emailAgent } from '@tracewarden/testing';
import { ToolLoopAgent, generateObject, streamObject, generateText, streamText, Output, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, providerFor, warnings } from './lib.ts';

async function run(label: string, turns: any[], fn: (url: string, tracer: any) => Promise<string>) {
  const srv = await server(turns, { chunkSize: 5 });
  const tracer = createTracer();
  let out: string;
  try { out = await fn(srv.url, tracer); } catch (e: any) { out = `THREW ${e?.name} ${e?.code ?? ''} ${String(e?.message).slice(0, 200)}`; }
  console.log(`\n##### ${label}: ${out}`);
  check(label, tracer);
  await srv.close();
}
const mkTools = (tracer: any) => guardTools({
  get_inbox: tool({ inputSchema: z.object({}), execute: async () => emailAgent.inbox }),
  send_email: tool({ inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }), execute: async () => ({ sent: true }) }),
}, { tracer });

for (const stream of [false, true]) {
  await run(`ToolLoopAgent ${stream ? 'stream' : 'generate'}`, [...emailAgent.turns], async (url, tracer) => {
    const agent = new ToolLoopAgent({ model: wrapped(url, { tracer, policy: parsePolicy(emailAgent.policy), onPolicyViolation: 'refuse' }), tools: mkTools(tracer), instructions: emailAgent.system, stopWhen: stepCountIs(5) });
    if (!stream) { const r = await agent.generate({ prompt: emailAgent.user }); return `text=${r.text.slice(0, 50)} steps=${r.steps.length}`; }
    const r = await agent.stream({ prompt: emailAgent.user });
    for await (const _ of r.fullStream) {}
    return `text=${(await r.text).slice(0, 50)} steps=${(await r.steps).length}`;
  });
}
const json = JSON.stringify({ name: 'Ada', age: 36 });
const schema = z.object({ name: z.string(), age: z.number() });
await run('generateText output:Output.object', [{ text: json }], async (url, tracer) => {
  const r = await generateText({ model: wrapped(url, { tracer }), output: Output.object({ schema }), prompt: 'who' });
  return `output=${JSON.stringify(r.output)}`;
});
await run('streamText output:Output.object', [{ text: json }], async (url, tracer) => {
  const r = streamText({ model: wrapped(url, { tracer }), output: Output.object({ schema }), prompt: 'who' });
  const parts: string[] = [];
  for await (const p of r.partialOutputStream) parts.push(JSON.stringify(p));
  return `partials=${parts.length} output=${JSON.stringify(await r.output)}`;
});
await run('generateObject', [{ text: json }], async (url, tracer) => {
  const r = await generateObject({ model: wrapped(url, { tracer }), schema, prompt: 'who' });
  return `object=${JSON.stringify(r.object)}`;
});
await run('streamObject', [{ text: json }], async (url, tracer) => {
  const r = streamObject({ model: wrapped(url, { tracer }), schema, prompt: 'who' });
  let n = 0; for await (const _ of r.partialObjectStream) n++;
  return `partials=${n} object=${JSON.stringify(await r.object)}`;
});
// telemetry integration with generateObject / streamObject / Output
await run('generateObject + telemetry(tracer)', [{ text: json }], async (url, tracer) => {
  const r = await generateObject({ model: providerFor(url)('gpt-4o-mini'), schema, prompt: 'who', telemetry: { integrations: [tracewardenTelemetry({ tracer })] } } as any);
  return `object=${JSON.stringify(r.object)}`;
});
await run('streamObject + telemetry(tracer)', [{ text: json }], async (url, tracer) => {
  const r = streamObject({ model: providerFor(url)('gpt-4o-mini'), schema, prompt: 'who', telemetry: { integrations: [tracewardenTelemetry({ tracer })] } } as any);
  let n = 0; for await (const _ of r.partialObjectStream) n++;
  return `partials=${n} object=${JSON.stringify(await r.object)}`;
});
await run('streamText Output.object + telemetry(tracer)', [{ text: json }], async (url, tracer) => {
  const r = streamText({ model: providerFor(url)('gpt-4o-mini'), output: Output.object({ schema }), prompt: 'who', telemetry: { integrations: [tracewardenTelemetry({ tracer })] } });
  for await (const _ of r.fullStream) {}
  return `output=${JSON.stringify(await r.output)}`;
});
await run('ToolLoopAgent + telemetry(tracer, policy refuse)', [...emailAgent.turns], async (url, tracer) => {
  const agent = new ToolLoopAgent({ model: providerFor(url)('gpt-4o-mini'), tools: {
    get_inbox: tool({ inputSchema: z.object({}), execute: async () => emailAgent.inbox }),
    send_email: tool({ inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }), execute: async () => ({ sent: true }) }),
  }, instructions: emailAgent.system, stopWhen: stepCountIs(5), telemetry: { integrations: [tracewardenTelemetry({ tracer, policy: parsePolicy(emailAgent.policy), onPolicyViolation: 'refuse' })] } });
  const r = await agent.stream({ prompt: emailAgent.user });
  for await (const _ of r.fullStream) {}
  return `text=${(await r.text).slice(0, 50)} steps=${(await r.steps).length}`;
});
console.log('warnings', warnings);
