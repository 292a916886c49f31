import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { PlannedReply } from '../turns/plan-reply.js';
import { splitIntoChunks } from '../turns/split-into-chunks.js';
import { buildCompletionUsage, chatCompletionId } from './build-chat-completion.js';

/**
 * A chunk delta as sent on the wire, with the `reasoning_content` extension.
 *
 * @internal
 */
export type WireChatCompletionChunk = Omit<ChatCompletionChunk, 'choices'> & {
  choices: (Omit<ChatCompletionChunk.Choice, 'delta'> & {
    delta: ChatCompletionChunk.Choice.Delta & { reasoning_content?: string };
  })[];
};

/**
 * Builds the `chat.completion.chunk` sequence for a planned reply, in the real API's order:
 * a role chunk, reasoning deltas, content deltas, tool call deltas (id and name first, then
 * argument pieces, or `custom.input` pieces for a custom tool), a finish chunk and, when `includeUsage`, a usage chunk with no choices.
 * `[DONE]` is not included.
 *
 * @internal
 * @param reply - The planned reply.
 * @param includeUsage - The request's `stream_options.include_usage`.
 * @returns The chunks in order.
 */
export function buildChatCompletionChunks(
  reply: PlannedReply,
  includeUsage: boolean,
): WireChatCompletionChunk[] {
  const base = {
    id: chatCompletionId(reply),
    object: 'chat.completion.chunk' as const,
    created: reply.created,
    model: reply.model,
    service_tier: 'default' as const,
    ...(includeUsage ? { usage: null } : {}),
  };
  const chunk = (
    delta: WireChatCompletionChunk['choices'][number]['delta'],
    finishReason: ChatCompletionChunk.Choice['finish_reason'] = null,
  ): WireChatCompletionChunk => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });

  const chunks: WireChatCompletionChunk[] = [
    chunk({ role: 'assistant', content: reply.text === undefined ? null : '', refusal: null }),
  ];
  for (const piece of splitIntoChunks(reply.reasoning ?? '', reply.chunkSize)) {
    chunks.push(chunk({ reasoning_content: piece }));
  }
  for (const piece of splitIntoChunks(reply.text ?? '', reply.chunkSize)) {
    chunks.push(chunk({ content: piece }));
  }
  reply.toolCalls.forEach((call, index) => {
    if (call.type === 'custom') {
      // a custom tool's free-form input streams in `custom.input` pieces, as the real API sends it
      chunks.push(
        chunk({
          tool_calls: [
            { index, id: call.id, type: 'custom', custom: { name: call.name, input: '' } },
          ],
        }),
      );
      for (const piece of splitIntoChunks(call.arguments, reply.chunkSize)) {
        chunks.push(chunk({ tool_calls: [{ index, custom: { input: piece } }] }));
      }
      return;
    }
    chunks.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      }),
    );
    for (const piece of splitIntoChunks(call.arguments, reply.chunkSize)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, reply.finishReason));
  if (includeUsage) chunks.push({ ...base, choices: [], usage: buildCompletionUsage(reply) });
  return chunks;
}
