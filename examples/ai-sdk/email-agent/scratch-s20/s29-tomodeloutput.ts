// One tool with toModelOutput: the TOOL_RESULT output differs by how the tools are run.
import { guardTools } from '@tracewarden/ai-sdk';
import { createTracer } from '@tracewarden/core';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { server, wrapped } from './lib.ts';
for (const guarded of [false, true]) {
  const srv = await server([{ toolCalls: [{ id: 'c1', name: 'search', arguments: { q: 'cats' } }] }, { text: 'ok' }]);
  const tracer = createTracer();
  const raw = { search: tool({ inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => ({ secret: 'raw-value', q }), toModelOutput: ({ output }) => ({ type: 'text' as const, value: `model sees only q=${output.q}` }) }) };
  await generateText({ model: wrapped(srv.url, { tracer }), tools: guarded ? guardTools(raw, { tracer }) : raw, prompt: 'go', stopWhen: stepCountIs(3) });
  console.log(`${guarded ? 'guardTools' : 'plain tools'}: TOOL_RESULT output =`, JSON.stringify(tracer.blocks().find((b) => b.sub_type === 'TOOL_RESULT')?.payload.output));
  await srv.close();
}
