import { ConfigurationError, createTracer, parsePolicy } from '@tracewarden/core';
import { startScriptedServer } from '@tracewarden/testing';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { wrapOpenAI } from '../index.js';

const noOutsiders = parsePolicy(`
raise "no mail to outsiders" if:
    (call: ToolCall)
    call is tool:send_email
    not match(r".*@example\\.com$", call.function.arguments.to)
`);

/**
 * What a real `n: 2` request gets (the scripted server answers one): each streamed chunk again
 * under index 1, its call sent elsewhere.
 */
const twoAnswers: typeof fetch = async (input, init) => {
  const sent = JSON.parse(String(init?.body));
  delete sent.n;
  const answer = await fetch(input, { ...init, body: JSON.stringify(sent) });
  const text = await answer.text();
  const doubled = text
    .split('\n\n')
    .map((event) => {
      if (!event.startsWith('data: {')) return event;
      const chunk = JSON.parse(event.slice(6));
      if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) return event;
      const other = structuredClone(chunk);
      other.choices[0].index = 1;
      for (const piece of other.choices[0].delta.tool_calls ?? []) {
        if (piece.id) piece.id = 'call_other';
        if (piece.function?.arguments)
          piece.function.arguments = piece.function.arguments.replace('example', 'elsewhere');
      }
      return `${event}\n\ndata: ${JSON.stringify(other)}`;
    })
    .join('\n\n');
  return new Response(doubled, { status: answer.status, headers: answer.headers });
};

describe('several answers per request (n)', () => {
  it('with a policy, n > 1 is refused before anything is sent: the other answers would pass unchecked', async () => {
    await using server = await startScriptedServer({ turns: [{ text: 'never sent' }] });
    const tracer = createTracer();
    const client = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'test' }), {
      tracer,
      policy: noOutsiders,
      pricing: false,
    });
    const error = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'mail' }], n: 2 })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('n: 1');
    expect(tracer.blocks()).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('without a policy, a stream of two answers records the first, never a mix of both', async () => {
    await using server = await startScriptedServer({
      turns: [
        { toolCalls: [{ name: 'send_email', arguments: { to: 'bob@example.com' }, id: 'call_1' }] },
      ],
    });
    const tracer = createTracer();
    const client = wrapOpenAI(
      new OpenAI({ baseURL: server.url, apiKey: 'test', fetch: twoAnswers }),
      { tracer, pricing: false },
    );
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'mail' }],
      n: 2,
      stream: true,
    });
    for await (const _chunk of stream);
    const calls = tracer.blocks().filter((block) => block.sub_type === 'TOOL_CALL');
    expect(calls.map((block) => [block.payload.call_id, block.payload.arguments])).toEqual([
      ['call_1', { to: 'bob@example.com' }],
    ]);
    expect(calls[0]?.metadata.partial).toBeUndefined();
  });
});
