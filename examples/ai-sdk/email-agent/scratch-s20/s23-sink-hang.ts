// tracewardenTelemetry({ sinks: [a JSONL sink whose file cannot be opened] }): does generateText return?
import { tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createJsonlFileSink } from '@tracewarden/core';
import { startScriptedServer } from '@tracewarden/testing';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText } from 'ai';
const srv = await startScriptedServer({ turns: [{ text: 'answer' }] });
const model = createOpenAICompatible({ name: 'openai', baseURL: srv.url, apiKey: 'x' })('gpt-4o-mini');
const sink = createJsonlFileSink(process.argv[2] ?? '/proc/nonexistent/dir/trace.jsonl');
console.log('sink created');
const timer = setTimeout(() => { console.log('STILL PENDING after 5 s'); process.exit(2); }, 5000);
try {
  const r = await generateText({ model, prompt: 'q', telemetry: { integrations: [tracewardenTelemetry({ sinks: [sink] })] } });
  console.log('returned:', r.text);
} catch (e: any) { console.log('threw', e?.name, e?.message); }
clearTimeout(timer);
await srv.close();
