import { guardTools, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer } from '@tracewarden/core';
import { generateText, streamText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, providerFor, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const bigDoc = 'lorem ipsum dolor sit amet. '.repeat(4000); // ~112 KB
const img = new Uint8Array(120_000).fill(7);
const cases: [string, any[], (url: string, tracer: any, tel: any) => any][] = [
  ['100KB user prompt (RAG)', [{ text: 'summary' }], (_u, _t, tel) => ({ prompt: `Summarize:\n${bigDoc}`, telemetry: tel })],
  ['120KB image in user message', [{ text: 'a gray square' }], (_u, _t, tel) => ({ messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image', image: img, mediaType: 'image/png' }] }], telemetry: tel })],
  ['100KB answer', [{ text: bigDoc }], (_u, _t, tel) => ({ prompt: 'write a lot', telemetry: tel })],
  ['300KB tool args', [{ toolCalls: [{ id: 'c1', name: 'save', arguments: { body: 'x'.repeat(300_000) } }] }, { text: 'saved' }], (_u, tracer, tel) => ({ prompt: 'save', tools: tel ? { save: tool({ inputSchema: z.object({ body: z.string() }), execute: async () => 'ok' }) } : guardTools({ save: tool({ inputSchema: z.object({ body: z.string() }), execute: async () => 'ok' }) }, { tracer }), stopWhen: stepCountIs(3), telemetry: tel })],
  ['3MB tool result', [{ toolCalls: [{ id: 'c1', name: 'fetch', arguments: {} }] }, { text: 'fetched' }], (_u, tracer, tel) => ({ prompt: 'fetch', tools: tel ? { fetch: tool({ inputSchema: z.object({}), execute: async () => 'y'.repeat(3_000_000) }) } : guardTools({ fetch: tool({ inputSchema: z.object({}), execute: async () => 'y'.repeat(3_000_000) }) }, { tracer }), stopWhen: stepCountIs(3), telemetry: tel })],
];
for (const [label, turns, mk] of cases) for (const how of ['mw', 'tel'] as const) for (const stream of [false, true]) {
  const srv = await server(turns, { chunkSize: 4000 });
  const tracer = createTracer();
  const model = how === 'mw' ? wrapped(srv.url, { tracer }) : providerFor(srv.url)('gpt-4o-mini');
  const tel = how === 'tel' ? { integrations: [tracewardenTelemetry({ tracer })] } : undefined;
  const before = warnings.length;
  let out = '';
  const t = Date.now();
  try {
    const args = { model, ...mk(srv.url, tracer, tel) };
    if (!stream) out = (await generateText(args)).text.slice(0, 20);
    else { const r = streamText(args); for await (const _ of r.fullStream) {} out = (await r.text).slice(0, 20); }
  } catch (e: any) { out = `THREW ${e?.name} ${e?.message?.slice(0, 200)}`; }
  console.log(`\n##### ${label} ${how} stream=${stream}: ${out} (${Date.now() - t}ms) new warnings: ${warnings.slice(before).map((w) => w.slice(0, 230)).join(' | ')}`);
  const { blocks } = check(`${label}/${how}/${stream}`, tracer, { quiet: true });
  for (const b of blocks as any[]) { const s = JSON.stringify(b); console.log(`   ${b.sub_type} ${b.payload.role ?? ''} bytes=${s.length} ${b.metadata.content_omitted ? 'content_omitted=' + JSON.stringify(b.metadata.content_omitted) : ''} ${b.metadata.output_omitted ? 'output_omitted' : ''} ${b.metadata.arguments_omitted ? 'arguments_omitted' : ''} ${Object.keys(b.metadata).filter((k) => k.includes('omit') || k.includes('trunc')).join(',')}`); }
  await srv.close();
}
