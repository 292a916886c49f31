import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { startScriptedServer } from '../server/start-scripted-server.js';

const messages = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];

function clientFor(url: string): OpenAI {
  return new OpenAI({ baseURL: url, apiKey: 'test', maxRetries: 0 });
}

type ReasoningDelta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string };

describe('chat completions', () => {
  it('answers a text turn with scripted usage and reasoning_content', async () => {
    await using server = await startScriptedServer({
      turns: [
        {
          text: 'Sunny.',
          reasoning: 'Check the forecast.',
          usage: { inputTokens: 120, outputTokens: 30, cachedTokens: 64, reasoningTokens: 12 },
        },
      ],
    });
    const completion = await clientFor(server.url).chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
    });
    expect(completion).toMatchObject({
      id: 'chatcmpl-scripted1',
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          logprobs: null,
          message: {
            role: 'assistant',
            content: 'Sunny.',
            refusal: null,
            reasoning_content: 'Check the forecast.',
          },
        },
      ],
      usage: {
        prompt_tokens: 120,
        completion_tokens: 30,
        total_tokens: 150,
        prompt_tokens_details: { cached_tokens: 64 },
        completion_tokens_details: { reasoning_tokens: 12 },
      },
    });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(typeof completion.created).toBe('number');
  });

  it('estimates usage deterministically when it is not scripted', async () => {
    await using server = await startScriptedServer({
      turns: [{ text: 'Sunny today.' }, { text: 'Sunny today.' }],
    });
    const client = clientFor(server.url);
    const first = await client.chat.completions.create({ model: 'm', messages });
    const second = await client.chat.completions.create({ model: 'm', messages });
    expect(first.usage).toEqual(second.usage);
    expect(first.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(first.usage?.completion_tokens).toBe(3);
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(first.usage?.completion_tokens_details?.reasoning_tokens).toBe(0);
  });

  it('streams chunks ending with the finish reason and no usage unless asked', async () => {
    await using server = await startScriptedServer({
      turns: [{ text: 'Sunny and warm.' }],
      chunkSize: 3,
    });
    const stream = await clientFor(server.url).chat.completions.create({
      model: 'm',
      messages,
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '', refusal: null });
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Sunny and warm.');
    expect(chunks.length).toBe(1 + 5 + 1);
    expect(chunks.at(-1)?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set(['chatcmpl-scripted1']));
    expect(chunks.every((chunk) => !('usage' in chunk))).toBe(true);
  });

  it('sends usage in a final chunk with no choices when include_usage is set', async () => {
    await using server = await startScriptedServer({
      turns: [{ text: 'Sunny.', reasoning: 'Hmm.', usage: { cachedTokens: 8 } }],
    });
    const stream = await clientFor(server.url).chat.completions.create({
      model: 'm',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({
      prompt_tokens_details: { cached_tokens: 8 },
      completion_tokens_details: { reasoning_tokens: 1 },
    });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    const reasoning = chunks
      .map((chunk) => (chunk.choices[0]?.delta as ReasoningDelta | undefined)?.reasoning_content)
      .join('');
    expect(reasoning).toBe('Hmm.');
  });

  it('works with the stream helper and finalChatCompletion', async () => {
    await using server = await startScriptedServer({ turns: [{ text: 'Sunny and warm.' }] });
    const runner = clientFor(server.url).chat.completions.stream({ model: 'm', messages });
    const deltas: string[] = [];
    runner.on('content', (delta) => deltas.push(delta));
    const completion = await runner.finalChatCompletion();
    expect(completion.choices[0]?.message.content).toBe('Sunny and warm.');
    expect(deltas.join('')).toBe('Sunny and warm.');
  });

  it('returns tool calls with call ids and JSON string arguments', async () => {
    await using server = await startScriptedServer({
      turns: [
        {
          toolCalls: [
            { name: 'get_weather', arguments: { city: 'Paris' } },
            { name: 'get_time', arguments: '{"zone":"CET"}', id: 'call_custom' },
          ],
        },
      ],
    });
    const completion = await clientFor(server.url).chat.completions.create({
      model: 'm',
      messages,
    });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls).toEqual([
      {
        id: 'call_scripted1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
      {
        id: 'call_custom',
        type: 'function',
        function: { name: 'get_time', arguments: '{"zone":"CET"}' },
      },
    ]);
  });

  it('streams tool calls with id and name first and arguments split across chunks', async () => {
    await using server = await startScriptedServer({
      turns: [
        {
          toolCalls: [
            { name: 'get_weather', arguments: { city: 'Paris' } },
            { name: 'get_time', arguments: { zone: 'CET' } },
          ],
        },
      ],
    });
    const stream = await clientFor(server.url).chat.completions.create({
      model: 'm',
      messages,
      stream: true,
    });
    const deltas: ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    let finishReason: string | null | undefined;
    for await (const chunk of stream) {
      deltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
    }
    const first = deltas.filter((delta) => delta.index === 0);
    expect(first[0]).toEqual({
      index: 0,
      id: 'call_scripted1',
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    expect(first.slice(1).every((delta) => delta.id === undefined)).toBe(true);
    expect(first.length).toBeGreaterThan(2);
    expect(first.map((delta) => delta.function?.arguments ?? '').join('')).toBe('{"city":"Paris"}');
    expect(deltas.filter((delta) => delta.index === 1)[0]?.function?.name).toBe('get_time');
    expect(finishReason).toBe('tool_calls');
  });

  it('gives the stream helper the same tool calls as the non-streaming answer', async () => {
    const turn = {
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' }, id: 'call_1' }],
    };
    await using server = await startScriptedServer({ turns: [turn, turn] });
    const client = clientFor(server.url);
    const plain = await client.chat.completions.create({ model: 'm', messages });
    const streamed = await client.chat.completions
      .stream({ model: 'm', messages })
      .finalChatCompletion();
    expect(streamed.choices[0]?.message.tool_calls).toEqual(plain.choices[0]?.message.tool_calls);
    expect(streamed.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('runs a tool loop with runTools', async () => {
    await using server = await startScriptedServer({
      turns: [
        { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
        { text: 'It is sunny in Paris.' },
      ],
    });
    const runner = clientFor(server.url).chat.completions.runTools({
      model: 'm',
      messages,
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
            function: (args: { city: string }) => `sunny in ${args.city}`,
            parse: (text: string) => JSON.parse(text) as { city: string },
          },
        },
      ],
    });
    expect(await runner.finalContent()).toBe('It is sunny in Paris.');
    expect(server.requests[1]?.body?.messages).toContainEqual({
      role: 'tool',
      tool_call_id: 'call_scripted1',
      content: 'sunny in Paris',
    });
  });

  it('reports a scripted finish reason', async () => {
    await using server = await startScriptedServer({
      turns: [{ text: 'Sunny and', finishReason: 'length' }],
    });
    const completion = await clientFor(server.url).chat.completions.create({
      model: 'm',
      messages,
    });
    expect(completion.choices[0]?.finish_reason).toBe('length');
  });

  it('answers a custom tool call as the real API does, in a message and in chunks', async () => {
    const turn = {
      text: 'Patching.',
      toolCalls: [
        {
          type: 'custom' as const,
          id: 'call_p',
          name: 'apply_patch',
          arguments: '*** Begin Patch\n"x"',
        },
        { name: 'get_weather', arguments: { city: 'Paris' } },
      ],
    };
    await using server = await startScriptedServer({ turns: [turn, turn, turn], chunkSize: 5 });
    const client = clientFor(server.url);
    const completion = await client.chat.completions.create({ model: 'm', messages });
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      {
        id: 'call_p',
        type: 'custom',
        custom: { name: 'apply_patch', input: '*** Begin Patch\n"x"' },
      },
      {
        id: 'call_scripted1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
    ]);
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');

    const stream = await client.chat.completions.create({ model: 'm', messages, stream: true });
    const pieces: ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    for await (const chunk of stream) pieces.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    expect(pieces[0]).toEqual({
      index: 0,
      id: 'call_p',
      type: 'custom',
      custom: { name: 'apply_patch', input: '' },
    });
    const custom = pieces.filter((piece) => piece.index === 0).slice(1);
    expect(
      custom.every((piece) => piece.custom !== undefined && piece.function === undefined),
    ).toBe(true);
    expect(custom.map((piece) => piece.custom?.input).join('')).toBe('*** Begin Patch\n"x"');
    expect(custom.length).toBeGreaterThan(1);

    // the SDK's own stream helper assembles the custom call
    const helper = client.chat.completions.stream({ model: 'm', messages });
    const final = await helper.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      id: 'call_p',
      type: 'custom',
      custom: { name: 'apply_patch', input: '*** Begin Patch\n"x"' },
    });
  });

  it('answers a built-in tool call as a function call named after its type (chat has none)', async () => {
    const turn = {
      toolCalls: [{ type: 'shell' as const, id: 'call_sh', arguments: { commands: ['ls'] } }],
    };
    await using server = await startScriptedServer({ turns: [turn] });
    const completion = await clientFor(server.url).chat.completions.create({
      model: 'm',
      messages,
    });
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      {
        id: 'call_sh',
        type: 'function',
        function: { name: 'shell', arguments: '{"commands":["ls"]}' },
      },
    ]);
  });
});
