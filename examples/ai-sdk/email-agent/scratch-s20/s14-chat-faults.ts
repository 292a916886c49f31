import { guardTools, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer } from '@tracewarden/core';
import { generateText, streamText, stepCountIs, tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, providerFor, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;

// A. chat app: 3 user turns, same tracer, messages grow; a tool call in turn 2
for (const how of ['mw', 'tel'] as const) for (const stream of [false, true]) {
  const srv = await server([{ text: 'Hi Ada.' }, { toolCalls: [{ id: 'c1', name: 'weather', arguments: { city: 'Paris' } }] }, { text: 'Sunny in Paris.' }, { text: 'You asked about Paris.' }]);
  const tracer = createTracer();
  const model = how === 'mw' ? wrapped(srv.url, { tracer }) : providerFor(srv.url)('gpt-4o-mini');
  const telemetry = how === 'tel' ? { integrations: [tracewardenTelemetry({ tracer })] } : undefined;
  const tools = { weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, sky: 'sunny' }) }) };
  const messages: ModelMessage[] = [];
  for (const q of ['Hi, I am Ada', 'Weather in Paris?', 'What did I ask?']) {
    messages.push({ role: 'user', content: q });
    if (!stream) { const r = await generateText({ model, tools, system: 'Be brief.', messages, stopWhen: stepCountIs(3), telemetry }); messages.push(...r.responseMessages); }
    else { const r = streamText({ model, tools, system: 'Be brief.', messages, stopWhen: stepCountIs(3), telemetry }); for await (const _ of r.fullStream) {} messages.push(...(await r.response).messages); }
  }
  check(`chat 3 turns ${how} stream=${stream}`, tracer);
  await srv.close();
}
// B. faults
const faults: [string, any[], any][] = [
  ['429 then ok (maxRetries 2)', [{ fault: 429 }, { text: 'ok' }], {}],
  ['500 x3 (retries exhausted)', [{ fault: { type: 'status', status: 500 } }, { fault: { type: 'status', status: 500 } }, { fault: { type: 'status', status: 500 } }], {}],
  ['400 bad request', [{ fault: { type: 'status', status: 400 } }], {}],
  ['drop mid-stream', [{ text: 'a long answer that will be cut', fault: { type: 'drop-mid-stream', afterChunks: 3 } }], {}],
  ['ai timeout totalMs 100 (slow first byte)', [{ fault: { type: 'slow-first-byte', delayMs: 400 }, text: 'late' }], { timeout: { totalMs: 100 } }],
  ['ai timeout chunkMs 30 (slow chunks)', [{ text: 'slow slow slow slow slow slow slow' }], { timeout: { chunkMs: 30 } }, ],
];
for (const [label, turns, extra] of faults) for (const how of ['mw', 'tel'] as const) for (const stream of [false, true]) {
  const srv = await server(turns, { chunkSize: 4, chunkDelayMs: label.includes('slow chunks') ? 60 : 0 });
  const tracer = createTracer();
  const model = how === 'mw' ? wrapped(srv.url, { tracer }) : providerFor(srv.url)('gpt-4o-mini');
  const telemetry = how === 'tel' ? { integrations: [tracewardenTelemetry({ tracer })] } : undefined;
  let out = '';
  const t = Date.now();
  try {
    if (!stream) out = (await generateText({ model, prompt: 'hi', telemetry, ...extra })).text;
    else { const r = streamText({ model, prompt: 'hi', telemetry, ...extra, onError: ({ error }: any) => { out += ` onError(${error?.name}:${error?.statusCode ?? ''})`; } }); for await (const p of r.fullStream) { if (p.type === 'error') out += ` error-part(${(p as any).error?.name})`; } out += ` text=${await r.text.catch((e: any) => 'REJ ' + e?.name)}`; }
  } catch (e: any) { out += ` THREW ${e?.name} ${e?.statusCode ?? ''} ${String(e?.message).slice(0, 90)}`; }
  console.log(`\n##### ${label} ${how} stream=${stream}: ${out} (${Date.now() - t}ms) requests=${srv.requests.length}`);
  const { blocks } = check(`${label}/${how}/${stream}`, tracer, { quiet: true });
  for (const b of blocks as any[]) if (b.payload.role === 'assistant') console.log(`   assistant status=${b.metadata.status} content=${JSON.stringify(b.payload.content)?.slice(0, 40)} attempts=${JSON.stringify(b.metadata.attempts)?.slice(0, 200)} error=${JSON.stringify(b.metadata.error)?.slice(0, 160)}`);
  await srv.close();
}
console.log('warnings', warnings);
