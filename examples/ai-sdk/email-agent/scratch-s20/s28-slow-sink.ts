// tracewardenTelemetry({ sinks }) flushes the call's tracer in onEnd, which the AI SDK awaits:
// a slow sink (an HTTP collector that is slow or retrying) delays the user's generateText / streamText.
import { tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createHttpSink } from '@tracewarden/core';
import { startScriptedServer } from '@tracewarden/testing';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createServer } from 'node:http';
import { generateText, streamText } from 'ai';
const srv = await startScriptedServer({ turns: [{ text: 'answer' }, { text: 'answer' }, { text: 'answer' }, { text: 'answer' }] });
const model = createOpenAICompatible({ name: 'openai', baseURL: srv.url, apiKey: 'x' })('gpt-4o-mini');
const slowSink = { write: () => {}, flush: () => new Promise<void>((r) => setTimeout(r, 3000)), close: async () => {} };
// a collector that answers 503 (the HTTP sink retries)
const collector = createServer((_req, res) => { res.statusCode = 503; res.end(); }).listen(0);
await new Promise((r) => collector.once('listening', r));
const url = `http://127.0.0.1:${(collector.address() as any).port}/blocks`;
for (const [label, sinks] of [['no sink', undefined], ['sink whose flush takes 3 s', [slowSink]], ['createHttpSink to a collector answering 503', [createHttpSink({ url, apiKey: 'tw_test' } as any)]]] as const) {
  for (const stream of [false, true]) {
    const t = performance.now();
    const telemetry = { integrations: [tracewardenTelemetry(sinks ? { sinks: sinks as any } : {})] };
    let firstText = 0;
    if (!stream) await generateText({ model, prompt: 'q', telemetry });
    else { const r = streamText({ model, prompt: 'q', telemetry }); for await (const _ of r.textStream) if (!firstText) firstText = performance.now() - t; await r.text; }
    console.log(`${label} stream=${stream}: call took ${Math.round(performance.now() - t)} ms${stream ? ` (first text at ${Math.round(firstText)} ms)` : ''}`);
    srv.push({ text: 'answer' });
  }
}
collector.close(); await srv.close();
process.exit(0);
