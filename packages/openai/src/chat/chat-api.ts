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

/** The request's parameters without its messages (recorded as blocks): a plain loop, no rest copy. */
function requestParameters(body: Record<string, unknown>): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const key in body) if (key !== 'messages' && Object.hasOwn(body, key)) rest[key] = body[key];
  return rest;
}

const usageOnly: Readonly<{ include_usage: true }> = Object.freeze({ include_usage: true });

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

  start(body, stream, signal) {
    const params = body as unknown as ChatCompletionCreateParams;
    return {
      provider: 'openai',
      api: 'chat.completions',
      model: params.model,
      messages: chatMessagesToNeutral(params.messages ?? []),
      tools: chatToolNames(params.tools),
      stream,
      raw: requestParameters(body),
      signal,
    };
  },

  prepare(body, context): PreparedRequest {
    if (body.stream !== true || !context.includeUsage) return { body, injectedUsage: false };
    const streamOptions = body.stream_options as { include_usage?: boolean } | null | undefined;
    if (streamOptions?.include_usage !== undefined) return { body, injectedUsage: false };
    const sent = { ...body };
    // Without stream options of the caller's (the usual case) one shared, frozen object: the
    // SDK only serialises it, and `raw.request` records the caller's body, not this one.
    sent.stream_options =
      streamOptions === undefined || streamOptions === null
        ? usageOnly
        : { ...streamOptions, include_usage: true };
    return { body: sent, injectedUsage: true };
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
