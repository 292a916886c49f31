import { createTracer, parsePolicy, type Tracer, validateBlocks } from '@tracewarden/core';
import { comparableTrace } from '@tracewarden/core/testing';
import {
  type RandomConversation,
  randomConversation,
  startScriptedServer,
} from '@tracewarden/testing';
import fc from 'fast-check';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Response, ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { executeToolCalls } from '../tools/execute-tool-calls.js';
import { wrapOpenAI } from './wrap-openai.js';

// One conversation, one trace, whichever OpenAI API carries it: the Responses API (items,
// reasoning summaries, function_call / function_call_output) against chat completions.

/** A policy refusing every `record_note` call (refuse mode): some calls of a turn run, some not. */
const noNotes = {
  policy: parsePolicy(`
raise "notes are not allowed" if:
    (call: ToolCall)
    call is tool:record_note
`),
  onPolicyViolation: 'refuse' as const,
};

async function viaChat(story: RandomConversation, refuse: boolean): Promise<Tracer> {
  await using server = await startScriptedServer({ turns: [...story.turns] });
  const tracer = createTracer();
  const client = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 }), {
    tracer,
    ...(refuse ? noNotes : {}),
  });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: story.system },
    { role: 'user', content: story.user },
  ];
  const tools = story.tools.map((definition) => ({
    type: 'function' as const,
    function: definition,
  }));
  const implementations = Object.fromEntries(story.tools.map(({ name }) => [name, story.run]));
  for (let step = 0; step < story.turns.length; step++) {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      tools,
    });
    const message = completion.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage;
    messages.push(message);
    if (message.tool_calls?.length)
      messages.push(...(await executeToolCalls(message, implementations, { tracer })));
  }
  return tracer;
}

async function viaResponses(
  story: RandomConversation,
  stream: boolean,
  refuse: boolean,
): Promise<Tracer> {
  await using server = await startScriptedServer({ turns: [...story.turns] });
  const tracer = createTracer();
  const client = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 }), {
    tracer,
    ...(refuse ? noNotes : {}),
  });
  const input: ResponseInputItem[] = [
    { role: 'system', content: story.system },
    { role: 'user', content: story.user },
  ];
  const tools = story.tools.map((definition) => ({
    type: 'function' as const,
    ...definition,
    strict: false,
  }));
  const implementations = Object.fromEntries(story.tools.map(({ name }) => [name, story.run]));
  for (let step = 0; step < story.turns.length; step++) {
    let response: Response | undefined;
    if (stream) {
      const events = await client.responses.create({
        model: 'gpt-4o-mini',
        input,
        tools,
        stream: true,
      });
      for await (const event of events)
        if (event.type === 'response.completed') response = event.response;
    } else response = await client.responses.create({ model: 'gpt-4o-mini', input, tools });
    if (response === undefined) throw new Error('no response.completed event');
    input.push(...(response.output as ResponseInputItem[]));
    if (response.output.some((item) => item.type === 'function_call'))
      input.push(...(await executeToolCalls(response, implementations, { tracer })));
  }
  return tracer;
}

function comparable(tracer: Tracer) {
  expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  const trace = comparableTrace(tracer.stitched());
  expect(trace.orphans).toBe(0);
  return trace;
}

describe('any conversation, one trace: the Responses API and chat completions (property)', () => {
  for (const [stream, refuse] of [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ] as const)
    it(`responses${stream ? ', streamed' : ''}${refuse ? ', policy refusing record_note' : ''}: the same stitched trace as chat completions`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer(), async (seed) => {
          const story = randomConversation(seed);
          expect(comparable(await viaResponses(story, stream, refuse))).toEqual(
            comparable(await viaChat(story, refuse)),
          );
        }),
        { numRuns: 25 },
      );
    }, 120_000);
});
