/**
 * The lowest supported major (openai 6) against the same scripted server: a core subset of the
 * openai 7 tests, proving the peer range.
 */
import { createTracer, PolicyViolationError, parsePolicy } from '@tracewarden/core';
import { startScriptedServer } from '@tracewarden/testing';
import OpenAI6 from 'openai-v6';
import { afterEach, describe, expect, it } from 'vitest';
import { shape } from '../__fixtures__/setup.js';
import { executeToolCalls } from '../tools/execute-tool-calls.js';
import { isWrapped, wrapOpenAI } from './wrap-openai.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function start(turns: Parameters<typeof startScriptedServer>[0], maxRetries = 0) {
  const server = await startScriptedServer(turns);
  closers.push(() => server.close());
  const tracer = createTracer();
  const client = wrapOpenAI(new OpenAI6({ baseURL: server.url, apiKey: 'sk-v6', maxRetries }), {
    tracer,
  });
  return { server, tracer, client };
}

describe('wrapOpenAI with openai 6', () => {
  const turn = {
    text: 'Hi from v6',
    reasoning: 'think',
    toolCalls: [{ name: 'lookup', arguments: { q: 1 }, id: 'call_6' }],
  };

  it('records chat completions the same streamed or not, and keeps withResponse', async () => {
    const plain = await start({ turns: [turn] });
    const { data, response } = await plain.client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Hi from v6');
    expect(response.status).toBe(200);
    const streamed = await start({ turns: [turn] });
    const stream = await streamed.client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    for await (const chunk of stream) expect(chunk.choices.length).toBeGreaterThan(0);
    expect(shape(streamed.tracer.blocks())).toEqual(shape(plain.tracer.blocks()));
    expect(plain.tracer.blocks()[1]?.metadata).toMatchObject({
      status: 'success',
      usage: { input_tokens: expect.any(Number) },
    });
  });

  it('records a tool loop once, responses calls, retries, and stays wrapped after withOptions', async () => {
    const { tracer, client, server } = await start(
      {
        turns: [
          { fault: { type: 'status', status: 429, retryAfter: 0 } },
          turn,
          { text: 'done' },
          { text: 'resp' },
        ],
      },
      1,
    );
    const messages: OpenAI6.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'go' },
    ];
    const first = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(tracer.blocks()[1]?.metadata.attempts).toHaveLength(2);
    messages.push(
      first.choices[0]!.message,
      ...(await executeToolCalls(first.choices[0]!.message, { lookup: () => 'found' }, { tracer })),
    );
    const other = client.withOptions({ timeout: 10_000 });
    expect(isWrapped(other)).toBe(true);
    await other.chat.completions.create({ model: 'gpt-4o-mini', messages });
    await client.responses.create({ model: 'gpt-4o-mini', input: 'r' });
    expect(tracer.blocks().map((block) => block.sub_type)).toEqual([
      'MESSAGE',
      'MESSAGE',
      'THINK',
      'TOOL_CALL',
      'TOOL_RESULT',
      'MESSAGE',
      'MESSAGE',
      'MESSAGE',
    ]);
    expect(server.requests).toHaveLength(4);
  });

  it('blocks a proposed tool call by policy', async () => {
    const server = await startScriptedServer({
      turns: [{ toolCalls: [{ name: 'send_email', arguments: { to: 'a@evil.com' } }] }],
    });
    closers.push(() => server.close());
    const client = wrapOpenAI(new OpenAI6({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }), {
      tracer: createTracer(),
      policy: parsePolicy(
        'raise "outside mail" if:\n    (call: ToolCall)\n    call is tool:send_email',
      ),
    });
    await expect(
      client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toBeInstanceOf(PolicyViolationError);
  });

  it('records custom tool calls as { input } and refuses them by policy, chat and responses, streamed or not', async () => {
    const patch = '*** Begin Patch\n"a"\n*** End Patch';
    const turn = {
      toolCalls: [
        { type: 'custom' as const, id: 'call_p', name: 'apply_patch', arguments: patch },
        { type: 'custom' as const, id: 'call_g', name: 'grep', arguments: 'TODO' },
      ],
    };
    const server = await startScriptedServer({ turns: [turn, turn, turn, turn] });
    closers.push(() => server.close());
    const tracer = createTracer();
    const client = wrapOpenAI(new OpenAI6({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }), {
      tracer,
      policy: parsePolicy(
        'raise "no patches" if:\n    (call: ToolCall)\n    call is tool:apply_patch',
      ),
      onPolicyViolation: 'refuse',
    });
    const messages: OpenAI6.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'x' },
    ];
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(completion.choices[0]?.message.tool_calls?.map((call) => call.id)).toEqual(['call_g']);
    const chunks = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      stream: true,
    });
    const seen: unknown[] = [];
    for await (const chunk of chunks) seen.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    expect(seen).toEqual([
      { index: 0, id: 'call_g', type: 'custom', custom: { name: 'grep', input: 'TODO' } },
    ]);
    const response = await client.responses.create({ model: 'gpt-4o-mini', input: 'x' });
    expect(response.output.map((item) => item.type)).toEqual(['message', 'custom_tool_call']);
    const events = await client.responses.create({
      model: 'gpt-4o-mini',
      input: 'x',
      stream: true,
    });
    const types: string[] = [];
    for await (const event of events) types.push(event.type);
    expect(types.filter((type) => type === 'response.custom_tool_call_input.done')).toHaveLength(1);
    const calls = tracer.blocks().filter((block) => block.sub_type === 'TOOL_CALL');
    // (the four responses reuse the scripted ids: the trace suffixes the later ones)
    expect(
      calls.map(({ payload }) => ({ name: payload.name, arguments: payload.arguments })),
    ).toEqual(
      Array.from({ length: 4 }, () => [
        { name: 'apply_patch', arguments: { input: patch } },
        { name: 'grep', arguments: { input: 'TODO' } },
      ]).flat(),
    );
    expect(calls.map((block) => block.metadata.policy)).toEqual([
      'block',
      undefined,
      'block',
      undefined,
      'block',
      undefined,
      'block',
      undefined,
    ]);
  });

  it('records built-in shell and apply_patch calls with their action, refuses them by policy, streamed or not, and records their outputs', async () => {
    const operation = { type: 'delete_file', path: 'src/a.ts' };
    const turn = {
      toolCalls: [
        { type: 'shell' as const, id: 'call_rm', arguments: { commands: ['rm -rf /'] } },
        { type: 'apply_patch' as const, id: 'call_ap', arguments: operation },
      ],
    };
    const again = {
      toolCalls: turn.toolCalls.map((call) => ({ ...call, id: `${call.id}_2` })),
    };
    const server = await startScriptedServer({ turns: [turn, again, { text: 'ok' }] });
    closers.push(() => server.close());
    const tracer = createTracer();
    const client = wrapOpenAI(new OpenAI6({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }), {
      tracer,
      policy: parsePolicy(
        'raise "no rm" if:\n    (call: ToolCall)\n    call is tool:shell\n    "rm -rf" in call.function.arguments.commands[0]',
      ),
      onPolicyViolation: 'refuse',
    });
    const tools: OpenAI6.Responses.Tool[] = [{ type: 'shell' }, { type: 'apply_patch' }];
    const response = await client.responses.create({ model: 'gpt-4o-mini', input: 'x', tools });
    expect(response.output.map((item) => item.type)).toEqual(['message', 'apply_patch_call']);
    const events = await client.responses.create({
      model: 'gpt-4o-mini',
      input: 'x',
      tools,
      stream: true,
    });
    const seen: { type: string; item?: { type: string } }[] = [];
    for await (const event of events) seen.push(event);
    expect(JSON.stringify(seen)).not.toContain('rm -rf');
    expect(
      seen.filter((event) => event.type === 'response.output_item.done').map((e) => e.item?.type),
    ).toEqual(['apply_patch_call']);
    await client.responses.create({
      model: 'gpt-4o-mini',
      tools,
      input: [
        { role: 'user', content: 'x' },
        ...(response.output as OpenAI6.Responses.ResponseInputItem[]),
        { type: 'apply_patch_call_output', call_id: 'call_ap', status: 'completed', output: 'ok' },
      ],
    });
    const calls = tracer.blocks().filter((block) => block.sub_type === 'TOOL_CALL');
    expect(calls.slice(0, 2).map(({ payload }) => payload)).toEqual([
      {
        call_id: 'call_rm',
        name: 'shell',
        arguments: { commands: ['rm -rf /'], timeout_ms: null, max_output_length: null },
      },
      { call_id: 'call_ap', name: 'apply_patch', arguments: operation },
    ]);
    expect(calls.map((block) => block.metadata.policy)).toEqual([
      'block',
      undefined,
      'block',
      undefined,
    ]);
    const result = tracer
      .blocks()
      .find((block) => block.sub_type === 'TOOL_RESULT' && block.payload.output === 'ok');
    expect(result?.parent_block_id).toBe(calls[1]?.id);
  });
});
