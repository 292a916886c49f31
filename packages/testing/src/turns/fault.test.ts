import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { startScriptedServer } from '../server/start-scripted-server.js';

const messages = [{ role: 'user' as const, content: 'Hello' }];

function clientFor(url: string, options: { maxRetries?: number; timeout?: number } = {}): OpenAI {
  return new OpenAI({ baseURL: url, apiKey: 'test', maxRetries: 0, ...options });
}

describe('faults', () => {
  it('answers 429 with retry-after, and the SDK retry gets the next turn', async () => {
    await using server = await startScriptedServer({
      turns: [{ fault: { type: 'status', status: 429, retryAfter: 0 } }, { text: 'ok' }],
    });
    const completion = await clientFor(server.url, { maxRetries: 2 }).chat.completions.create({
      model: 'm',
      messages,
    });
    expect(completion.choices[0]?.message.content).toBe('ok');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.headers['x-stainless-retry-count']).toBe('1');
  });

  it('sets retry-after in seconds and retry-after-ms', async () => {
    await using server = await startScriptedServer({
      turns: [{ fault: { type: 'status', status: 429, retryAfter: 0.25 } }],
    });
    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.headers.get('retry-after-ms')).toBe('250');
  });

  it('accepts a bare status as a fault and fails with a RateLimitError', async () => {
    await using server = await startScriptedServer({ turns: [{ fault: 429 }, { text: 'later' }] });
    const client = clientFor(server.url);
    const error = await client.chat.completions.create({ model: 'm', messages }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.requestID).toBe('req_1');
    const completion = await client.chat.completions.create({ model: 'm', messages });
    expect(completion.choices[0]?.message.content).toBe('later');
  });

  it('answers 500 and lets the SDK retry it', async () => {
    await using server = await startScriptedServer({
      turns: [
        { fault: 500 },
        { fault: { type: 'status', status: 500, retryAfter: 0 } },
        { text: 'ok' },
      ],
    });
    const client = clientFor(server.url);
    const error = await client.responses.create({ model: 'm', input: 'x' }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.type).toBe('server_error');
    const response = await client.responses.create({ model: 'm', input: 'x' }, { maxRetries: 1 });
    expect(response.output_text).toBe('ok');
  });

  it('sends a custom error body', async () => {
    await using server = await startScriptedServer({
      turns: [
        {
          fault: {
            type: 'status',
            status: 400,
            body: {
              error: {
                message: 'Bad param',
                type: 'invalid_request_error',
                param: 'messages',
                code: 'bad',
              },
            },
          },
        },
      ],
    });
    const error = await clientFor(server.url)
      .chat.completions.create({ model: 'm', messages })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ code: 'bad', param: 'messages', message: '400 Bad param' });
  });

  it('delays the first byte and then answers normally', async () => {
    await using server = await startScriptedServer({
      turns: [{ text: 'late', fault: { type: 'slow-first-byte', delayMs: 5 } }],
    });
    const completion = await clientFor(server.url).chat.completions.create({
      model: 'm',
      messages,
    });
    expect(completion.choices[0]?.message.content).toBe('late');
  });

  it('lets a client timeout fire during a slow first byte', async () => {
    await using server = await startScriptedServer({
      turns: [{ text: 'too late', fault: { type: 'slow-first-byte', delayMs: 30 } }],
    });
    const error = await clientFor(server.url, { timeout: 5 })
      .chat.completions.create({ model: 'm', messages, stream: true })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it('drops the connection mid-stream: chat iteration rejects after the delivered chunks', async () => {
    await using server = await startScriptedServer({
      turns: [
        {
          text: 'A long answer that never ends',
          fault: { type: 'drop-mid-stream', afterChunks: 3 },
        },
      ],
    });
    const stream = await clientFor(server.url, { maxRetries: 2 }).chat.completions.create({
      model: 'm',
      messages,
      stream: true,
    });
    const received: ChatCompletionChunk[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) received.push(chunk);
      })(),
    ).rejects.toThrow();
    expect(received).toHaveLength(3);
    expect(server.requests).toHaveLength(1);
  });

  it('drops the connection mid-stream: responses.stream rejects', async () => {
    await using server = await startScriptedServer({
      turns: [{ text: 'A long answer', fault: { type: 'drop-mid-stream', afterChunks: 4 } }],
    });
    const stream = clientFor(server.url).responses.stream({ model: 'm', input: 'x' });
    const received: ResponseStreamEvent[] = [];
    stream.on('event', (event) => received.push(event));
    await expect(stream.finalResponse()).rejects.toThrow();
    expect(received.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
  });

  it('drops the connection before any event when afterChunks is 0', async () => {
    await using server = await startScriptedServer({
      turns: [{ text: 'never', fault: { type: 'drop-mid-stream', afterChunks: 0 } }],
    });
    const stream = await clientFor(server.url).chat.completions.create({
      model: 'm',
      messages,
      stream: true,
    });
    await expect(
      (async () => {
        for await (const _chunk of stream) {
          // nothing arrives
        }
      })(),
    ).rejects.toThrow();
  });

  it('cuts a non-streaming body part-way', async () => {
    await using server = await startScriptedServer({
      turns: [{ text: 'never whole', fault: { type: 'drop-mid-stream', afterChunks: 1 } }],
    });
    await expect(
      clientFor(server.url).chat.completions.create({ model: 'm', messages }),
    ).rejects.toThrow();
  });
});
