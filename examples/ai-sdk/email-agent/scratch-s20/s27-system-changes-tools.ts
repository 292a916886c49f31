// As s26, with a tool call in the first turn: does the re-sent history duplicate tool calls/results?
import { guardTools } from '@tracewarden/ai-sdk';
import { createTracer, renderTree } from '@tracewarden/core';
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { z } from 'zod';
import { check, server, wrapped, warnings } from './lib.ts';
const srv = await server([{ toolCalls: [{ id: 'c1', name: 'weather', arguments: { city: 'Paris' } }] }, { text: 'Sunny.' }, { text: 'You asked about Paris.' }, { text: 'Bye.' }]);
const tracer = createTracer();
const model = wrapped(srv.url, { tracer });
const tools = guardTools({ weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => ({ sky: 'sunny' }) }) }, { tracer });
const messages: ModelMessage[] = [];
let minute = 0;
for (const q of ['Weather in Paris?', 'What did I ask?', 'Thanks']) {
  messages.push({ role: 'user', content: q });
  const r = await generateText({ model, tools, system: `Current time: 10:0${minute++}.`, messages, stopWhen: stepCountIs(3) });
  messages.push(...r.responseMessages);
}
check('time in system prompt + tool history', tracer);
console.log(renderTree(tracer.stitched(), { color: false }));
console.log(warnings);
await srv.close();
