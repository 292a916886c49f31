/**
 * OpenAI's custom (free-form) tool calls, through the real client over HTTP: recorded as a
 * TOOL_CALL with `{ input }`, checked by the policy, removed in refuse mode, answered by a
 * TOOL_RESULT under the call; chat and responses, streamed and not.
 */
import { PolicyViolationError, parsePolicy, validateBlocks } from '@tracewarden/core';
import type { ScriptedToolCall, ScriptedTurn } from '@tracewarden/testing';
import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import {
  expectWholeTrace,
  responsesTurn,
  resultUnder,
  setupForTest,
  toolCall,
} from '../__fixtures__/setup.js';
import { executeToolCalls } from '../tools/execute-tool-calls.js';
import type { WrapOpenAIOptions } from './wrap-openai.js';

const start = (turns: ScriptedTurn[], options: WrapOpenAIOptions = {}) =>
  setupForTest({ turns, chunkSize: 5 }, options);

const noPatches = parsePolicy(`
raise "no patches" if:
    (call: ToolCall)
    call is tool:apply_patch
`);

// quotes, a backslash, a newline and a non-BMP character: every piece must survive the stream
const patchInput = '*** Begin Patch\n*** Update File: "a\\b.ts"\n+ok 🎉\n*** End Patch';
const patchCall: ScriptedToolCall = {
  type: 'custom',
  id: 'call_patch',
  name: 'apply_patch',
  arguments: patchInput,
};
const grepCall: ScriptedToolCall = {
  type: 'custom',
  id: 'call_grep',
  name: 'grep',
  arguments: 'TODO src/',
};
const lookupCall: ScriptedToolCall = { id: 'call_lookup', name: 'lookup', arguments: { q: 'x' } };

/** What the caller of chat completions saw: the message, and every chunk when streamed. */
async function chatTurn(
  client: OpenAI,
  messages: ChatCompletionMessageParam[],
  stream: boolean,
): Promise<{ message: ChatCompletionMessage; chunks: ChatCompletionChunk[] }> {
  if (!stream) {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    return { message: completion.choices[0]!.message, chunks: [] };
  }
  const chunks: ChatCompletionChunk[] = [];
  const runner = client.chat.completions.stream({ model: 'gpt-4o-mini', messages });
  runner.on('chunk', (chunk) => chunks.push(chunk));
  const final = await runner.finalChatCompletion();
  return { message: final.choices[0]!.message as ChatCompletionMessage, chunks };
}

/** What the caller of the Responses API saw: the response, and every event when streamed. */

/** The SDK's stream helpers wrap what the stream throws: ours is the cause. */
function policyError(thrown: unknown): PolicyViolationError | undefined {
  if (PolicyViolationError.isInstance(thrown)) return thrown;
  const cause = (thrown as { cause?: unknown } | null)?.cause;
  return PolicyViolationError.isInstance(cause) ? cause : undefined;
}

