/**
 * The lowest supported `@langchain/core` (1.0.0, installed as `@langchain/core-lowest`): its
 * models, tools and callback manager drive the handler, which is built on the latest core.
 * LangChain finds handlers by duck typing (`isBaseCallbackHandler`), so one handler serves both.
 */
import { BaseChatModel } from '@langchain/core-lowest/language_models/chat_models';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core-lowest/messages';
import type { ChatResult } from '@langchain/core-lowest/outputs';
import { tool } from '@langchain/core-lowest/tools';
import { FakeListChatModel } from '@langchain/core-lowest/utils/testing';
import { createTracer, PolicyViolationError, parsePolicy } from '@tracewarden/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { conversationOf, expectSoundTrace, responses } from '../__fixtures__/trace-checks.js';
import { guardTools } from '../tools/index.js';
import { TracewardenCallbackHandler } from './tracewarden-callback-handler.js';

/** A chat model of core 1.0.0 answering from a script (1.0.0 has no `fakeModel()`). */
class ScriptedChatModel extends BaseChatModel {
  constructor(private readonly script: AIMessage[]) {
    super({});
  }
  _llmType(): string {
    return 'scripted';
  }
  async _generate(): Promise<ChatResult> {
    const message = this.script.shift();
    if (message === undefined) throw new Error('script exhausted');
    return {
      generations: [{ text: typeof message.content === 'string' ? message.content : '', message }],
    };
  }
}

const ran: string[] = [];
const weather = tool(
  async ({ city }: { city: string }) => {
    ran.push(city);
    return `Sunny in ${city}`;
  },
  {
    name: 'weather',
    description: 'Weather',
    schema: z.object({ city: z.string() }),
  },
);

function script(): AIMessage[] {
  return [
    new AIMessage({
      content: '',
      tool_calls: [{ name: 'weather', args: { city: 'Paris' }, id: 'call_low', type: 'tool_call' }],
    } as never),
    new AIMessage({ content: 'Sunny in Paris.' }),
  ];
}

