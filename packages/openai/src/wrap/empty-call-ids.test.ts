import { guard, type Tracer, withTrace } from '@tracewarden/core';
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from '../__fixtures__/setup.js';
import { executeToolCalls } from '../tools/execute-tool-calls.js';

// Gemini's OpenAI-compatible endpoint (and agents built on it) send `""` as every tool call id
// and every tool output's `tool_call_id`: an empty id is absent (decision 030).

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function start() {
  const result = await setup({
    turns: [
      {
        text: 'Checking.',
        toolCalls: [{ id: '', name: 'get_weather', arguments: { city: 'Paris' } }],
      },
      { toolCalls: [{ id: '', name: 'get_time', arguments: { city: 'Paris' } }] },
      { text: '22°C at 10:00.' },
    ],
  });
  closers.push(() => result.server.close());
  return result;
}

const tools = {
  get_weather: () => '22°C',
  get_time: () => '10:00',
};

/** Each TOOL_CALL as `name -> outputs`, its id, and whatever could not be attached. */
function linked(tracer: Tracer) {
  const stitched = tracer.stitched();
  const calls = stitched.messages.flatMap((message) => message.tool_calls);
  return {
    calls: calls.map((call) => ({
      name: call.block.payload.name,
      outputs: call.results.map((result) => result.payload.output),
    })),
    ids: calls.map((call) => call.block.payload.call_id),
    orphans: stitched.orphans,
  };
}

function expectLinked(tracer: Tracer): void {
  const result = linked(tracer);
  expect(result.calls).toEqual([
    { name: 'get_weather', outputs: ['22°C'] },
    { name: 'get_time', outputs: ['10:00'] },
  ]);
  expect(result.ids.every((id) => typeof id === 'string' && id !== '')).toBe(true);
  expect(new Set(result.ids).size).toBe(result.ids.length);
  expect(result.orphans).toEqual({ tool_calls: [], tool_results: [] });
}

describe('wrapOpenAI: tool calls with "" ids (Gemini-style)', () => {
  it('links every result under its call when executeToolCalls runs the tools', async () => {
    const { tracer, client } = await start();
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather and time?' }];
    for (let turn = 0; turn < 3; turn++) {
      const completion = await client.chat.completions.create({ model: 'gemini-2.5', messages });
      const message = completion.choices[0]!.message;
      messages.push(message);
      if (!message.tool_calls) break;
      expect(message.tool_calls[0]?.id).toBe('');
      messages.push(...(await executeToolCalls(message, tools, { tracer })));
    }
    expectLinked(tracer);
  });

  it('links every result under its call when the loop sends the outputs itself (streamed)', async () => {
    const { tracer, client } = await start();
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather and time?' }];
    for (let turn = 0; turn < 3; turn++) {
      const stream = await client.chat.completions.create({
        model: 'gemini-2.5',
        messages,
        stream: true,
      });
      let content = '';
      const calls: { id: string; name: string; arguments: string }[] = [];
      for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
        const delta = chunk.choices[0]?.delta;
        if (delta?.content) content += delta.content;
        for (const piece of delta?.tool_calls ?? []) {
          const call = (calls[piece.index] ??= { id: '', name: '', arguments: '' });
          if (piece.id !== undefined) call.id = piece.id;
          if (piece.function?.name) call.name = piece.function.name;
          if (piece.function?.arguments) call.arguments += piece.function.arguments;
        }
      }
      messages.push({
        role: 'assistant',
        content: content === '' ? null : content,
        ...(calls.length === 0
          ? {}
          : {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }),
      });
      if (calls.length === 0) break;
      for (const call of calls) {
        expect(call.id).toBe('');
        messages.push({
          role: 'tool',
          tool_call_id: '',
          content: tools[call.name as keyof typeof tools](),
        });
      }
    }
    expectLinked(tracer);
  });

  for (const id of ['', 'call_0'])
    for (const guarded of [false, true, "inside the user's own functions"] as const)
      it(`parallel calls ${id === '' ? 'without ids' : `sharing the id ${id}`} whose tools finish out of order keep their own results${guarded === false ? '' : guarded === true ? ' (guarded tools)' : ` (guarded functions ${guarded})`}`, async () => {
        const { tracer, client, server } = await setup({
          turns: [
            {
              toolCalls: [
                { id, name: 'slow', arguments: { n: 1 } },
                { id, name: 'fast', arguments: { n: 2 } },
                { id, name: 'failing', arguments: { n: 3 } },
              ],
            },
          ],
        });
        closers.push(() => server.close());
        const slow = async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          return 'slow result';
        };
        const fast = () => 'fast result';
        const failing = (): string => {
          throw new Error('no luck');
        };
        const guards = {
          slow: guard(slow, { name: 'slow' }),
          fast: guard(fast, { name: 'fast' }),
          failing: guard(failing, { name: 'failing' }),
        };
        const parallel =
          guarded === true
            ? guards
            : guarded === false
              ? { slow, fast, failing }
              : // each guard takes the call it runs for, however it is called (no TOOL_CALL of its own)
                {
                  slow: () => guards.slow(),
                  fast: () => guards.fast(),
                  failing: () => guards.failing(),
                };
        const completion = await client.chat.completions.create({
          model: 'gemini-2.5',
          messages: [{ role: 'user', content: 'Go.' }],
        });
        // in the run's trace, where a guard called by the user's function finds it
        const sent = await withTrace(tracer, () =>
          executeToolCalls(completion.choices[0]!.message, parallel),
        );
        expect(sent.map((message) => message.content)).toEqual([
          'slow result',
          'fast result',
          'Error: no luck',
        ]);
        // the order rule links each output to its call: recorded in the calls' order
        expect(linked(tracer).calls).toEqual([
          { name: 'slow', outputs: ['slow result'] },
          { name: 'fast', outputs: ['fast result'] },
          { name: 'failing', outputs: ['Error: no luck'] },
        ]);
        expect(linked(tracer).orphans).toEqual({ tool_calls: [], tool_results: [] });
        if (guarded !== false) {
          // each result with its guard's record
          const results = tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT');
          for (const result of results)
            expect(result.metadata).toMatchObject({ guard: { attempts: [{ attempt: 1 }] } });
          expect(JSON.stringify(tracer.blocks())).not.toContain('call_without_id');
        }
      });
});
