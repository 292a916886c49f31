import type {
  ModelCallDelta,
  ModelCallResponse,
  ModelToolCall,
  ModelToolCallDelta,
  ModelUsage,
  NeutralMessage,
  NeutralToolCall,
} from '@tracewarden/core';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { jsonStringPiece } from '../stream/json-string-piece.js';

/** A streamed tool-call piece: openai 7 types `custom`, openai 6 does not. */
interface LooseToolCallDelta {
  type?: string;
  custom?: { name?: string; input?: string };
}

interface LooseToolCall {
  id: string;
  type?: string;
  function?: { name: string; arguments: string };
  custom?: { name: string; input: string };
}

function neutralToolCall(call: LooseToolCall): NeutralToolCall {
  if (call.function !== undefined) return call as NeutralToolCall;
  return {
    id: call.id,
    type: 'function',
    function: {
      name: call.custom?.name ?? 'unknown',
      arguments: { input: call.custom?.input ?? '' },
    },
  };
}

/**
 * Chat-completions request messages in the neutral shape. Function tool calls are already in
 * it, so most messages pass through as they are; custom tool calls become `{ input }` calls.
 * @internal
 */
export function chatMessagesToNeutral(
  messages: readonly ChatCompletionMessageParam[],
): NeutralMessage[] {
  const result: NeutralMessage[] = new Array(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as unknown as NeutralMessage & { tool_calls?: LooseToolCall[] };
    const calls = message.tool_calls;
    if (calls?.some((call) => call.function === undefined)) {
      result[i] = { ...message, tool_calls: calls.map(neutralToolCall) };
    } else {
      result[i] = message;
    }
  }
  return result;
}

/** Names of the offered tools. @internal */
export function chatToolNames(
  tools: readonly ChatCompletionTool[] | undefined,
): { name: string }[] | undefined {
  if (tools === undefined) return undefined;
  return tools.map((tool) => {
    const loose = tool as { function?: { name: string }; custom?: { name: string } };
    return { name: loose.function?.name ?? loose.custom?.name ?? 'unknown' };
  });
}

/** Neutral usage of a chat completion. @internal */
export function chatUsage(usage: CompletionUsage | null | undefined): ModelUsage | undefined {
  if (usage === null || usage === undefined) return undefined;
  return {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
    cachedInputTokens: usage.prompt_tokens_details?.cached_tokens,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens,
  };
}

/** Reasoning text some OpenAI-compatible servers add (`reasoning_content`, `reasoning`). */
function reasoningOf(value: object): string | undefined {
  const loose = value as { reasoning_content?: unknown; reasoning?: unknown };
  if (typeof loose.reasoning_content === 'string') return loose.reasoning_content;
  if (typeof loose.reasoning === 'string') return loose.reasoning;
  return undefined;
}

/**
 * The neutral response of a chat completion (its first choice).
 * @internal
 */
export function chatCompletionResponse(
  completion: ChatCompletion,
  requestId: string | null | undefined,
): ModelCallResponse {
  // (`choices` absent in a body a proxy made up: no answer, not a crash)
  const choice = completion.choices?.[0];
  const message = choice?.message;
  const calls: ModelToolCall[] = [];
  for (const call of (message?.tool_calls ?? []) as LooseToolCall[]) {
    const neutral = neutralToolCall(call);
    calls.push({
      id: neutral.id,
      name: neutral.function.name,
      arguments: neutral.function.arguments,
    });
  }
  const response: ModelCallResponse = {
    text: message?.content ?? message?.refusal ?? null,
    reasoning: message === undefined ? null : (reasoningOf(message) ?? null),
    toolCalls: calls,
    usage: chatUsage(completion.usage),
    model: completion.model,
    responseId: completion.id,
    requestId,
    raw: completion,
  };
  if (choice?.finish_reason) response.finishReason = choice.finish_reason;
  return response;
}

/**
 * Whether a streamed tool-call piece belongs to a custom (free-form) tool call: `type: 'custom'`
 * or a `custom` object instead of `function`.
 * @internal
 */
export function isCustomToolCallDelta(piece: object): boolean {
  const loose = piece as LooseToolCallDelta;
  return loose.type === 'custom' || loose.custom !== undefined;
}

/**
 * The delta of a streamed chunk for the recorder: text, reasoning, tool-call pieces, finish
 * reason and usage, written into `into` (a stream reuses one object: the recorder reads a
 * delta, never keeps it) or a new object. Every field is set (undefined when absent), so every
 * delta has the same hidden class; `model` and `responseId` are left for the caller to set.
 * A custom tool call's input pieces (`custom: { name, input }`) become the arguments pieces of
 * `{ input }`; `openCustomCalls` (one set per stream) keeps the indexes of those still open,
 * closed by the chunk that carries the finish reason.
 * @internal
 */
export function chatChunkDelta(
  chunk: ChatCompletionChunk,
  into?: ModelCallDelta,
  openCustomCalls: Set<number> = new Set(),
): ModelCallDelta {
  // the first answer's (index 0): a request for several (`n`) streams each answer's chunks under
  // its own index, and the trace records one answer per call, as for a completion
  const first = chunk.choices[0];
  const choice =
    first === undefined || (first.index ?? 0) === 0
      ? first
      : chunk.choices.find((candidate) => candidate.index === 0);
  const delta = choice?.delta as ChatCompletionChunk.Choice.Delta | null | undefined;
  let text: string | undefined;
  let reasoning: string | undefined;
  let toolCalls: ModelToolCallDelta[] | undefined;
  if (delta !== undefined && delta !== null) {
    if (typeof delta.content === 'string' && delta.content !== '') text = delta.content;
    else if (typeof delta.refusal === 'string' && delta.refusal !== '') text = delta.refusal;
    reasoning = reasoningOf(delta) || undefined;
    if (delta.tool_calls) {
      toolCalls = delta.tool_calls.map((piece) => {
        const out: ModelToolCallDelta = { index: piece.index };
        if (piece.id) out.id = piece.id;
        if (isCustomToolCallDelta(piece)) {
          const custom = (piece as LooseToolCallDelta).custom;
          // a custom tool's free-form input, recorded as `{ input }` (as a non-streamed custom
          // call is): its pieces stream as the JSON text of that object, closed at the finish
          if (custom?.name) out.name = custom.name;
          let text = custom?.input ? jsonStringPiece(custom.input) : '';
          if (!openCustomCalls.has(piece.index)) {
            openCustomCalls.add(piece.index);
            text = `{"input":"${text}`;
          }
          if (text !== '') out.arguments = text;
          return out;
        }
        if (piece.function?.name) out.name = piece.function.name;
        if (piece.function?.arguments) out.arguments = piece.function.arguments;
        return out;
      });
    }
  }
  const finishReason = choice?.finish_reason || undefined;
  if (finishReason !== undefined && openCustomCalls.size > 0) {
    // the finish ends every call: the custom calls' JSON closes (a stream cut short before it
    // leaves them partial, as a function call's unfinished arguments are)
    toolCalls ??= [];
    for (const index of openCustomCalls) toolCalls.push({ index, arguments: '"}' });
    openCustomCalls.clear();
  }
  const usage = chunk.usage ? chatUsage(chunk.usage) : undefined;
  if (into === undefined)
    return {
      text,
      reasoning,
      toolCalls,
      usage,
      finishReason,
      model: undefined,
      responseId: undefined,
    };
  into.text = text;
  into.reasoning = reasoning;
  into.toolCalls = toolCalls;
  into.usage = usage;
  into.finishReason = finishReason;
  into.model = undefined;
  into.responseId = undefined;
  return into;
}