describe('@langchain/core 1.0.0 (lowest supported)', () => {
  it('records a manual tool loop as one sound trace', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const model = new ScriptedChatModel(script());
    const messages: BaseMessage[] = [new SystemMessage('Be brief.'), new HumanMessage('Weather?')];
    for (let turn = 0; turn < 3; turn++) {
      const answer = await model.invoke(messages, { callbacks: [handler as never] });
      messages.push(answer);
      if (!answer.tool_calls?.length) break;
      for (const call of answer.tool_calls)
        messages.push(await weather.invoke(call, { callbacks: [handler as never] }));
    }
    await handler.flush();
    expectSoundTrace(tracer);
    expect(conversationOf(tracer)).toEqual([
      { role: 'system', content: 'Be brief.', thinks: [], tool_calls: [] },
      { role: 'user', content: 'Weather?', thinks: [], tool_calls: [] },
      {
        role: 'assistant',
        content: null,
        thinks: [],
        tool_calls: [
          {
            call_id: 'call_low',
            name: 'weather',
            arguments: { city: 'Paris' },
            results: ['Sunny in Paris'],
          },
        ],
      },
      { role: 'assistant', content: 'Sunny in Paris.', thinks: [], tool_calls: [] },
    ]);
  });

  it('streams with a first token time', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const model = new FakeListChatModel({ responses: ['hello'] });
    for await (const _ of await model.stream('Hi', { callbacks: [handler as never] })) {
      // read it all
    }
    await handler.flush();
    const [response] = responses(expectSoundTrace(tracer));
    expect(response?.metadata).toMatchObject({ stream: true, status: 'success' });
    expect(typeof response?.metadata.time_to_first_token_ms).toBe('number');
  });

  it('blocks a call the policy refuses before any tool runs', async () => {
    const tracer = createTracer();
    const policy = parsePolicy(`
raise "no weather" if:
    (call: ToolCall)
    call is tool:weather
`);
    const handler = new TracewardenCallbackHandler({ tracer, policy, pricing: false });
    const model = new ScriptedChatModel(script());
    const error = await model
      .invoke([new HumanMessage('Weather?')], { callbacks: [handler as never] })
      .catch((caught: unknown) => caught);
    expect(PolicyViolationError.isInstance(error)).toBe(true);
    expectSoundTrace(tracer);
  });

  it("refuses a blocked call's tool run in refuse mode, though 1.0.0 passes no call id", async () => {
    ran.length = 0;
    const tracer = createTracer();
    const policy = parsePolicy(`
raise "no weather" if:
    (call: ToolCall)
    call is tool:weather
`);
    const handler = new TracewardenCallbackHandler({
      tracer,
      policy,
      onPolicyViolation: 'refuse',
      pricing: false,
    });
    const model = new ScriptedChatModel(script());
    const answer = await model.invoke([new HumanMessage('Weather?')], {
      callbacks: [handler as never],
    });
    const call = answer.tool_calls?.[0];
    expect(call?.id).toBe('call_low');
    const error = await weather
      .invoke(call!, { callbacks: [handler as never] })
      .catch((caught: unknown) => caught);
    expect(PolicyViolationError.isInstance(error)).toBe(true);
    expect(ran).toEqual([]);
    const results = expectSoundTrace(tracer).filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results.map((block) => block.metadata.refused)).toEqual([true]);
  });

  it('checks a plain tool run against the policy, and still matches a proposed call without its id', async () => {
    ran.length = 0;
    const tracer = createTracer();
    const policy = parsePolicy(`
raise "no weather in Oslo" if:
    (call: ToolCall)
    call is tool:weather
    call.function.arguments.city == "Oslo"
`);
    const handler = new TracewardenCallbackHandler({ tracer, policy, pricing: false });
    const model = new ScriptedChatModel(script());
    const answer = await model.invoke([new HumanMessage('Weather?')], {
      callbacks: [handler as never],
    });
    // 1.0.0 passes no call id: the run is matched to the reviewed call by name and arguments
    await weather.invoke(answer.tool_calls![0]!, { callbacks: [handler as never] });
    const error = await weather
      .invoke({ city: 'Oslo' }, { callbacks: [handler as never] })
      .catch((caught: unknown) => caught);
    expect(PolicyViolationError.isInstance(error)).toBe(true);
    expect(ran).toEqual(['Paris']);
    const blocks = expectSoundTrace(tracer);
    const calls = blocks.filter((block) => block.sub_type === 'TOOL_CALL');
    expect(calls.map((block) => [block.payload.call_id, block.metadata.unlinked])).toEqual([
      ['call_low', undefined],
      [expect.any(String), true],
    ]);
    const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results.map((block) => block.metadata.status)).toEqual(['success', 'failure']);
  });

  it("records a model's call whose tool throws once, its failure under the call", async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const lookup = tool(
      async (_args: { q: string }): Promise<string> => {
        throw new TypeError('tool broke');
      },
      { name: 'lookup', description: 'Lookup', schema: z.object({ q: z.string() }) },
    );
    const model = new ScriptedChatModel([
      new AIMessage({
        content: '',
        tool_calls: [{ name: 'lookup', args: { q: 'x' }, id: 'c1', type: 'tool_call' }],
      } as never),
      new AIMessage({ content: 'The lookup failed.' }),
    ]);
    const messages: BaseMessage[] = [new HumanMessage('Look up x.')];
    const answer = await model.invoke(messages, { callbacks: [handler as never] });
    messages.push(answer);
    const call = answer.tool_calls![0]!;
    const error = await lookup
      .invoke(call, { callbacks: [handler as never] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    messages.push(
      new ToolMessage({ content: 'Error: tool broke', tool_call_id: 'c1', status: 'error' }),
    );
    await model.invoke(messages, { callbacks: [handler as never] });
    const blocks = expectSoundTrace(tracer);
    // 1.0.0 starts the run without the call id: it is read from the run's input
    const calls = blocks.filter((block) => block.sub_type === 'TOOL_CALL');
    expect(calls.map((block) => [block.payload.call_id, block.metadata.unlinked])).toEqual([
      ['c1', undefined],
    ]);
    const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results.map((block) => [block.payload.call_id, block.metadata.status])).toEqual([
      ['c1', 'failure'],
    ]);
  });

  it('does not guess which of two identical waiting calls a thrown tool answers', async () => {
    // the model repeats a call (c1, c2: the same tool and arguments); c2's run throws first, and
    // 1.0.0 gives neither its start nor its error a call id: taking c1 for it would drop c1's own
    // result, which names c1, when it comes
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    let runs = 0;
    const fetchUrl = tool(
      async ({ url }: { url: string }): Promise<string> => {
        const run = ++runs;
        await new Promise((resolve) => setTimeout(resolve, run === 1 ? 40 : 5));
        if (run === 2) throw new Error('second attempt failed');
        return `page ${url}`;
      },
      { name: 'fetch_url', description: 'Fetch', schema: z.object({ url: z.string() }) },
    );
    const model = new ScriptedChatModel([
      new AIMessage({
        content: '',
        tool_calls: [
          { name: 'fetch_url', args: { url: 'a.com' }, id: 'c1', type: 'tool_call' },
          { name: 'fetch_url', args: { url: 'a.com' }, id: 'c2', type: 'tool_call' },
        ],
      } as never),
      new AIMessage({ content: 'Done.' }),
    ]);
    const messages: BaseMessage[] = [new HumanMessage('Fetch a.com.')];
    const answer = await model.invoke(messages, { callbacks: [handler as never] });
    messages.push(answer);
    const read = await Promise.all(
      answer.tool_calls!.map((call) =>
        fetchUrl.invoke(call, { callbacks: [handler as never] }).catch(
          (error: Error) =>
            new ToolMessage({
              content: `Error: ${error.message}`,
              tool_call_id: call.id!,
              status: 'error',
            }),
        ),
      ),
    );
    messages.push(...read);
    await model.invoke(messages, { callbacks: [handler as never] });
    const blocks = expectSoundTrace(tracer);
    const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
    // c1's real output under c1; the failure, which names no call, not guessed onto either
    expect(
      results
        .filter((block) => block.payload.call_id === 'c1')
        .map((block) => [block.payload.output, block.metadata.status]),
    ).toEqual([['page a.com', 'success']]);
    const failure = results.find((block) => block.metadata.status === 'failure');
    expect(failure?.payload.call_id).not.toBe('c1');
    expect(failure?.payload.output).toContain('second attempt failed');
  });

  it('records a call without an id ("") once, with a policy, its result under it', async () => {
    ran.length = 0;
    const tracer = createTracer();
    const policy = parsePolicy(`
raise "no weather in Oslo" if:
    (call: ToolCall)
    call is tool:weather
    call.function.arguments.city == "Oslo"
`);
    const handler = new TracewardenCallbackHandler({ tracer, policy, pricing: false });
    const model = new ScriptedChatModel([
      new AIMessage({
        content: '',
        tool_calls: [{ name: 'weather', args: { city: 'Paris' }, id: '', type: 'tool_call' }],
      } as never),
      new AIMessage({ content: 'Sunny in Paris.' }),
    ]);
    const messages: BaseMessage[] = [new HumanMessage('Weather?')];
    const answer = await model.invoke(messages, { callbacks: [handler as never] });
    messages.push(answer);
    // with an empty call id LangChain returns the tool's output, not a ToolMessage
    const output = await weather.invoke(answer.tool_calls![0]!, { callbacks: [handler as never] });
    messages.push(new ToolMessage({ content: String(output), tool_call_id: '' }));
    await model.invoke(messages, { callbacks: [handler as never] });
    expect(ran).toEqual(['Paris']);
    expectSoundTrace(tracer);
    expect(conversationOf(tracer)).toEqual([
      { role: 'user', content: 'Weather?', thinks: [], tool_calls: [] },
      {
        role: 'assistant',
        content: null,
        thinks: [],
        tool_calls: [
          {
            call_id: expect.stringMatching(/^call_.+_1$/),
            name: 'weather',
            arguments: { city: 'Paris' },
            results: ['Sunny in Paris'],
          },
        ],
      },
      { role: 'assistant', content: 'Sunny in Paris.', thinks: [], tool_calls: [] },
    ]);
  });

  it('guardTools: a 1.0.0 tool keeps working, its result under the model call, a refusal as an error ToolMessage', async () => {
    ran.length = 0;
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const [guarded] = guardTools([weather], {
      tracer,
      rateLimit: { callsPerMinute: 1, burst: 1, sharedKey: 'lowest-core-guard-tools' },
    });
    const model = new ScriptedChatModel(script());
    const answer = await model.invoke([new HumanMessage('Weather?')], {
      callbacks: [handler as never],
    });
    const call = answer.tool_calls![0]!;
    const message = (await guarded.invoke(call, { callbacks: [handler as never] })) as ToolMessage;
    expect([message.content, message.tool_call_id, message.status]).toEqual([
      'Sunny in Paris',
      'call_low',
      'success',
    ]);
    const refused = (await guarded.invoke({ ...call, id: 'call_again' })) as ToolMessage;
    expect(refused.status).toBe('error');
    expect(ran).toEqual(['Paris']);
    const results = expectSoundTrace(tracer).filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results.map((block) => [block.payload.call_id, block.metadata.status])).toEqual([
      ['call_low', 'success'],
      [expect.any(String), 'rate_limited'],
    ]);
  });
});
