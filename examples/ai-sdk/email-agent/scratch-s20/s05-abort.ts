import { guardTools, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer } from '@tracewarden/core';
import { generateText, streamText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, providerFor, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const long = 'word '.repeat(200);
const t0 = Date.now();
for (const how of ['middleware', 'middleware+timeout', 'telemetry'] as const) {
  // 1. abort during text streaming
  {
    const srv = await server([{ text: long, reasoning: 'thinking hard about it' }], { chunkSize: 5, chunkDelayMs: 5 });
    const tracer = createTracer();
    const model = how === 'telemetry' ? providerFor(srv.url)('gpt-4o-mini') : wrapped(srv.url, how === 'middleware' ? { tracer } : { tracer, timeoutSeconds: 30 });
    const ac = new AbortController();
    let n = 0; let out = '';
    const r = streamText({ model, prompt: 'talk', abortSignal: ac.signal, telemetry: how === 'telemetry' ? { integrations: [tracewardenTelemetry({ tracer })] } : undefined, onAbort: () => { out += ' onAbort'; }, onError: ({ error }: any) => { out += ` onError:${error?.name}`; } });
    try { for await (const p of r.fullStream) { if (p.type === 'text-delta' && ++n === 5) ac.abort(); if (p.type === 'abort') out += ' abort-part'; } out += ' loop-ended'; } catch (e: any) { out += ` THREW ${e?.name}`; }
    console.log(`\n##### abort-text ${how}: ${out} (${Date.now() - t0}ms)`);
    check(`abort-text/${how}`, tracer);
    await srv.close();
  }
  // 2. abort while a tool is running (after a tool call step)
  {
    const srv = await server([{ toolCalls: [{ id: 'call_1', name: 'slow', arguments: {} }] }, { text: 'never' }], { chunkSize: 5 });
    const tracer = createTracer();
    const model = how === 'telemetry' ? providerFor(srv.url)('gpt-4o-mini') : wrapped(srv.url, how === 'middleware' ? { tracer } : { tracer, timeoutSeconds: 30 });
    const ac = new AbortController();
    let out = '';
    const tools = guardTools({ slow: tool({ inputSchema: z.object({}), execute: async (_: any, { abortSignal }: any) => { setTimeout(() => ac.abort(), 20); await new Promise((res, rej) => { const t = setTimeout(res, 2000); abortSignal?.addEventListener('abort', () => { clearTimeout(t); rej(abortSignal.reason); }); }); return 'done'; } }) }, { tracer });
    const r = streamText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3), abortSignal: ac.signal, telemetry: how === 'telemetry' ? { integrations: [tracewardenTelemetry({ tracer })] } : undefined, onAbort: () => { out += ' onAbort'; } });
    try { for await (const p of r.fullStream) { if (p.type === 'abort' || p.type === 'tool-error' || p.type === 'error') out += ` ${p.type}`; } out += ' loop-ended'; } catch (e: any) { out += ` THREW ${e?.name}`; }
    console.log(`\n##### abort-tool ${how}: ${out} (${Date.now() - t0}ms) requests=${srv.requests.length}`);
    check(`abort-tool/${how}`, tracer);
    await srv.close();
  }
  // 3. generateText aborted before response (slow first byte)
  {
    const srv = await server([{ fault: { type: 'slow-first-byte', delayMs: 500 } , text: 'late' } as any], {});
    const tracer = createTracer();
    const model = how === 'telemetry' ? providerFor(srv.url)('gpt-4o-mini') : wrapped(srv.url, how === 'middleware' ? { tracer } : { tracer, timeoutSeconds: 30 });
    let out = '';
    try { await generateText({ model, prompt: 'hi', abortSignal: AbortSignal.timeout(50), telemetry: how === 'telemetry' ? { integrations: [tracewardenTelemetry({ tracer })] } : undefined }); out = 'resolved'; } catch (e: any) { out = `THREW ${e?.name}: ${e?.message?.slice(0, 80)}`; }
    console.log(`\n##### abort-generate ${how}: ${out} (${Date.now() - t0}ms)`);
    check(`abort-generate/${how}`, tracer);
    await srv.close();
  }
}
console.log('warnings', warnings);
