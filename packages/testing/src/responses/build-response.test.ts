import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { startScriptedServer } from '../server/start-scripted-server.js';

function clientFor(url: string): OpenAI {
  return new OpenAI({ baseURL: url, apiKey: 'test', maxRetries: 0 });
}

const weatherTurn = {
  reasoning: 'The user asks for the weather.',
  text: 'Let me check.',
  toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
  usage: { inputTokens: 200, outputTokens: 40, cachedTokens: 128, reasoningTokens: 16 },
};

describe('responses', () => {
  it('answers with reasoning, message and function call items and full usage', async () => {
    await using server = await startScriptedServer({ turns: [weatherTurn] });
    const response = await clientFor(server.url).responses.create({
      model: 'gpt-5-mini',
      input: 'Weather in Paris?',
      instructions: 'Be brief.',
    });
    expect(response).toMatchObject({
      id: 'resp_scripted1',
      object: 'response',
      status: 'completed',
      model: 'gpt-5-mini',
      instructions: 'Be brief.',
      output: [
        {
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: 'The user asks for the weather.' }],
        },
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }],
        },
        {
          type: 'function_call',
          call_id: 'call_scripted1',
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
        },
      ],
      usage: {
        input_tokens: 200,
        input_tokens_details: { cached_tokens: 128 },
        output_tokens: 40,
        output_tokens_details: { reasoning_tokens: 16 },
        total_tokens: 240,
      },
    });
    expect(response.output_text).toBe('Let me check.');
  });

  it('has an empty output_text for a tool-call-only response', async () => {
    await using server = await startScriptedServer({
      turns: [{ toolCalls: [{ name: 'get_inbox', arguments: {}, id: 'call_inbox' }] }],
    });
    const response = await clientFor(server.url).responses.create({ model: 'm', input: 'x' });
    expect(response.output_text).toBe('');
    expect(response.output).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'call_inbox', arguments: '{}' }),
    ]);
  });

  it('streams typed events in order with consecutive sequence numbers', async () => {
    await using server = await startScriptedServer({ turns: [weatherTurn], chunkSize: 5 });
    const stream = await clientFor(server.url).responses.create({
      model: 'm',
      input: 'Weather in Paris?',
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);

    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const types = [...new Set(events.map((event) => event.type))];
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.completed',
    ]);
    const text = (type: string): string =>
      events
        .flatMap((event) => (event.type === type && 'delta' in event ? [event.delta] : []))
        .join('');
    expect(text('response.output_text.delta')).toBe('Let me check.');
    expect(text('response.reasoning_summary_text.delta')).toBe('The user asks for the weather.');
    expect(text('response.function_call_arguments.delta')).toBe('{"city":"Paris"}');
    const created = events[0];
    expect(created?.type === 'response.created' && created.response.status).toBe('in_progress');
    const completed = events.at(-1);
    expect(completed?.type === 'response.completed' && completed.response.usage).toMatchObject({
      input_tokens_details: { cached_tokens: 128 },
      output_tokens_details: { reasoning_tokens: 16 },
    });
  });

  it('sends event lines with each data line and no [DONE]', async () => {
    await using server = await startScriptedServer({ turns: [{ text: 'Hi' }] });
    const response = await fetch(`${server.url}/responses`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', input: 'x', stream: true }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const body = await response.text();
    const messages = body.split('\n\n').filter((message) => message !== '');
    for (const message of messages) {
      const [eventLine, dataLine] = message.split('\n');
      const data = JSON.parse(dataLine?.slice('data: '.length) ?? '') as { type: string };
      expect(eventLine).toBe(`event: ${data.type}`);
    }
    expect(body).not.toContain('[DONE]');
  });

  it('works with responses.stream and finalResponse', async () => {
    await using server = await startScriptedServer({ turns: [weatherTurn] });
    const stream = clientFor(server.url).responses.stream({ model: 'm', input: 'x' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const response = await stream.finalResponse();
    expect(deltas.join('')).toBe('Let me check.');
    expect(response.output_text).toBe('Let me check.');
    expect(response.output.map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
    ]);
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(16);
  });

  it('gives the same final response streamed or not', async () => {
    const turn = {
      ...weatherTurn,
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' }, id: 'call_1' }],
    };
    await using server = await startScriptedServer({ turns: [turn, turn] });
    const client = clientFor(server.url);
    const plain = await client.responses.create({ model: 'm', input: 'x' });
    const streamed = await client.responses.stream({ model: 'm', input: 'x' }).finalResponse();
    const comparable = (response: typeof plain) =>
      JSON.parse(
        JSON.stringify({
          ...response,
          id: '',
          // each reply's own clock: two replies may fall in different seconds
          created_at: 0,
          completed_at: response.completed_at === null ? null : 0,
          output: response.output.map(({ id, ...item }) => item),
        }),
      );
    expect(comparable(streamed)).toMatchObject(comparable(plain));
  });

  it('ends as incomplete when the finish reason is length', async () => {
    const turn = { text: 'Sunny and', finishReason: 'length' as const };
    await using server = await startScriptedServer({ turns: [turn, turn] });
    const client = clientFor(server.url);
    const response = await client.responses.create({ model: 'm', input: 'x' });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    const stream = await client.responses.create({ model: 'm', input: 'x', stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe('response.incomplete');
  });

  it('echoes the tools of the request', async () => {
    await using server = await startScriptedServer({ turns: [{ text: 'ok' }] });
    const tools = [
      {
        type: 'function' as const,
        name: 'get_weather',
        parameters: { type: 'object', properties: {} },
        strict: false,
      },
    ];
    const response = await clientFor(server.url).responses.create({
      model: 'm',
      input: 'x',
      tools,
    });
    expect(response.tools).toEqual(tools);
  });

  it('answers a custom tool call with a custom_tool_call item and its input events', async () => {
    const turn = {
      toolCalls: [
        {
          type: 'custom' as const,
          id: 'call_p',
          name: 'apply_patch',
          arguments: '*** Begin Patch\n"x"',
        },
      ],
    };
    await using server = await startScriptedServer({ turns: [turn, turn, turn], chunkSize: 5 });
    const client = clientFor(server.url);
    const response = await client.responses.create({ model: 'm', input: 'x' });
    expect(response.output).toEqual([
      {
        id: 'ctc_scripted1_0',
        type: 'custom_tool_call',
        call_id: 'call_p',
        name: 'apply_patch',
        input: '*** Begin Patch\n"x"',
      },
    ]);

    const stream = await client.responses.create({ model: 'm', input: 'x', stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const added = events[2] as { item: { type: string; input: string } };
    expect(added.item).toMatchObject({ type: 'custom_tool_call', input: '' });
    const deltas = events.filter((event) => event.type === 'response.custom_tool_call_input.delta');
    expect(deltas.map((event) => event.delta).join('')).toBe('*** Begin Patch\n"x"');
    expect(deltas[0]).toMatchObject({ item_id: 'ctc_scripted2_0', output_index: 0 });
    expect(events.at(-2)).toMatchObject({
      item: { type: 'custom_tool_call', call_id: 'call_p', input: '*** Begin Patch\n"x"' },
    });

    // the SDK's own stream helper assembles the item
    const helper = client.responses.stream({ model: 'm', input: 'x' });
    const final = await helper.finalResponse();
    expect(final.output[0]).toMatchObject({
      type: 'custom_tool_call',
      input: '*** Begin Patch\n"x"',
    });
  });

  it('answers the built-in tools the developer runs with their call items', async () => {
    const turn = {
      toolCalls: [
        { type: 'shell' as const, id: 'call_sh', arguments: { commands: ['ls -la', 'pwd'] } },
        {
          type: 'local_shell' as const,
          id: 'call_lsh',
          arguments: { command: ['ls'], working_directory: '/tmp' },
        },
        {
          type: 'apply_patch' as const,
          id: 'call_ap',
          arguments: { type: 'update_file', path: 'a.ts', diff: '@@\n-a\n+b' },
        },
        {
          type: 'computer' as const,
          id: 'call_cu',
          arguments: { type: 'click', button: 'left', x: 1, y: 2 },
        },
      ],
    };
    await using server = await startScriptedServer({ turns: [turn, turn, turn], chunkSize: 3 });
    const client = clientFor(server.url);
    const tools = [{ type: 'shell' as const }, { type: 'apply_patch' as const }];
    const response = await client.responses.create({ model: 'm', input: 'x', tools });
    expect(response.output).toEqual([
      {
        id: 'sh_scripted1_0',
        type: 'shell_call',
        status: 'completed',
        call_id: 'call_sh',
        action: { commands: ['ls -la', 'pwd'], timeout_ms: null, max_output_length: null },
        environment: null,
      },
      {
        id: 'lsh_scripted1_1',
        type: 'local_shell_call',
        status: 'completed',
        call_id: 'call_lsh',
        action: { type: 'exec', env: {}, command: ['ls'], working_directory: '/tmp' },
      },
      {
        id: 'apc_scripted1_2',
        type: 'apply_patch_call',
        status: 'completed',
        call_id: 'call_ap',
        operation: { type: 'update_file', path: 'a.ts', diff: '@@\n-a\n+b' },
      },
      {
        id: 'cu_scripted1_3',
        type: 'computer_call',
        status: 'completed',
        call_id: 'call_cu',
        pending_safety_checks: [],
        action: { type: 'click', button: 'left', x: 1, y: 2 },
      },
    ]);

    const stream = await client.responses.create({ model: 'm', input: 'x', tools, stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.shell_call_command.added',
      'response.shell_call_command.delta',
      'response.shell_call_command.delta',
      'response.shell_call_command.done',
      'response.shell_call_command.added',
      'response.shell_call_command.delta',
      'response.shell_call_command.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.output_item.done',
      'response.output_item.added',
      'response.output_item.done',
      'response.output_item.added',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[2]).toMatchObject({
      output_index: 0,
      item: { type: 'shell_call', status: 'in_progress', action: { commands: [] } },
    });
    const deltas = events.filter((event) => event.type === 'response.shell_call_command.delta');
    expect(deltas.map((event) => event.delta).join('')).toBe('ls -lapwd');
    expect(deltas[2]).toMatchObject({ command_index: 1, output_index: 0 });
    expect(events[10]).toMatchObject({
      type: 'response.output_item.done',
      output_index: 0,
      item: { type: 'shell_call', action: { commands: ['ls -la', 'pwd'] } },
    });
    expect(events.at(-2)).toMatchObject({
      output_index: 3,
      item: { type: 'computer_call', call_id: 'call_cu', action: { type: 'click' } },
    });

    // the SDK's own stream helper assembles the shell call from its command events
    const helper = client.responses.stream({ model: 'm', input: 'x', tools });
    const final = await helper.finalResponse();
    expect(final.output.map((item) => item.type)).toEqual([
      'shell_call',
      'local_shell_call',
      'apply_patch_call',
      'computer_call',
    ]);
    expect(final.output[0]).toMatchObject({ action: { commands: ['ls -la', 'pwd'] } });
  });
});
