import { createTracer, type Tracer } from '@tracewarden/core';
import { generateText, isStepCount, streamText, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../__fixtures__/mock-model.js';
import { guardTools, tracewardenMiddleware } from '../index.js';

// A provider that sends `""` as every tool call id (Gemini-backed agents do): an empty id is
// absent (decision 030), so each result still lands under its own TOOL_CALL.

function weatherTools() {
  return {
    get_weather: tool({
      description: 'weather of a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => `22°C in ${city}`,
    }),
    get_time: tool({
      description: 'time in a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => `10:00 in ${city}`,
    }),
  };
}

const steps = [
  { calls: [{ id: '', name: 'get_weather', input: { city: 'Paris' } }] },
  { text: 'Now the time.', calls: [{ id: '', name: 'get_time', input: { city: 'Paris' } }] },
  { text: '22°C at 10:00.' },
];

function expectLinked(tracer: Tracer): void {
  const stitched = tracer.stitched();
  const calls = stitched.messages.flatMap((message) => message.tool_calls);
  expect(
    calls.map((call) => [
      call.block.payload.name,
      call.results.map((result) => result.payload.output),
    ]),
  ).toEqual([
    ['get_weather', ['22°C in Paris']],
    ['get_time', ['10:00 in Paris']],
  ]);
  const ids = calls.map((call) => call.block.payload.call_id);
  expect(ids.every((id) => typeof id === 'string' && id !== '')).toBe(true);
  expect(new Set(ids).size).toBe(2);
  expect(stitched.orphans).toEqual({ tool_calls: [], tool_results: [] });
}

describe('tracewardenMiddleware: tool calls with "" ids', () => {
  for (const stream of [false, true])
    for (const guarded of [false, true]) {
      const how = `${stream ? 'streamText' : 'generateText'}, ${guarded ? 'guardTools' : 'plain tools'}`;
      it(`${how}: every result under its call, no empty call id`, async () => {
        const tracer = createTracer();
        const model = wrapLanguageModel({
          model: scriptedModel(steps),
          middleware: tracewardenMiddleware({ tracer }),
        });
        const tools = guarded ? guardTools(weatherTools(), { tracer }) : weatherTools();
        const options = { model, prompt: 'Weather and time?', tools, stopWhen: isStepCount(5) };
        let text: string;
        if (stream) {
          const result = streamText(options);
          await result.consumeStream();
          text = await result.text;
        } else text = (await generateText(options)).text;
        expect(text).toBe('22°C at 10:00.');
        expectLinked(tracer);
      });
    }
});
