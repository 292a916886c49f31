import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import type {
  ModelCallResponse,
  ModelToolCall,
  ModelUsage,
  ProviderToolCall,
} from '@tracewarden/core';
import { OutputExtras } from './output-extras.js';

/**
 * Neutral usage of an AI SDK usage object: the model layer's nested V3/V4 shape, or the flat
 * V2 / SDK-layer shape (`inputTokens` as a number).
 * @internal
 */
export function usageOf(usage: unknown): ModelUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const loose = usage as Record<string, unknown>;
  const input = loose.inputTokens;
  const output = loose.outputTokens;
  if (typeof input === 'object' && input !== null) {
    const nested = usage as LanguageModelV4Usage;
    // usage not reported (a stream without usage): unknown, not zero, so a budget charges its
    // estimate rather than nothing
    if (nested.inputTokens.total === undefined && nested.outputTokens?.total === undefined)
      return undefined;
    return {
      inputTokens: nested.inputTokens.total ?? 0,
      outputTokens: nested.outputTokens?.total ?? 0,
      cachedInputTokens: nested.inputTokens.cacheRead,
      reasoningTokens: nested.outputTokens?.reasoning,
    };
  }
  if (typeof input !== 'number' && typeof output !== 'number') return undefined;
  const details = loose.inputTokenDetails as { cacheReadTokens?: number } | undefined;
  const outputDetails = loose.outputTokenDetails as { reasoningTokens?: number } | undefined;
  return {
    inputTokens: typeof input === 'number' ? input : 0,
    outputTokens: typeof output === 'number' ? output : 0,
    cachedInputTokens:
      details?.cacheReadTokens ?? (loose.cachedInputTokens as number | undefined) ?? undefined,
    reasoningTokens:
      outputDetails?.reasoningTokens ?? (loose.reasoningTokens as number | undefined) ?? undefined,
    totalTokens: typeof loose.totalTokens === 'number' ? loose.totalTokens : undefined,
  };
}

/**
 * The finish reason: the unified one (`stop`, `tool-calls`, ...), or a V2 string, and the
 * provider's own (`raw`) when the provider gave it; core records both (one vocabulary in
 * `finish_reason`, the provider's in `provider_finish_reason`).
 * @internal
 */
export function finishReasonOf(
  reason: unknown,
): Pick<ModelCallResponse, 'finishReason' | 'providerFinishReason'> {
  if (typeof reason === 'string') return { finishReason: reason };
  const { unified, raw } = (reason ?? {}) as { unified?: unknown; raw?: unknown };
  const found: Pick<ModelCallResponse, 'finishReason' | 'providerFinishReason'> = {};
  if (typeof unified === 'string') found.finishReason = unified;
  if (typeof raw === 'string' && raw !== '') found.providerFinishReason = raw;
  return found;
}

/**
 * What a model call answered, from its content parts (the model layer's V4 content, or the SDK
 * layer's content in telemetry events, whose tool-call `input` is already parsed).
 * @internal
 */
export function contentToResponse(content: readonly unknown[]): ModelCallResponse {
  let text: string | null = null;
  let reasoning: string | null = null;
  const toolCalls: ModelToolCall[] = [];
  let providerCalls: ProviderToolCall[] | undefined;
  let extras: OutputExtras | undefined;
  for (const part of content as readonly LanguageModelV4Content[]) {
    switch (part.type) {
      case 'source':
      case 'file':
        (extras ??= new OutputExtras()).add(part);
        break;
      case 'text':
        text = (text ?? '') + part.text;
        break;
      case 'reasoning':
        reasoning = (reasoning ?? '') + part.text;
        break;
      case 'tool-call':
        // a provider-executed call (web search) already ran at the provider: nothing the
        // client runs, so nothing to review or hold; recorded with its result
        if (part.providerExecuted === true) {
          (providerCalls ??= []).push({
            id: part.toolCallId,
            name: part.toolName,
            arguments: argumentsOf(part.input),
          });
          break;
        }
        toolCalls.push({
          id: part.toolCallId,
          name: part.toolName,
          arguments: argumentsOf(part.input),
        });
        break;
      case 'tool-result': {
        // the result of a provider-executed call (the model layer has no other; the SDK layer's
        // content in telemetry events also holds the client's tools' results, left out here)
        const call = providerCalls?.find((known) => known.id === part.toolCallId);
        if (call === undefined) break;
        const result = part as { result?: unknown; output?: unknown };
        call.output = result.result !== undefined ? result.result : result.output;
        if (part.isError === true) call.isError = true;
        break;
      }
      default:
        break;
    }
  }
  const response: ModelCallResponse = { text, reasoning, toolCalls };
  if (providerCalls !== undefined) response.providerToolCalls = providerCalls;
  return extras === undefined ? response : (extras.into(response) as ModelCallResponse);
}

/**
 * A tool call's input as the recorder takes it: JSON text (the model layer's), or the object the
 * SDK layer parsed (telemetry events).
 */
function argumentsOf(input: unknown): string | Record<string, unknown> {
  return typeof input === 'string' ? input : ((input ?? {}) as Record<string, unknown>);
}

/** The provider's request id, from the response headers the provider kept. @internal */
export function requestIdOf(
  headers: Record<string, string | undefined> | undefined,
): string | undefined {
  return headers?.['x-request-id'] ?? headers?.['request-id'];
}

/** The recorder's response for a whole generate result. @internal */
export function generateResultToResponse(
  result: LanguageModelV4GenerateResult,
  recordRaw: boolean,
): ModelCallResponse {
  const response = contentToResponse(result.content);
  response.usage = usageOf(result.usage);
  const { finishReason, providerFinishReason } = finishReasonOf(result.finishReason);
  if (finishReason !== undefined) response.finishReason = finishReason;
  if (providerFinishReason !== undefined) response.providerFinishReason = providerFinishReason;
  const meta = result.response;
  if (meta?.modelId !== undefined) response.model = meta.modelId;
  if (meta?.id !== undefined) response.responseId = meta.id;
  const requestId = requestIdOf(meta?.headers);
  if (requestId !== undefined) response.requestId = requestId;
  if (recordRaw) {
    response.raw = {
      content: result.content,
      finishReason: result.finishReason,
      usage: result.usage,
      ...(result.providerMetadata === undefined
        ? {}
        : { providerMetadata: result.providerMetadata }),
      ...(meta === undefined
        ? {}
        : { response: { id: meta.id, modelId: meta.modelId, timestamp: meta.timestamp } }),
    };
  }
  return response;
}
