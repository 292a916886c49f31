// A 100 KB user prompt (pasted document) in a 4-step tool loop: what does the trace keep?
import { guardTools } from '@tracewarden/ai-sdk';
import { createTracer, renderTree } from '@tracewarden/core';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, warnings } from './lib.ts';
const doc = 'lorem ipsum dolor sit amet. '.repeat(4000);
const srv = await server([
  { toolCalls: [{ id: 'c1', name: 'lookup', arguments: { q: 'a' } }] },
  { toolCalls: [{ id: 'c2', name: 'lookup', arguments: { q: 'b' } }] },
  { toolCalls: [{ id: 'c3', name: 'lookup', arguments: { q: 'c' } }] },
  { text: 'done' },
]);
const tracer = createTracer();
await generateText({
  model: wrapped(srv.url, { tracer }),
  system: 'You are helpful.',
  prompt: `Please check this document:\n${doc}`,
  tools: guardTools({ lookup: tool({ inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => `found ${q}` }) }, { tracer }),
  stopWhen: stepCountIs(6),
});
await new Promise((r) => setTimeout(r, 10));
console.log('process warnings:', warnings.length, warnings.map((w) => w.slice(0, 120)));
check('big prompt 4 steps', tracer);
console.log(renderTree(tracer.stitched(), { color: false }));
await srv.close();
