// prepareStep: step 0 runs on a cheap model that is NOT wrapped; later steps on the wrapped one.
// Also: prepareStep changes the system prompt per step.
import { guardTools } from '@tracewarden/ai-sdk';
import { createTracer, renderTree } from '@tracewarden/core';
import { generateText, streamText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, providerFor, warnings } from './lib.ts';
(globalThis as any).AI_SDK_LOG_WARNINGS = false;
for (const variant of ['unwrapped first step', 'system changes per step'] as const) for (const stream of [false, true]) {
  const srv = await server([
    { toolCalls: [{ id: 'c1', name: 'lookup', arguments: { q: 'a' } }] },
    { toolCalls: [{ id: 'c2', name: 'lookup', arguments: { q: 'b' } }] },
    { text: 'done' },
  ]);
  const tracer = createTracer();
  const w = wrapped(srv.url, { tracer });
  const plain = providerFor(srv.url)('gpt-4o-mini');
  const tools = guardTools({ lookup: tool({ inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => `found ${q}` }) }, { tracer });
  const prepareStep = variant === 'unwrapped first step'
    ? ({ stepNumber }: any) => (stepNumber === 0 ? { model: plain } : {})
    : ({ stepNumber }: any) => ({ system: `You are on step ${stepNumber}.` });
  const args: any = { model: w, tools, system: 'You are helpful.', prompt: 'go', stopWhen: stepCountIs(5), prepareStep };
  if (!stream) await generateText(args); else { const r = streamText(args); await r.consumeStream(); }
  check(`${variant} stream=${stream}`, tracer);
  await srv.close();
}
console.log(warnings);
