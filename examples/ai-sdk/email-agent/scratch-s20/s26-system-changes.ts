// A chat app whose system prompt carries the current time (changes every request), 3 user turns, one tracer.
import { tracewardenTelemetry } from '@tracewarden/ai-sdk';
import { createTracer, renderTree } from '@tracewarden/core';
import { generateText, type ModelMessage } from 'ai';
import { check, server, wrapped, providerFor } from './lib.ts';
for (const how of ['mw', 'tel'] as const) {
  const srv = await server([{ text: 'Hi Ada.' }, { text: 'It is sunny.' }, { text: 'You asked about the weather.' }]);
  const tracer = createTracer();
  const model = how === 'mw' ? wrapped(srv.url, { tracer }) : providerFor(srv.url)('gpt-4o-mini');
  const telemetry = how === 'tel' ? { integrations: [tracewardenTelemetry({ tracer })] } : undefined;
  const messages: ModelMessage[] = [];
  let minute = 0;
  for (const q of ['Hi, I am Ada', 'Weather?', 'What did I ask?']) {
    messages.push({ role: 'user', content: q });
    const r = await generateText({ model, system: `You are helpful. Current time: 10:0${minute++}.`, messages, telemetry });
    messages.push(...r.responseMessages);
  }
  check(`system prompt with the time, 3 turns (${how})`, tracer);
  console.log(renderTree(tracer.stitched(), { color: false }));
  await srv.close();
}
