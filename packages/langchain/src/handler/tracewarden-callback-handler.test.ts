import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
} from '@langchain/core/messages';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { createTracer, guard, withTrace } from '@tracewarden/core';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { conversationOf, expectSoundTrace, responses } from '../__fixtures__/trace-checks.js';
import { aiMessage, ran, weather } from '../__fixtures__/weather-tools.js';
import { TracewardenCallbackHandler } from './tracewarden-callback-handler.js';

const usage = {
  input_tokens: 20,
  output_tokens: 5,
  total_tokens: 25,
  input_token_details: { cache_read: 8 },
  output_token_details: { reasoning: 2 },
};

function weatherModel() {
  return fakeModel()
    .respond(
      aiMessage({
        content: '',
        tool_calls: [{ name: 'weather', args: { city: 'Paris' }, id: 'call_1', type: 'tool_call' }],
      }),
    )
    .respond(
      aiMessage({
        content: [
          { type: 'reasoning', reasoning: 'The tool said sunny.' },
          { type: 'text', text: 'Sunny in Paris.' },
        ],
        usage_metadata: usage,
        response_metadata: { model_name: 'fake-1', finish_reason: 'stop' },
      }),
    );
}

/** A manual tool loop: model, tools, model, until the model stops calling tools. */
async function loop(
  invoke: (messages: BaseMessage[]) => Promise<AIMessage>,
  runTool: (call: NonNullable<AIMessage['tool_calls']>[number]) => Promise<BaseMessage>,
): Promise<BaseMessage[]> {
  const messages: BaseMessage[] = [
    new SystemMessage('Be brief.'),
    new HumanMessage('Weather in Paris?'),
  ];
  for (let turn = 0; turn < 5; turn++) {
    const answer = await invoke(messages);
    messages.push(answer);
    if (!answer.tool_calls?.length) break;
    for (const call of answer.tool_calls) messages.push(await runTool(call));
  }
  return messages;
}

const expectedConversation = [
  { role: 'system', content: 'Be brief.', thinks: [], tool_calls: [] },
  { role: 'user', content: 'Weather in Paris?', thinks: [], tool_calls: [] },
  {
    role: 'assistant',
    content: null,
    thinks: [],
    tool_calls: [
      {
        call_id: 'call_1',
        name: 'weather',
        arguments: { city: 'Paris' },
        results: ['Sunny in Paris'],
      },
    ],
  },
  {
    role: 'assistant',
    content: 'Sunny in Paris.',
    thinks: ['The tool said sunny.'],
    tool_calls: [],
  },
];

beforeEach(() => {
  ran.length = 0;
});

describe('TracewardenCallbackHandler with fakeModel', () => {
  it('records a manual tool loop with the handler per call as one trace', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const model = weatherModel().bindTools([weather]);
    const config = { callbacks: [handler], tags: ['t1'], metadata: { userId: 'u1' } };
    await loop(
      (messages) => model.invoke(messages, config),
      (call) => weather.invoke(call, config),
    );
    await handler.flush();
    const blocks = expectSoundTrace(tracer);
    expect(conversationOf(tracer)).toEqual(expectedConversation);
    const [first, second] = responses(blocks);
    expect(first?.metadata).toMatchObject({
      provider: 'FakeBuiltModel',
      api: 'FakeBuiltModel',
      status: 'success',
      stream: false,
      langchain: { tags: ['t1'], metadata: { userId: 'u1' } },
    });
    expect(second?.metadata).toMatchObject({
      model: 'fake-1',
      finish_reason: 'stop',
      usage: {
        input_tokens: 20,
        output_tokens: 5,
        total_tokens: 25,
        cached_input_tokens: 8,
        reasoning_tokens: 2,
      },
    });
    const result = blocks.find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.metadata).toMatchObject({ status: 'success', tool_name: 'weather' });
    expect(ran).toEqual(['weather:Paris']);
  });

  it('records the same trace with the handler in the model constructor and on the tool', async () => {
    const handler = new TracewardenCallbackHandler({ pricing: false });
    const model = weatherModel();
    // (not bindTools: fakeModel's makes a new model without these callbacks, so its model calls
    // went unrecorded and the tool run alone was taken into the previous test's trace)
    model.callbacks = [handler];
    weather.callbacks = [handler];
    try {
      await loop(
        (messages) => model.invoke(messages),
        (call) => weather.invoke(call),
      );
    } finally {
      weather.callbacks = [];
    }
    await handler.flush();
    // one top-level run per call, one trace: each run continues the conversation it answers
    expect(handler.tracers).toHaveLength(1);
    const tracer = handler.tracers[0]!;
    expectSoundTrace(tracer);
    expect(conversationOf(tracer)).toEqual(expectedConversation);
  });
});

