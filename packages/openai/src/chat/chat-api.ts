import type { ModelCallHandle, ModelCallOutcome } from '@tracewarden/core';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
} from 'openai/resources/chat/completions';
import type { StreamObserver } from '../stream/tap-stream.js';
import type { ApiAdapter, PreparedRequest, WrapContext } from '../wrap/api-adapter.js';
import { chatCompletionResponse, chatMessagesToNeutral, chatToolNames } from './chat-messages.js';
import { chatStreamObserver } from './chat-stream-observer.js';

function requestParameters(body: Record<string, unknown>): Record<string, unknown> {
  const { messages: _messages, ...rest } = body;
  return rest;
}

/** Applies a refuse-mode outcome to a non-streamed completion: refused calls out, refusal in. */
function applyRefusal(completion: ChatCompletion, outcome: ModelCallOutcome): void {
  const choice = completion.choices[0];
  if (choice === undefined || outcome.refusalText === undefined) return;
  const refused = new Set(
    outcome.toolCalls
      .filter((review) => review.refusal !== undefined)
      .map((review) => review.call.id),
  );
  const message = choice.message;
  const kept = (message.tool_calls ?? []).filter((call) => !refused.has(call.id));
  if (kept.length > 0) message.tool_calls = kept;
  else {
    delete message.tool_calls;
    if (choice.finish_reason === 'tool_calls') choice.finish_reason = 'stop';
  }
  message.content = message.content
    ? `${message.content}\n\n${outcome.refusalText}`
    : outcome.refusalText;
}

/** Chat completions (`client.chat.completions.create`). @internal */
export const chatApi: ApiAdapter = {
  api: 'chat.completions',

  start(body) {
    const params = body as unknown as ChatCompletionCreateParams;
    return {
      provider: 'openai',
      model: params.model,
      messages: chatMessagesToNeutral(params.messages ?? []),
      tools: chatToolNames(params.tools),
      raw: requestParameters(body),
    };
  },

  prepare(body, context): PreparedRequest {
    if (body.stream !== true || !context.includeUsage) return { body, injectedUsage: false };
    const streamOptions = body.stream_options as { include_usage?: boolean } | null | undefined;
    if (streamOptions?.include_usage !== undefined) return { body, injectedUsage: false };
    return {
      body: { ...body, stream_options: { ...streamOptions, include_usage: true } },
      injectedUsage: true,
    };
  },

  finish(data, requestId, handle: ModelCallHandle, context: WrapContext) {
    const completion = data as ChatCompletion;
    const response = chatCompletionResponse(completion, requestId);
    if (!context.recordRaw) delete response.raw;
    const outcome = handle.finish(response);
    if (outcome.refused) applyRefusal(completion, outcome);
    return outcome;
  },

  observeStream(controller, handle, prepared, context): StreamObserver<unknown> {
    const recorder = context.recorder;
    return chatStreamObserver(controller, handle, {
      hideUsageChunk: prepared.injectedUsage,
      checkPolicy: recorder.hasPolicy,
      refuse: recorder.hasPolicy && recorder.onPolicyViolation === 'refuse',
    }) as StreamObserver<unknown>;
  },
};

export type { ChatCompletionChunk };
