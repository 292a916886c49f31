import { request as httpRequest } from 'node:http';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ScriptedTurn } from '../turns/scripted-turn.js';
import type { RecordedRequest } from './recorded-request.js';
import { startScriptedServer } from './start-scripted-server.js';

const messages = [{ role: 'user' as const, content: 'Hello' }];

function clientFor(url: string, maxRetries = 0): OpenAI {
  return new OpenAI({ baseURL: url, apiKey: 'sk-secret', maxRetries });
}

describe('startScriptedServer', () => {
  it('listens on 127.0.0.1 on an ephemeral port and stops on close', async () => {
    const server = await startScriptedServer();
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/v1`);
    await server.close();
    await expect(fetch(`${server.url}/models`)).rejects.toThrow();
  });

  it('is disposed of by await using', async () => {
    let url = '';
    {
      await using server = await startScriptedServer();
      url = server.url;
      expect((await fetch(`${url}/models`)).status).toBe(200);
    }
    await expect(fetch(`${url}/models`)).rejects.toThrow();
  });

  it('returns the same promise when closed twice', async () => {
    const server = await startScriptedServer();
    const first = server.close();
    expect(server.close()).toBe(first);
    await first;
  });

  it('closes promptly with an idle keep-alive connection and a request in flight', async () => {
    const server = await startScriptedServer({
      turns: [
        { text: 'first' },
        { text: 'slow', fault: { type: 'slow-first-byte', delayMs: 60_000 } },
      ],
    });
    const client = clientFor(server.url);
    await client.chat.completions.create({ model: 'm', messages });
    const pending = client.chat.completions.create({ model: 'm', messages });
    pending.catch(() => undefined);
    while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    await server.close();
    await expect(pending).rejects.toThrow(OpenAI.APIConnectionError);
  });

  it('records each request with redacted credentials and answers with x-request-id', async () => {
    await using server = await startScriptedServer({ turns: [{ text: 'a' }, { text: 'b' }] });
    const client = clientFor(server.url);
    const first = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    const second = await client.responses.create({ model: 'gpt-4o-mini', input: 'Hi' });

    expect(first._request_id).toBe('req_1');
    expect(second._request_id).toBe('req_2');
    expect(server.requests).toHaveLength(2);
    const [chat, responses] = server.requests as [RecordedRequest, RecordedRequest];
    expect(chat).toMatchObject({
      requestId: 'req_1',
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'gpt-4o-mini', messages },
    });
    expect(chat.headers.authorization).toBe('[redacted]');
    expect(JSON.stringify(server.requests)).not.toContain('sk-secret');
    expect(chat.headers['content-type']).toContain('application/json');
    expect(chat.time).toBeLessThanOrEqual(Date.now());
    expect(JSON.parse(chat.rawBody)).toEqual(chat.body);
    expect(responses).toMatchObject({ path: '/v1/responses', body: { input: 'Hi' } });
  });

  it('echoes the request model and uses the default model when none is given', async () => {
    await using server = await startScriptedServer({
      turns: [{ text: 'a' }, { text: 'b' }],
      model: 'house-model',
    });
    const completion = await clientFor(server.url).chat.completions.create({
      model: 'gpt-5-mini',
      messages,
    });
    expect(completion.model).toBe('gpt-5-mini');
    const raw = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ messages }),
    });
    expect(((await raw.json()) as { model: string }).model).toBe('house-model');
  });

  it('answers a clear 500 without retry when the script is exhausted', async () => {
    await using server = await startScriptedServer({ turns: [{ text: 'only one' }] });
    const client = clientFor(server.url, 2);
    await client.chat.completions.create({ model: 'm', messages });
    const error = await client.chat.completions.create({ model: 'm', messages }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.code).toBe('script_exhausted');
    expect(error.message).toContain('script is exhausted');
    expect(server.requests).toHaveLength(2);
  });

  it('answers with an echo turn when the script runs out with fallback echo', async () => {
    await using server = await startScriptedServer({ fallback: 'echo' });
    const client = clientFor(server.url);
    const completion = await client.chat.completions.create({
      model: 'm',
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: 'ping' }] },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('Echo: ping');
    const response = await client.responses.create({ model: 'm', input: 'pong' });
    expect(response.output_text).toBe('Echo: pong');
  });

  it('uses pushed turns first, then the turn function with the request and its index', async () => {
    const seen: [string, number][] = [];
    await using server = await startScriptedServer({
      turns: async (request, index) => {
        seen.push([request.path, index]);
        return { text: `turn ${index} for ${String(request.body?.model)}` };
      },
    });
    const client = clientFor(server.url);
    server.push({ text: 'pushed' });
    const pushed = await client.chat.completions.create({ model: 'a', messages });
    const computed = await client.responses.create({ model: 'b', input: 'x' });
    expect(pushed.choices[0]?.message.content).toBe('pushed');
    expect(computed.output_text).toBe('turn 1 for b');
    expect(seen).toEqual([['/v1/responses', 1]]);
  });

  it('answers 500 when the turn function throws', async () => {
    await using server = await startScriptedServer({
      turns: () => {
        throw new Error('no turn for this input');
      },
    });
    const error = await clientFor(server.url, 2)
      .chat.completions.create({ model: 'm', messages })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.code).toBe('turn_function_failed');
    expect(error.message).toContain('no turn for this input');
    expect(server.requests).toHaveLength(1);
  });

  it('reset empties the log and the queue and restarts the ids', async () => {
    const turns: ScriptedTurn[] = [{ text: 'a' }, { text: 'never used' }];
    await using server = await startScriptedServer({ turns });
    const client = clientFor(server.url);
    await client.chat.completions.create({ model: 'm', messages });
    server.reset();
    expect(server.requests).toHaveLength(0);
    server.push({ text: 'after reset' });
    const completion = await client.chat.completions.create({ model: 'm', messages });
    expect(completion.choices[0]?.message.content).toBe('after reset');
    expect(completion._request_id).toBe('req_1');
    expect(turns).toHaveLength(2);
  });

  it('lists the default model', async () => {
    await using server = await startScriptedServer();
    const page = await clientFor(server.url).models.list();
    expect(page.data.map((model) => model.id)).toEqual(['scripted-model']);
  });

  it('answers unknown paths with 404 in the OpenAI error format', async () => {
    await using server = await startScriptedServer();
    const response = await fetch(`${server.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringContaining('Invalid URL (POST /v1/embeddings)'),
        type: 'invalid_request_error',
        param: null,
        code: 'unknown_url',
      },
    });
    const error = await clientFor(server.url)
      .embeddings.create({ model: 'm', input: 'x' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('answers bad JSON with 400 and does not consume a turn', async () => {
    await using server = await startScriptedServer({ turns: [{ text: 'kept' }] });
    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      body: '{"model":',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'invalid_json',
    );
    expect(server.requests[0]?.body).toBeUndefined();
    const completion = await clientFor(server.url).chat.completions.create({
      model: 'm',
      messages,
    });
    expect(completion.choices[0]?.message.content).toBe('kept');
  });

  it('rejects n other than 1 and chat requests without messages', async () => {
    await using server = await startScriptedServer({ turns: [{ text: 'a' }] });
    const client = clientFor(server.url);
    const error = await client.chat.completions
      .create({ model: 'm', messages, n: 2 })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe('n');
    const missing = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm' }),
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { param: string } }).error.param).toBe('messages');
  });

  it('keeps connections alive between requests', async () => {
    await using server = await startScriptedServer({ turns: [{ text: 'a' }, { text: 'b' }] });
    const agentRequest = (): Promise<string> =>
      new Promise((resolve, reject) => {
        const req = httpRequest(`${server.url}/models`, (res) => {
          res.resume();
          res.on('end', () => resolve(String(res.headers.connection)));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await agentRequest()).toBe('keep-alive');
  });
});

describe('streaming pace', () => {
  it('keeps serving after a client breaks out of a paced stream', async () => {
    await using server = await startScriptedServer({
      turns: [{ text: 'one two three four five six' }, { text: 'next' }],
      chunkDelayMs: 2,
    });
    const client = clientFor(server.url);
    const stream = await client.chat.completions.create({ model: 'm', messages, stream: true });
    let received = 0;
    for await (const _chunk of stream) {
      received += 1;
      if (received === 2) break;
    }
    expect(stream.controller.signal.aborted).toBe(true);
    const completion = await client.chat.completions.create({ model: 'm', messages });
    expect(completion.choices[0]?.message.content).toBe('next');
  });
});
