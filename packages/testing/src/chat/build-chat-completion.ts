import type { ChatCompletion, ChatCompletionMessage } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { PlannedReply } from '../turns/plan-reply.js';

/**
 * The assistant message as sent on the wire: the SDK type plus `reasoning_content`, the field
 * OpenAI-compatible reasoning servers (DeepSeek, vLLM, ...) use; the official API has none.
 *
 * @internal
 */
export type WireChatCompletionMessage = ChatCompletionMessage & { reasoning_content?: string };

/**
 * A chat completion whose message may carry `reasoning_content`.
 *
 * @internal
 */
export type WireChatCompletion = Omit<ChatCompletion, 'choices'> & {
  choices: (Omit<ChatCompletion.Choice, 'message'> & { message: WireChatCompletionMessage })[];
};

/**
 * Builds the non-streaming `chat.completion` body for a planned reply.
 *
 * @internal
 * @param reply - The planned reply.
 * @returns The JSON body.
 */
export function buildChatCompletion(reply: PlannedReply): WireChatCompletion {
  const message: WireChatCompletionMessage = {
    role: 'assistant',
    content: reply.text ?? null,
    refusal: null,
    annotations: [],
  };
  if (reply.reasoning !== undefined) message.reasoning_content = reply.reasoning;
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call) =>
      call.type === 'custom'
        ? { id: call.id, type: 'custom', custom: { name: call.name, input: call.arguments } }
        : {
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          },
    );
  }
  return {
    id: chatCompletionId(reply),
    object: 'chat.completion',
    created: reply.created,
    model: reply.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: buildCompletionUsage(reply),
    service_tier: 'default',
  };
}

/**
 * The deterministic completion id for a reply (`chatcmpl-<request number>`).
 *
 * @internal
 * @param reply - The planned reply.
 * @returns The id.
 */
export function chatCompletionId(reply: PlannedReply): string {
  return `chatcmpl-scripted${reply.requestNumber}`;
}

/**
 * Builds chat completions usage with cached and reasoning token details.
 *
 * @internal
 * @param reply - The planned reply.
 * @returns The usage object.
 */
export function buildCompletionUsage(reply: PlannedReply): CompletionUsage {
  const { inputTokens, outputTokens, cachedTokens, reasoningTokens } = reply.usage;
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}
