import { createTracer, validateBlocks } from '@tracewarden/core';
import { startScriptedServer } from '@tracewarden/testing';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { executeToolCalls } from '../tools/execute-tool-calls.js';
import { wrapOpenAI } from './wrap-openai.js';

// A chat app that sends the system prompt and the last N messages each turn (a "sliding
// window"): each message is recorded once, as when the whole history is re-sent.
const messagesOf = (tracer: ReturnType<typeof createTracer>) =>
  tracer
    .blocks()
    .filter((block) => block.sub_type === 'MESSAGE')
    .map((block) => {
      const payload = block.payload as { role: string; content: unknown };
      return `${payload.role}:${payload.content}`;
    });

describe('a history trimmed from the front is recorded once', () => {
  it('plain chat, the last three messages each turn', async () => {
    await using server = await startScriptedServer({ turns: [], fallback: 'echo' });
    const tracer = createTracer();
    const client = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }), {
      tracer,
    });
    const system: ChatCompletionMessageParam = { role: 'system', content: 'be brief' };
    const history: ChatCompletionMessageParam[] = [];
    for (const question of ['q1', 'q2', 'q3', 'q4']) {
      history.push({ role: 'user', content: question });
      const reply = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [system, ...history.slice(-3)],
      });
      history.push(reply.choices[0]?.message as ChatCompletionMessageParam);
    }
    expect(messagesOf(tracer)).toEqual([
      'system:be brief',
      'user:q1',
      'assistant:Echo: q1',
      'user:q2',
      'assistant:Echo: q2',
      'user:q3',
      'assistant:Echo: q3',
      'user:q4',
      'assistant:Echo: q4',
    ]);
  });

  it('an agent with tool calls, the last four messages each request', async () => {
    await using server = await startScriptedServer({
      turns: [
        { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' }, id: 'call_1' }] },
        { text: 'Sunny in Paris.' },
        {
          toolCalls: [
            { name: 'get_weather', arguments: { city: 'Rome' }, id: 'call_2' },
            { name: 'get_time', arguments: { city: 'Rome' }, id: 'call_3' },
          ],
        },
        { text: 'Rome: sunny, 10:00.' },
        { text: 'Bye.' },
      ],
    });
    const tracer = createTracer();
    const client = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }), {
      tracer,
    });
    const tools = {
      get_weather: async ({ city }: { city: string }) => `sunny in ${city}`,
      get_time: async ({ city }: { city: string }) => `10:00 in ${city}`,
    };
    const system: ChatCompletionMessageParam = { role: 'system', content: 'be brief' };
    const history: ChatCompletionMessageParam[] = [];
    for (const question of ['Paris?', 'Rome?', 'thanks']) {
      history.push({ role: 'user', content: question });
      for (;;) {
        const reply = await client.chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [system, ...history.slice(-4)],
        });
        const message = reply.choices[0]?.message;
        if (message === undefined) throw new Error('no answer');
        history.push(message);
        if (!message.tool_calls?.length) break;
        history.push(...(await executeToolCalls(message, tools, { tracer })));
      }
    }
    expect(messagesOf(tracer)).toEqual([
      'system:be brief',
      'user:Paris?',
      'assistant:null',
      'assistant:Sunny in Paris.',
      'user:Rome?',
      'assistant:null',
      'assistant:Rome: sunny, 10:00.',
      'user:thanks',
      'assistant:Bye.',
    ]);
    const stitched = tracer.stitched();
    expect(stitched.orphans).toEqual({ tool_calls: [], tool_results: [] });
    expect(
      stitched.messages.flatMap((message) => message.tool_calls).map((call) => call.results.length),
    ).toEqual([1, 1, 1]);
    expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  });

  it('a message the user repeats on purpose is still recorded each time', async () => {
    await using server = await startScriptedServer({ turns: [], fallback: 'echo' });
    const tracer = createTracer();
    const client = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0 }), {
      tracer,
    });
    const history: ChatCompletionMessageParam[] = [];
    for (const question of ['again', 'again', 'again']) {
      history.push({ role: 'user', content: question });
      const reply = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: history,
      });
      history.push(reply.choices[0]?.message as ChatCompletionMessageParam);
    }
    expect(messagesOf(tracer).filter((text) => text === 'user:again')).toHaveLength(3);
  });
});
