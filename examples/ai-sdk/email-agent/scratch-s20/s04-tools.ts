import { guardTools, tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer } from '@tracewarden/core';
import { generateText, streamText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, providerFor, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;

const kinds = {
  preliminary: () => tool({ inputSchema: z.object({ q: z.string() }), async *execute({ q }) { yield { status: 'loading', q }; yield { status: 'done', q, hits: 3 }; } }),
  toModelOutput: () => tool({ inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => ({ secret: 'raw-value', q }), toModelOutput: ({ output }: any) => ({ type: 'text', value: `model sees only q=${output.q}` }) }),
  throws: () => tool({ inputSchema: z.object({ q: z.string() }), execute: async () => { const e = new Error('db down'); (e as any).code = 'E_DB'; throw e; } }),
  throwsString: () => tool({ inputSchema: z.object({ q: z.string() }), execute: async () => { throw 'plain string thrown'; } }),
  returnsUndefined: () => tool({ inputSchema: z.object({ q: z.string() }), execute: async () => undefined as any }),
  returnsBigint: () => tool({ inputSchema: z.object({ q: z.string() }), execute: async () => ({ n: 1 }) }),
  contentOutput: () => tool({ inputSchema: z.object({ q: z.string() }), execute: async () => 'x', toModelOutput: () => ({ type: 'content', value: [{ type: 'text', text: 'part one' }, { type: 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' }] }) as any }),
  badInput: () => tool({ inputSchema: z.object({ q: z.number() }), execute: async () => 'never' }),
};
for (const [kind, make] of Object.entries(kinds))
for (const how of ['guardTools', 'plain', 'telemetry'] as const)
for (const stream of [false, true]) {
  const srv = await server([
    { toolCalls: [{ id: 'call_1', name: 'search', arguments: { q: 'cats' } }] },
    { text: 'ok' },
  ], { chunkSize: 6 });
  const tracer = createTracer();
  const raw = { search: make() } as any;
  const tools = how === 'guardTools' ? guardTools(raw, { tracer }) : raw;
  const model = how === 'telemetry' ? providerFor(srv.url)('gpt-4o-mini') : wrapped(srv.url, { tracer });
  const telemetry = how === 'telemetry' ? { integrations: [tracewardenTelemetry({ tracer })] } : undefined;
  let out = '';
  const prelim: unknown[] = [];
  try {
    if (!stream) { const r = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3), telemetry }); out = `text=${r.text} step0=${JSON.stringify(r.steps[0]?.content.filter((c: any) => c.type !== 'tool-call').map((c: any) => [c.type, c.output ?? String(c.error)]))}`; }
    else {
      const r = streamText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3), telemetry });
      for await (const p of r.fullStream) if (p.type === 'tool-result') prelim.push([(p as any).preliminary ?? false, (p as any).output]);
      out = `text=${await r.text} toolResultParts=${JSON.stringify(prelim)}`;
    }
  } catch (e: any) { out = `THREW ${e?.name} ${e?.message?.slice(0, 200)}`; }
  const modelSaw = JSON.stringify(srv.requests[1]?.body?.messages?.find((m: any) => m.role === 'tool')?.content);
  console.log(`\n##### ${kind} ${how} stream=${stream}: ${out}\n   model read: ${modelSaw}`);
  check(`${kind}/${how}/${stream}`, tracer);
  await srv.close();
}
console.log('warnings', warnings);
