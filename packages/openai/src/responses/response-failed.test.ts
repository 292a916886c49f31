import { createTracer } from '@tracewarden/core';
import { startScriptedServer } from '@tracewarden/testing';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { wrapOpenAI } from '../index.js';

const error = { code: 'server_error', message: 'The model failed' };

/** A fetch that turns the server's completed response into a failed one (streamed or not). */
const failing: typeof fetch = async (input, init) => {
  const answer = await fetch(input, init);
  const text = await answer.text();
  const rewritten = text.trimStart().startsWith('{')
    ? JSON.stringify({ ...JSON.parse(text), status: 'failed', error })
    : text
        .split('\n\n')
        .map((event) => {
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (data === undefined || !data.includes('"response.completed"')) return event;
          const parsed = JSON.parse(data);
          const failed = {
            ...parsed,
            type: 'response.failed',
            response: { ...parsed.response, status: 'failed', error },
          };
          return `event: response.failed\ndata: ${JSON.stringify(failed)}`;
        })
        .join('\n\n');
  return new Response(rewritten, { status: answer.status, headers: answer.headers });
};

describe('a Responses API answer that reports status failed', () => {
  for (const stream of [false, true])
    it(`is recorded as failure with its error (${stream ? 'streamed' : 'not streamed'})`, async () => {
      await using server = await startScriptedServer({ turns: [{ text: 'partial answer' }] });
      const tracer = createTracer();
      const client = wrapOpenAI(
        new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0, fetch: failing }),
        { tracer, pricing: false },
      );
      if (stream) {
        const types: string[] = [];
        for await (const event of await client.responses.create({
          model: 'gpt-4o-mini',
          input: 'hi',
          stream: true,
        }))
          types.push(event.type);
        expect(types.at(-1)).toBe('response.failed');
      } else {
        const response = await client.responses.create({ model: 'gpt-4o-mini', input: 'hi' });
        expect(response.status).toBe('failed');
      }
      expect(tracer.blocks().at(-1)?.metadata).toMatchObject({
        status: 'failure',
        error: { type: 'server_error', message: 'The model failed' },
      });
    });
});
