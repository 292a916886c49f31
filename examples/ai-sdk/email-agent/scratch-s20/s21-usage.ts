import { tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer } from '@tracewarden/core';
import { generateText, streamText } from 'ai';
import { server, wrapped, providerFor } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
const turns = [
  { text: 'no cache', usage: { inputTokens: 1_000_000, outputTokens: 0, cachedTokens: 0 } },
  { text: 'all cached', usage: { inputTokens: 1_000_000, outputTokens: 0, cachedTokens: 1_000_000 } },
  { text: 'reasoning', reasoning: 'hmm', usage: { inputTokens: 10, outputTokens: 1_000_000, reasoningTokens: 900_000 } },
  { text: 'cut off', finishReason: 'length' },
  { text: '', finishReason: 'content_filter' },
];
for (const how of ['mw', 'tel'] as const) for (const stream of [false, true]) {
  const srv = await server(turns);
  const tracer = createTracer();
  const model = how === 'mw' ? wrapped(srv.url, { tracer }) : providerFor(srv.url)('gpt-4o-mini');
  const telemetry = how === 'tel' ? { integrations: [tracewardenTelemetry({ tracer })] } : undefined;
  console.log(`\n##### ${how} stream=${stream}`);
  for (let i = 0; i < turns.length; i++) {
    let sdk: any;
    if (!stream) { const r = await generateText({ model, prompt: `q${i}`, telemetry }); sdk = { u: r.usage, f: r.finishReason }; }
    else { const r = streamText({ model, prompt: `q${i}`, telemetry }); await r.consumeStream(); sdk = { u: await r.usage, f: await r.finishReason }; }
    const m = tracer.blocks().filter((b: any) => b.payload.role === 'assistant').at(-1) as any;
    console.log(`   ${turns[i].text || '(empty)'}: sdk usage in=${sdk.u.inputTokens} cacheRead=${sdk.u.inputTokenDetails?.cacheReadTokens} out=${sdk.u.outputTokens} reasoning=${sdk.u.outputTokenDetails?.reasoningTokens} fin=${sdk.f} | trace usage=${JSON.stringify(m.metadata.usage)} cost=${JSON.stringify(m.metadata.cost)} fin=${m.metadata.finish_reason}/${m.metadata.provider_finish_reason}`);
  }
  await srv.close();
}
