import { ConfigurationError, createTracer, parsePolicy } from '@tracewarden/core';
import { startScriptedServer } from '@tracewarden/testing';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { executeToolCalls, wrapOpenAI } from '../index.js';

/** The ConfigurationError `make` throws (or rejects with). */
async function rejection(make: () => unknown): Promise<ConfigurationError> {
  let error: unknown;
  try {
    await make();
  } catch (thrown) {
    error = thrown;
  }
  if (!ConfigurationError.isInstance(error))
    throw new Error(`expected a ConfigurationError, got ${String(error)}`);
  return error;
}

const noEmail = parsePolicy(`
raise "no email" if:
    (call: ToolCall)
    call is tool:send_email
`);

describe('wrapOpenAI on a client already wrapped', () => {
  it('refuses other options, which could not apply (a policy given here guarded nothing)', async () => {
    const client = wrapOpenAI(new OpenAI({ apiKey: 'test' }), { tracer: createTracer() });
    const error = await rejection(() => wrapOpenAI(client, { policy: noEmail }));
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain('already wrapped');
    // a typo is named as such
    expect((await rejection(() => wrapOpenAI(client, { guardz: 1 } as never))).message).toContain(
      'guardz',
    );
  });

  it('changes nothing when wrapped again with no options or the same options', async () => {
    const options = { tracer: createTracer(), pricing: false as const };
    const client = new OpenAI({ apiKey: 'test' });
    expect(wrapOpenAI(client, options)).toBe(client);
    expect(wrapOpenAI(client, options)).toBe(client);
    expect(wrapOpenAI(client)).toBe(client);
    expect(wrapOpenAI(client, {})).toBe(client);
    // a fresh literal of the same options (a client wrapped again per request), and a client
    // made from it by withOptions(): the same wrap
    expect(wrapOpenAI(client, { tracer: options.tracer, pricing: false })).toBe(client);
    const derived = client.withOptions({ timeout: 1000 });
    expect(wrapOpenAI(derived, { tracer: options.tracer, pricing: false })).toBe(derived);
    const guarded = new OpenAI({ apiKey: 'test' });
    const options2 = () => ({
      guards: { rateLimit: { callsPerMinute: 60 } },
      timeoutSeconds: 5,
      policy: noEmail,
    });
    wrapOpenAI(guarded, options2());
    expect(wrapOpenAI(guarded, options2())).toBe(guarded);
    // other values are other options
    await rejection(() => wrapOpenAI(guarded, { ...options2(), timeoutSeconds: 6 }));
  });

  it('the client it refused still records with its first options', async () => {
    await using server = await startScriptedServer({ turns: [{ text: 'hi' }] });
    const tracer = createTracer();
    const client = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'test' }), {
      tracer,
      pricing: false,
    });
    await rejection(() => wrapOpenAI(client, { tracer: createTracer() }));
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(tracer.blocks().map((block) => block.payload.role)).toEqual(['user', 'assistant']);
  });
});

describe('arguments that are not what they must be', () => {
  it.each([
    ['null', null],
    ['an object without chat.completions', {}],
  ])(
    'wrapOpenAI(%s) is a ConfigurationError naming the client, and marks nothing',
    async (_label, client) => {
      const error = await rejection(() => wrapOpenAI(client as never));
      expect(error.message).toContain('client');
      if (client !== null) expect(Object.getOwnPropertySymbols(client)).toEqual([]);
    },
  );

  it('executeToolCalls without an answer or without tools is a ConfigurationError', async () => {
    expect((await rejection(() => executeToolCalls(null as never, {}))).message).toContain(
      'source',
    );
    const message = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function' as const, function: { name: 'x', arguments: '{}' } },
      ],
    };
    expect((await rejection(() => executeToolCalls(message, null as never))).message).toContain(
      'tools',
    );
  });
});
