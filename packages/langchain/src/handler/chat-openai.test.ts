import {
  type AIMessage,
  type AIMessageChunk,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { createTracer, type Tracer } from '@tracewarden/core';
import { executeToolCalls, wrapOpenAI } from '@tracewarden/openai';
import { type ScriptedServer, startScriptedServer } from '@tracewarden/testing';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { conversationOf, expectSoundTrace, responses } from '../__fixtures__/trace-checks.js';
import { weather } from '../__fixtures__/weather-tools.js';
import { TracewardenCallbackHandler } from './tracewarden-callback-handler.js';

const turns = [
  {
    reasoning: 'I need the weather first.',
    toolCalls: [{ name: 'weather', arguments: { city: 'Paris' }, id: 'call_p' }],
    usage: { cachedTokens: 8 },
  },
  { reasoning: 'The tool says sunny.', text: 'It is sunny in Paris.' },
];

const expected = [
  { role: 'system', content: 'Be brief.', thinks: [], tool_calls: [] },
  { role: 'user', content: 'Weather in Paris?', thinks: [], tool_calls: [] },
  {
    role: 'assistant',
    content: null,
    thinks: ['I need the weather first.'],
    tool_calls: [
      {
        call_id: 'call_p',
        name: 'weather',
        arguments: { city: 'Paris' },
        results: ['Sunny in Paris'],
      },
    ],
  },
  {
    role: 'assistant',
    content: 'It is sunny in Paris.',
    thinks: ['The tool says sunny.'],
    tool_calls: [],
  },
];

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function runLoop(useResponsesApi: boolean, streamed: boolean): Promise<Tracer> {
  server = await startScriptedServer({ turns: [...turns] });
  const tracer = createTracer();
  const handler = new TracewardenCallbackHandler({ tracer });
  const model = new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'sk-test',
    configuration: { baseURL: server.url },
    useResponsesApi,
    maxRetries: 0,
  }).bindTools([weather]);
  const messages: BaseMessage[] = [
    new SystemMessage('Be brief.'),
    new HumanMessage('Weather in Paris?'),
  ];
  for (let turn = 0; turn < 4; turn++) {
    let answer: AIMessage | AIMessageChunk | undefined;
    if (streamed) {
      // .stream(): ChatOpenAI({ streaming: true }).invoke() needs the network for token counts
      for await (const chunk of await model.stream(messages, { callbacks: [handler] }))
        answer = answer === undefined ? chunk : (answer as AIMessageChunk).concat(chunk);
    } else answer = await model.invoke(messages, { callbacks: [handler] });
    if (answer === undefined) throw new Error('no answer');
    messages.push(answer);
    if (!answer.tool_calls?.length) break;
    for (const call of answer.tool_calls)
      messages.push(await weather.invoke(call, { callbacks: [handler] }));
  }
  return tracer;
}

