import { createTracer, type Tracer } from '@tracewarden/core';
import { generateText, isStepCount, streamText, type ToolSet, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { concurrentCall0Runs, slowWeather } from '../__fixtures__/concurrent-call-0.js';
import { type Step, scriptedModel } from '../__fixtures__/mock-model.js';
import { guardTools, tracewardenMiddleware } from '../index.js';

const steps = (): Step[] => [
  {
    calls: [
      { id: 'call_a', name: 'weather', input: { city: 'Paris' } },
      { id: 'call_b', name: 'note', input: { text: 'hi' } },
      { id: 'call_c', name: 'inbox', input: {} },
      { id: 'call_d', name: 'broken', input: {} },
    ],
  },
  { text: 'done' },
];

const tools = () => ({
  weather: tool({
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, tempC: 15 }),
  }),
  note: tool({ inputSchema: z.object({ text: z.string() }), execute: async ({ text }) => text }),
  inbox: tool({ inputSchema: z.object({}), execute: async () => [{ from: 'bob@acme.example' }] }),
  broken: tool({
    inputSchema: z.object({}),
    execute: async (): Promise<string> => {
      throw new Error('disk full');
    },
  }),
});

const results = (tracer: Tracer) =>
  tracer
    .blocks()
    .filter((block) => block.sub_type === 'TOOL_RESULT')
    .map((block) => ({
      call_id: block.payload.call_id,
      output: block.payload.output,
      status: (block.metadata as { status?: unknown }).status,
    }));

async function run(stream: boolean, guarded: boolean): Promise<Tracer> {
  const tracer = createTracer();
  const options = {
    model: wrapLanguageModel({
      model: scriptedModel(steps()),
      middleware: tracewardenMiddleware({ tracer, pricing: false }),
    }),
    tools: (guarded ? guardTools(tools(), { tracer }) : tools()) as ToolSet,
    prompt: 'go',
    stopWhen: isStepCount(3),
  };
  const text = stream ? await streamText(options).text : (await generateText(options)).text;
  expect(text).toBe('done');
  return tracer;
}

describe('a tool output read from the next prompt', () => {
  for (const stream of [false, true]) {
    const label = stream ? 'streamText' : 'generateText';

    it(`is recorded as guardTools records it: a JSON value as the value, text as text (${label})`, async () => {
      const plain = await run(stream, false);
      expect(results(plain)).toEqual([
        { call_id: 'call_a', output: { city: 'Paris', tempC: 15 }, status: 'success' },
        { call_id: 'call_b', output: 'hi', status: 'success' },
        { call_id: 'call_c', output: [{ from: 'bob@acme.example' }], status: 'success' },
        { call_id: 'call_d', output: 'Error: disk full', status: 'failure' },
      ]);
      const guarded = await run(stream, true);
      // the same outputs whichever path recorded them (the guard's, in the order tools ended)
      const byId = (list: ReturnType<typeof results>) =>
        Object.fromEntries(list.map((result) => [result.call_id, result]));
      expect(byId(results(guarded))).toEqual(byId(results(plain)));
    });

    it(`a result guardTools recorded is not recorded again from the next prompt (${label})`, async () => {
      const tracer = await run(stream, true);
      const recorded = tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT');
      expect(recorded).toHaveLength(4);
      // each is the guard's record (with its decisions), not the prompt's
      for (const block of recorded) expect(block.metadata).toHaveProperty('guard');
    });
  }

  it('models that number calls per answer (call_0 each step): each value under its own call', async () => {
    const tracer = createTracer();
    const weather = tool({
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, tempC: city.length }),
    });
    await generateText({
      model: wrapLanguageModel({
        model: scriptedModel([
          { calls: [{ id: 'call_0', name: 'weather', input: { city: 'Paris' } }] },
          { calls: [{ id: 'call_0', name: 'weather', input: { city: 'Rome' } }] },
          { text: 'done' },
        ]),
        middleware: tracewardenMiddleware({ tracer, pricing: false }),
      }),
      tools: { weather },
      prompt: 'go',
      stopWhen: isStepCount(4),
    });
    const stitched = tracer.stitched();
    expect(stitched.orphans).toEqual({ tool_calls: [], tool_results: [] });
    expect(
      stitched.messages
        .flatMap((message) => message.tool_calls)
        .map((call) => [call.block.payload.arguments, call.results.map((r) => r.payload.output)]),
    ).toEqual([
      [{ city: 'Paris' }, [{ city: 'Paris', tempC: 5 }]],
      [{ city: 'Rome' }, [{ city: 'Rome', tempC: 4 }]],
    ]);
  });

  it('two conversations at once in one trace, both numbering calls call_0: each value under its own call', async () => {
    const tracer = createTracer();
    await concurrentCall0Runs(tracewardenMiddleware({ tracer, pricing: false }), {
      weather: slowWeather((city) => ({ city })),
    });
    const blocks = tracer.blocks();
    const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results).toHaveLength(2);
    for (const result of results) {
      const call = blocks.find((block) => block.id === result.parent_block_id);
      expect(result.payload.output).toEqual(call?.payload.arguments);
    }
  });
});

describe('a history new to the trace (a conversation resumed into a fresh tracer)', () => {
  it('records its JSON tool results as values, its text and error-json results as text', async () => {
    const tracer = createTracer();
    await generateText({
      model: wrapLanguageModel({
        model: scriptedModel([{ text: 'resumed' }]),
        middleware: tracewardenMiddleware({ tracer, pricing: false }),
      }),
      messages: [
        { role: 'user', content: 'weather and a note' },
        {
          role: 'assistant',
          content: [
            {
              type: 'tool-call',
              toolCallId: 'call_a',
              toolName: 'weather',
              input: { city: 'Oslo' },
            },
            { type: 'tool-call', toolCallId: 'call_b', toolName: 'note', input: { text: 'hi' } },
            { type: 'tool-call', toolCallId: 'call_c', toolName: 'save', input: {} },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'call_a',
              toolName: 'weather',
              output: { type: 'json', value: { city: 'Oslo', tempC: 3 } },
            },
            {
              type: 'tool-result',
              toolCallId: 'call_b',
              toolName: 'note',
              output: { type: 'text', value: 'hi' },
            },
            {
              type: 'tool-result',
              toolCallId: 'call_c',
              toolName: 'save',
              output: { type: 'error-json', value: { code: 'E_FULL', message: 'disk full' } },
            },
          ],
        },
      ],
    });
    expect(results(tracer)).toEqual([
      { call_id: 'call_a', output: { city: 'Oslo', tempC: 3 }, status: 'success' },
      { call_id: 'call_b', output: 'hi', status: 'success' },
      // a failed run is the error text the model reads, never the JSON value
      { call_id: 'call_c', output: '{"code":"E_FULL","message":"disk full"}', status: 'failure' },
    ]);
  });
});