for (const stream of [false, true]) {
  const mode = stream ? 'streamed' : 'not streamed';

  describe(`custom tool calls in chat completions (${mode})`, () => {
    it('records the call as { input }, and the tool message sent back as its TOOL_RESULT', async () => {
      const { tracer, client, server } = await start([
        { text: 'Patching.', toolCalls: [patchCall, lookupCall] },
        { text: 'Done.' },
      ]);
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'fix it' }];
      const { message } = await chatTurn(client, messages, stream);
      expect(message.tool_calls?.[0]).toMatchObject({
        id: 'call_patch',
        type: 'custom',
        custom: { name: 'apply_patch', input: patchInput },
      });
      expect(toolCall(tracer, 'call_patch')?.payload).toEqual({
        call_id: 'call_patch',
        name: 'apply_patch',
        arguments: { input: patchInput },
      });
      messages.push(
        message,
        { role: 'tool', tool_call_id: 'call_patch', content: 'patched' },
        { role: 'tool', tool_call_id: 'call_lookup', content: 'found' },
      );
      await chatTurn(client, messages, stream);
      expect(server.requests).toHaveLength(2);
      expect(resultUnder(tracer, 'call_patch')?.payload).toEqual({
        call_id: 'call_patch',
        output: 'patched',
      });
      // the re-sent assistant message is the recorded one: not recorded again
      expect(
        tracer
          .blocks()
          .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant'),
      ).toHaveLength(2);
      expectWholeTrace(tracer);
    });

    it("'throw': the policy sees the custom call's name and rejects it", async () => {
      const { tracer, client } = await start([{ toolCalls: [patchCall] }], { policy: noPatches });
      const thrown = await chatTurn(client, [{ role: 'user', content: 'fix it' }], stream).catch(
        (error: unknown) => error,
      );
      const error = policyError(thrown);
      expect(error?.code).toBe('POLICY_VIOLATION');
      expect(toolCall(tracer, 'call_patch')?.metadata).toMatchObject({
        policy: 'block',
        violations: [{ message: 'no patches', action: 'block' }],
      });
      expect(validateBlocks(tracer.blocks()).ok).toBe(true);
    });

    it("'refuse': the caller never sees the call, reads the refusal, and an allowed custom call stays custom", async () => {
      const { tracer, client, server } = await start(
        [{ toolCalls: [patchCall, grepCall] }, { text: 'I will not patch.' }],
        { policy: noPatches, onPolicyViolation: 'refuse' },
      );
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'fix it' }];
      const { message, chunks } = await chatTurn(client, messages, stream);
      expect(message.tool_calls).toEqual([
        { id: 'call_grep', type: 'custom', custom: { name: 'grep', input: 'TODO src/' } },
      ]);
      expect(message.content).toMatch(/^Tool call apply_patch was blocked by policy: no patches/);
      const pieces = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
      expect(pieces.some((piece) => piece.id === 'call_patch')).toBe(false);
      expect(JSON.stringify(chunks)).not.toContain('Begin Patch');
      messages.push(message, { role: 'tool', tool_call_id: 'call_grep', content: 'none' });
      await chatTurn(client, messages, stream);
      expect(JSON.stringify(server.requests[1]?.body)).toContain('blocked by policy');
      expect(resultUnder(tracer, 'call_patch')?.metadata).toMatchObject({ refused: true });
      expect(resultUnder(tracer, 'call_grep')?.payload).toMatchObject({ output: 'none' });
      expect(
        tracer
          .blocks()
          .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant'),
      ).toHaveLength(2);
      expectWholeTrace(tracer);
    });

    it('executeToolCalls runs a custom tool with { input } and records its result', async () => {
      const { tracer, client } = await start([{ toolCalls: [patchCall, lookupCall] }]);
      const { message } = await chatTurn(client, [{ role: 'user', content: 'fix it' }], stream);
      const seen: unknown[] = [];
      const answers = await executeToolCalls(message, {
        apply_patch: (args: { input: string }) => {
          seen.push(args);
          return 'patched';
        },
        lookup: () => 'found',
      });
      expect(seen).toEqual([{ input: patchInput }]);
      expect(answers).toEqual([
        { role: 'tool', tool_call_id: 'call_patch', content: 'patched' },
        { role: 'tool', tool_call_id: 'call_lookup', content: 'found' },
      ]);
      expect(resultUnder(tracer, 'call_patch')?.metadata).toMatchObject({
        status: 'success',
        tool_name: 'apply_patch',
      });
      expectWholeTrace(tracer);
    });
  });

  describe(`custom tool calls in the Responses API (${mode})`, () => {
    it('records the custom_tool_call as { input }, and custom_tool_call_output as its TOOL_RESULT', async () => {
      const { tracer, client } = await start([
        { text: 'Patching.', toolCalls: [patchCall, lookupCall] },
        { text: 'Done.' },
      ]);
      const input: ResponseInputItem[] = [{ role: 'user', content: 'fix it' }];
      const { response } = await responsesTurn(client, input, stream);
      expect(response.output.find((item) => item.type === 'custom_tool_call')).toMatchObject({
        call_id: 'call_patch',
        input: patchInput,
      });
      expect(toolCall(tracer, 'call_patch')?.payload).toEqual({
        call_id: 'call_patch',
        name: 'apply_patch',
        arguments: { input: patchInput },
      });
      input.push(
        ...(response.output as ResponseInputItem[]),
        { type: 'custom_tool_call_output', call_id: 'call_patch', output: 'patched' },
        { type: 'function_call_output', call_id: 'call_lookup', output: 'found' },
      );
      await responsesTurn(client, input, stream);
      expect(resultUnder(tracer, 'call_patch')?.payload).toEqual({
        call_id: 'call_patch',
        output: 'patched',
      });
      expect(
        tracer
          .blocks()
          .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant'),
      ).toHaveLength(2);
      expectWholeTrace(tracer);
    });

    it("'throw': the policy sees the custom call's name and rejects it, before any of its events", async () => {
      const { tracer, client } = await start([{ toolCalls: [patchCall] }], { policy: noPatches });
      const seen: ResponseStreamEvent[] = [];
      const thrown = await (async () => {
        if (!stream) return client.responses.create({ model: 'gpt-4o-mini', input: 'fix it' });
        const sse = await client.responses.create({
          model: 'gpt-4o-mini',
          input: 'fix it',
          stream: true,
        });
        for await (const event of sse) seen.push(event);
      })().catch((error: unknown) => error);
      expect(policyError(thrown)?.code).toBe('POLICY_VIOLATION');
      expect(seen.some((event) => event.type.startsWith('response.custom_tool_call'))).toBe(false);
      expect(seen.some((event) => event.type.startsWith('response.output_item'))).toBe(false);
      expect(toolCall(tracer, 'call_patch')?.metadata).toMatchObject({ policy: 'block' });
      expect(validateBlocks(tracer.blocks()).ok).toBe(true);
    });

    it("'refuse': the caller never sees the call and reads the refusal; the history is recorded once", async () => {
      const { tracer, client, server } = await start(
        [{ toolCalls: [patchCall, lookupCall] }, { text: 'I will not patch.' }],
        { policy: noPatches, onPolicyViolation: 'refuse' },
      );
      const input: ResponseInputItem[] = [{ role: 'user', content: 'fix it' }];
      const { response, events } = await responsesTurn(client, input, stream);
      expect(response.output.some((item) => item.type === 'custom_tool_call')).toBe(false);
      // a raw stream's snapshot has no SDK-computed output_text: read the message item
      const text = response.output.flatMap((item) =>
        item.type === 'message'
          ? item.content.map((part) => (part.type === 'output_text' ? part.text : ''))
          : [],
      );
      expect(text.join('')).toMatch(/^Tool call apply_patch was blocked by policy/);
      expect(events.some((event) => event.type.startsWith('response.custom_tool_call'))).toBe(
        false,
      );
      expect(JSON.stringify(events)).not.toContain('Begin Patch');
      if (stream) expect(events.at(-1)?.type).toBe('response.completed');
      input.push(
        ...(response.output as ResponseInputItem[]),
        ...(await executeToolCalls(response, { lookup: () => 'found' })),
      );
      await responsesTurn(client, input, stream);
      expect(JSON.stringify(server.requests[1]?.body)).toContain('blocked by policy');
      expect(resultUnder(tracer, 'call_patch')?.metadata).toMatchObject({ refused: true });
      expect(
        tracer
          .blocks()
          .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant'),
      ).toHaveLength(2);
      expectWholeTrace(tracer);
    });

    it('executeToolCalls runs a custom tool and answers with a custom_tool_call_output item', async () => {
      const { tracer, client } = await start([
        { toolCalls: [patchCall, lookupCall] },
        { text: 'Done.' },
      ]);
      const input: ResponseInputItem[] = [{ role: 'user', content: 'fix it' }];
      const { response } = await responsesTurn(client, input, stream);
      const outputs = await executeToolCalls(response, {
        apply_patch: ({ input: patch }: { input: string }) => `applied ${patch.length} chars`,
        lookup: () => 'found',
      });
      expect(outputs).toEqual([
        {
          type: 'custom_tool_call_output',
          call_id: 'call_patch',
          output: `applied ${patchInput.length} chars`,
        },
        { type: 'function_call_output', call_id: 'call_lookup', output: 'found' },
      ]);
      input.push(...(response.output as ResponseInputItem[]), ...outputs);
      await responsesTurn(client, input, stream);
      // recorded by executeToolCalls, not again from the next request's input
      expect(
        tracer
          .blocks()
          .filter(
            (block) => block.sub_type === 'TOOL_RESULT' && block.payload.call_id === 'call_patch',
          ),
      ).toHaveLength(1);
      expect(resultUnder(tracer, 'call_patch')?.metadata).toMatchObject({ status: 'success' });
      expectWholeTrace(tracer);
    });
  });
}

describe('custom tool calls cut short', () => {
  it('a chat stream dropped mid-input records the custom call as partial', async () => {
    const { tracer, client } = await start([
      { toolCalls: [patchCall], fault: { type: 'drop-mid-stream', afterChunks: 4 } },
    ]);
    const thrown = await chatTurn(client, [{ role: 'user', content: 'fix it' }], true).catch(
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(Error);
    const call = toolCall(tracer, 'call_patch');
    expect(call?.payload.name).toBe('apply_patch');
    expect(call?.metadata.partial).toBe(true);
    expect(validateBlocks(tracer.blocks()).ok).toBe(true);
  });

  it('a Responses stream dropped mid-input records the custom call as partial', async () => {
    const { tracer, client } = await start([
      { toolCalls: [patchCall], fault: { type: 'drop-mid-stream', afterChunks: 5 } },
    ]);
    const thrown = await responsesTurn(client, [{ role: 'user', content: 'fix it' }], true).catch(
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(Error);
    const call = toolCall(tracer, 'call_patch');
    expect(call?.payload.name).toBe('apply_patch');
    expect(call?.metadata.partial).toBe(true);
    expect(validateBlocks(tracer.blocks()).ok).toBe(true);
  });
});