describe('ChatOpenAI over HTTP (scripted server)', () => {
  for (const useResponsesApi of [false, true])
    for (const streamed of [false, true])
      it(`records ${useResponsesApi ? 'the Responses API' : 'chat completions'}, ${streamed ? 'streamed' : 'not streamed'}`, async () => {
        const tracer = await runLoop(useResponsesApi, streamed);
        const blocks = expectSoundTrace(tracer);
        expect(conversationOf(tracer)).toEqual(expected);
        const [first, second] = responses(blocks);
        expect(first?.metadata).toMatchObject({
          provider: 'openai',
          api: 'ChatOpenAI',
          model: 'gpt-4o-mini',
          status: 'success',
          stream: streamed,
          tools: ['weather'],
          usage: { cached_input_tokens: 8 },
        });
        expect(first?.metadata.cost).toMatchObject({ cost_usd: expect.any(Number) });
        expect(
          Number((first?.metadata.cost as { cost_usd?: unknown } | undefined)?.cost_usd),
        ).toBeGreaterThan(0);
        expect(typeof second?.metadata.response_id).toBe('string');
        // as wrapOpenAI records them: one vocabulary for both APIs, the provider's value beside it
        // (chat completions' finish_reason, the Responses API's status)
        expect(first?.metadata).toMatchObject({
          finish_reason: 'tool_calls',
          provider_finish_reason: useResponsesApi ? 'completed' : 'tool_calls',
        });
        expect(second?.metadata).toMatchObject({
          finish_reason: 'stop',
          provider_finish_reason: useResponsesApi ? 'completed' : 'stop',
        });
        if (streamed) expect(typeof first?.metadata.time_to_first_token_ms).toBe('number');
      });

  it('records the same stitched trace as wrapOpenAI for the same conversation', async () => {
    const viaLangChain = await runLoop(false, false);
    await server?.close();
    server = await startScriptedServer({ turns: [...turns] });
    const viaOpenAI = createTracer();
    const client = wrapOpenAI(
      new OpenAI({ baseURL: server.url, apiKey: 'sk-test', maxRetries: 0 }),
      {
        tracer: viaOpenAI,
      },
    );
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris?' },
    ];
    for (let turn = 0; turn < 4; turn++) {
      const completion = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        tools: [
          { type: 'function', function: { name: 'weather', parameters: { type: 'object' } } },
        ],
      });
      const message = completion.choices[0]!.message;
      messages.push(message);
      if (!message.tool_calls?.length) break;
      messages.push(
        ...(await executeToolCalls(message, {
          weather: (args) => `Sunny in ${String(args.city)}`,
        })),
      );
    }
    expectSoundTrace(viaOpenAI);
    expect(conversationOf(viaLangChain)).toEqual(conversationOf(viaOpenAI));
  });

  it('records an HTTP error with its status', async () => {
    server = await startScriptedServer({ turns: [{ fault: 429 }] });
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer });
    const model = new ChatOpenAI({
      model: 'gpt-4o-mini',
      apiKey: 'sk-test',
      configuration: { baseURL: server.url },
      maxRetries: 0,
    });
    await expect(model.invoke('Hi', { callbacks: [handler] })).rejects.toMatchObject({
      status: 429,
    });
    await handler.flush();
    const [response] = responses(expectSoundTrace(tracer));
    expect(response?.metadata).toMatchObject({ status: 'failure', error: { status: 429 } });
  });

  it('records an answer whose only call has invalid JSON arguments once, when re-sent', async () => {
    server = await startScriptedServer({
      turns: [
        { toolCalls: [{ id: 'c1', name: 'weather', arguments: '{"city": "Par' }] },
        { text: 'Sorry, that failed.' },
      ],
    });
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer });
    const model = new ChatOpenAI({
      model: 'gpt-4o-mini',
      apiKey: 'sk-test',
      configuration: { baseURL: server.url },
      maxRetries: 0,
    }).bindTools([weather]);
    const messages: BaseMessage[] = [new HumanMessage('Weather in Paris?')];
    const answer = await model.invoke(messages, { callbacks: [handler] });
    expect(answer.tool_calls).toEqual([]);
    expect(answer.invalid_tool_calls).toHaveLength(1);
    messages.push(
      answer,
      new ToolMessage({
        content: 'invalid arguments, send JSON',
        tool_call_id: 'c1',
        status: 'error',
      }),
    );
    await model.invoke(messages, { callbacks: [handler] });
    const blocks = expectSoundTrace(tracer);
    // two model calls, two assistant MESSAGEs: the re-sent answer is the recorded one
    expect(
      blocks.filter(
        (block) =>
          block.sub_type === 'MESSAGE' && (block.payload as { role: string }).role === 'assistant',
      ),
    ).toHaveLength(2);
    expect(conversationOf(tracer)).toEqual([
      { role: 'user', content: 'Weather in Paris?', thinks: [], tool_calls: [] },
      {
        role: 'assistant',
        content: null,
        thinks: [],
        tool_calls: [
          {
            call_id: 'c1',
            name: 'weather',
            arguments: {},
            results: ['invalid arguments, send JSON'],
          },
        ],
      },
      { role: 'assistant', content: 'Sorry, that failed.', thinks: [], tool_calls: [] },
    ]);
  });
});

