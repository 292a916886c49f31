// Does a failing onTraceEnd or a failing sink of tracewardenTelemetry break the user's call?
import { tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createJsonlFileSink } from '@tracewarden/core';
import { generateText, streamText } from 'ai';
import { server, providerFor, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const cases: [string, any][] = [
  ['onTraceEnd throws', { onTraceEnd: () => { throw new Error('my exporter is down'); } }],
  ['onTraceEnd rejects', { onTraceEnd: async () => { throw new Error('async exporter down'); } }],
  ['sink to unwritable path', { sinks: [createJsonlFileSink('/etc/passwd/sub/trace.jsonl')] }],
  ['sink whose write throws', { sinks: [{ write: () => { throw new Error('sink write failed'); }, flush: async () => {}, close: async () => {} }] }],
  ['sink whose flush rejects', { sinks: [{ write: () => {}, flush: async () => { throw new Error('flush failed'); }, close: async () => {} }] }],
];
for (const [label, opts] of cases) for (const stream of [false, true]) {
  const srv = await server([{ text: 'answer' }]);
  let out = '';
  const before = warnings.length;
  try {
    let integ: any;
    try { integ = tracewardenTelemetry(opts); } catch (e: any) { out = `config rejected: ${e?.name}: ${String(e?.message).slice(0, 150)}`; throw 0; }
    if (!stream) out = 'text=' + (await generateText({ model: providerFor(srv.url)('gpt-4o-mini'), prompt: 'q', telemetry: { integrations: [integ] } })).text;
    else { const r = streamText({ model: providerFor(srv.url)('gpt-4o-mini'), prompt: 'q', telemetry: { integrations: [integ] }, onError: ({ error }: any) => { out += ` onError(${error?.message})`; } }); for await (const _ of r.textStream) {} out += ' text=' + (await r.text); }
  } catch (e: any) { if (e !== 0) out += ` THREW ${e?.name}: ${e?.message}`; }
  await new Promise((r) => setTimeout(r, 50));
  console.log(`${label} stream=${stream}: ${out} | warnings: ${warnings.slice(before).map((w) => w.slice(0, 140)).join(' | ')}`);
  await srv.close();
}
