// tracewardenTelemetry: a sink whose flush fails. Is the failure reported anywhere, and does onTraceEnd still run?
import { tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { startScriptedServer } from '@tracewarden/testing';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText } from 'ai';
process.on('warning', (w) => console.log('process warning:', w.message));
const srv = await startScriptedServer({ turns: [{ text: 'answer' }, { text: 'answer' }] });
const model = createOpenAICompatible({ name: 'openai', baseURL: srv.url, apiKey: 'x' })('gpt-4o-mini');
let traceEnded = 0;
const failing = { write: () => {}, flush: async () => { throw new Error('collector unreachable'); }, close: async () => {} };
const integration = tracewardenTelemetry({
  sinks: [failing as any],
  onRecordingError: (e) => console.log('onRecordingError:', (e as Error).message),
  onTraceEnd: () => { traceEnded++; },
});
const r = await generateText({ model, prompt: 'q', telemetry: { integrations: [integration] } });
await new Promise((res) => setTimeout(res, 50));
console.log('generateText returned:', r.text, '| onTraceEnd calls:', traceEnded);
// onTraceEnd throwing
const r2 = await generateText({ model, prompt: 'q', telemetry: { integrations: [tracewardenTelemetry({ onTraceEnd: () => { throw new Error('exporter bug'); } })] } });
await new Promise((res) => setTimeout(res, 50));
console.log('generateText returned:', r2.text, '(the onTraceEnd error was not reported above)');
await srv.close();