describe('a core guard() inside a plain tool, with the handler', () => {
  // the handler only observes the tool run (README): the tool hands the guard the call id
  it("records under the model's call, once, given the tool call's id", async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const forecast = guard(async (city: string) => `Sunny in ${city}`, { name: 'forecast' });
    const plain = tool(
      async ({ city }: { city: string }, config) =>
        forecast.invoke({ callId: config.toolCall?.id }, city),
      { name: 'weather', description: 'Weather of a city', schema: z.object({ city: z.string() }) },
    );
    const model = weatherModel().bindTools([plain]);
    const config = { callbacks: [handler] };
    await withTrace(tracer, () =>
      loop(
        (messages) => model.invoke(messages, config),
        (call) => plain.invoke(call, config),
      ),
    );
    await handler.flush();
    const blocks = expectSoundTrace(tracer);
    expect(blocks.filter((block) => block.sub_type === 'TOOL_CALL')).toHaveLength(1);
    const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results).toHaveLength(1);
    expect(results[0]?.payload).toMatchObject({ call_id: 'call_1', output: 'Sunny in Paris' });
    expect(results[0]?.metadata).toMatchObject({ guard: { attempts: [{ attempt: 1 }] } });
  });

  it("records an aborted tool run in an agent's node without the node's wording", async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const slow = tool(
      (_args: { city: string }) =>
        new Promise<string>((resolve) => setTimeout(resolve, 200, 'late')),
      { name: 'slow', description: 'Slow', schema: z.object({ city: z.string() }) },
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const error = await slow
      .invoke(
        { type: 'tool_call', id: 'call_slow', name: 'slow', args: { city: 'Paris' } },
        {
          callbacks: [handler],
          signal: controller.signal,
          // as an agent's tool node runs it
          metadata: { langgraph_node: 'tools' },
        },
      )
      .catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('AbortError');
    const result = tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.payload.call_id).toBe('call_slow');
    // the model never read the tool node's error text: the agent rejected
    expect(result?.payload.output).not.toContain('Please fix your mistakes.');
    expect(result?.metadata).toMatchObject({ status: 'failure', error: { type: 'AbortError' } });
  });

  it("records LangChain's Aborted (a signal aborted with no error as its reason) as an abort", async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const slow = tool(
      (_args: { city: string }) =>
        new Promise<string>((resolve) => setTimeout(resolve, 200, 'late')),
      { name: 'slow', description: 'Slow', schema: z.object({ city: z.string() }) },
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(42), 10);
    const error = await slow
      .invoke(
        { type: 'tool_call', id: 'call_slow_42', name: 'slow', args: { city: 'Paris' } },
        { callbacks: [handler], signal: controller.signal, metadata: { langgraph_node: 'tools' } },
      )
      .catch((caught: unknown) => caught);
    expect((error as Error).message).toBe('Aborted');
    const result = tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.payload.output).not.toContain('Please fix your mistakes.');
  });

  it("records a tool's own Error('Aborted') in an agent's node as the node's wording", async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    // the tool's own failure (an upstream API said "Aborted"): the run was not aborted, and the
    // agent's tool node answers the model with its error text
    const upstream = tool(
      async (_args: { city: string }): Promise<string> => {
        throw new Error('Aborted');
      },
      { name: 'upstream', description: 'Upstream', schema: z.object({ city: z.string() }) },
    );
    await upstream
      .invoke(
        { type: 'tool_call', id: 'call_upstream', name: 'upstream', args: { city: 'Paris' } },
        { callbacks: [handler], metadata: { langgraph_node: 'tools' } },
      )
      .catch(() => undefined);
    const result = tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.payload.call_id).toBe('call_upstream');
    expect(result?.payload.output).toContain('Please fix your mistakes.');
  });

  it("takes the run's aborted signal over the error's shape", async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const controller = new AbortController();
    // a tool that notices the abort itself and fails with an error of its own
    const watching = tool(
      async (_args: { city: string }): Promise<string> => {
        controller.abort();
        throw new Error('connection reset');
      },
      { name: 'watching', description: 'Watching', schema: z.object({ city: z.string() }) },
    );
    // run inside a runnable whose config (in LangChain's context, as `@langchain/core/context`
    // or LangGraph sets it up) carries the signal
    AsyncLocalStorageProviderSingleton.initializeGlobalInstance(new AsyncLocalStorage());
    await AsyncLocalStorageProviderSingleton.runWithConfig(
      { signal: controller.signal, callbacks: [handler], metadata: { langgraph_node: 'tools' } },
      () =>
        watching.invoke(
          { type: 'tool_call', id: 'call_watching', name: 'watching', args: { city: 'Paris' } },
          { callbacks: [handler], metadata: { langgraph_node: 'tools' } },
        ),
    ).catch(() => undefined);
    const result = tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.payload.call_id).toBe('call_watching');
    expect(result?.payload.output).not.toContain('Please fix your mistakes.');
  });

  it('says two handler instances, not the middleware, record an answer twice', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const tracer = createTracer();
      // one handler in the model's constructor (a library's), another passed per call
      const model = weatherModel();
      model.callbacks = [new TracewardenCallbackHandler({ tracer, pricing: false })];
      await model.invoke([new HumanMessage('Weather in Paris?')], {
        callbacks: [new TracewardenCallbackHandler({ tracer, pricing: false })],
      });
      const doubles = warn.mock.calls.filter(
        ([, options]) =>
          (options as { code?: string } | undefined)?.code === 'TRACEWARDEN_DOUBLE_RECORDING',
      );
      expect(doubles).toHaveLength(1);
      const text = String(doubles[0]?.[0]);
      expect(text).toContain('two TracewardenCallbackHandler instances');
      expect(text).not.toContain('tracewardenAgentMiddleware');
    } finally {
      warn.mockRestore();
    }
  });
});