describe("ChatOpenAI's hosted tools (Responses API, scripted server)", () => {
  for (const streamed of [false, true])
    it(`records the calls OpenAI ran, with their results, ${streamed ? 'streamed' : 'not streamed'}`, async () => {
      server = await startScriptedServer({
        turns: [
          {
            hostedItems: [
              {
                type: 'web_search_call',
                id: 'ws_1',
                status: 'completed',
                action: { type: 'search', query: 'weather in Paris' },
              },
              {
                type: 'mcp_call',
                id: 'mcp_1',
                server_label: 'crm',
                name: 'lookup_customer',
                arguments: '{"email":"ana@example.com"}',
                output: null,
                error: 'not found',
              },
            ],
            text: 'Sunny.',
          },
        ],
      });
      const tracer = createTracer();
      const model = new ChatOpenAI({
        model: 'gpt-4o-mini',
        apiKey: 'sk-test',
        configuration: { baseURL: server.url },
        useResponsesApi: true,
        maxRetries: 0,
      });
      const input = [new HumanMessage('Weather in Paris?')];
      const options = { callbacks: [new TracewardenCallbackHandler({ tracer })] };
      if (streamed) for await (const _chunk of await model.stream(input, options));
      else await model.invoke(input, options);
      const blocks = expectSoundTrace(tracer);
      const answer = blocks.find(
        (block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant',
      );
      expect(answer?.payload.content).toBe('Sunny.');
      const calls = blocks.filter((block) => block.sub_type === 'TOOL_CALL');
      expect(
        calls.map((call) => [call.parent_block_id, call.payload, call.metadata.provider_executed]),
      ).toEqual([
        [
          answer?.id,
          {
            call_id: 'ws_1',
            name: 'web_search',
            arguments: { type: 'search', query: 'weather in Paris' },
          },
          true,
        ],
        [
          answer?.id,
          { call_id: 'mcp_1', name: 'lookup_customer', arguments: { email: 'ana@example.com' } },
          true,
        ],
      ]);
      const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
      expect(
        results.map((result) => [
          result.parent_block_id,
          result.metadata.status,
          result.payload.output,
        ]),
      ).toEqual([
        [calls[0]?.id, 'success', { status: 'completed' }],
        [calls[1]?.id, 'failure', 'not found'],
      ]);
    });
});

/** A ChatOpenAI over the scripted server, without retries. */
function scriptedChatOpenAI(url: string, fields: { timeout?: number } = {}): ChatOpenAI {
  return new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'sk-test',
    configuration: { baseURL: url },
    maxRetries: 0,
    ...fields,
  });
}

describe('ChatOpenAI with its own timeout', () => {
  it('records the call as timed out, as wrapOpenAI records the OpenAI SDK’s timeout', async () => {
    server = await startScriptedServer({
      turns: [{ text: 'late', fault: { type: 'slow-first-byte', delayMs: 400 } }],
    });
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const model = scriptedChatOpenAI(server.url, { timeout: 50 });
    await expect(model.invoke('Hi', { callbacks: [handler] })).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    const [response] = responses(expectSoundTrace(tracer));
    expect(response?.metadata.status).toBe('timeout');
  });
});

describe('a tool call whose arguments are not JSON', () => {
  it('keeps the model’s order of calls, as wrapOpenAI records it', async () => {
    server = await startScriptedServer({
      turns: [
        {
          toolCalls: [
            { name: 'weather', arguments: '{"city": "Par', id: 'call_bad' },
            { name: 'weather', arguments: { city: 'Oslo' }, id: 'call_ok' },
          ],
        },
      ],
    });
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, pricing: false });
    const model = scriptedChatOpenAI(server.url).bindTools([weather]);
    const answer = await model.invoke('Weather?', { callbacks: [handler] });
    // LangChain splits them: the parsed call, then the one that did not parse
    expect(answer.tool_calls?.map((call) => call.id)).toEqual(['call_ok']);
    expect(answer.invalid_tool_calls?.map((call) => call.id)).toEqual(['call_bad']);
    const calls = expectSoundTrace(tracer).filter((block) => block.sub_type === 'TOOL_CALL');
    expect(calls.map((block) => block.payload.call_id)).toEqual(['call_bad', 'call_ok']);
  });
});
