import { errorType } from '../guards/error-type.js';
import type { ModelCallAttempt, ModelCallCost, ModelCallStatus, ModelUsage } from './types.js';

/*
 * The response MESSAGE's metadata, built in one place and in one key order.
 */

/** What a response MESSAGE's metadata records. @internal */
export interface ResponseMetadataFields {
  provider: string;
  api: string | undefined;
  /** The model that answered. */
  model: string;
  /** The model the request named. */
  requestModel: string;
  status: ModelCallStatus;
  stream: boolean;
  latencyMs: number;
  timeToFirstTokenMs: number | null;
  requestId: string | null;
  /** The array the trace keeps (attempts recorded later still land in it). */
  attempts: ModelCallAttempt[];
  responseId: string | undefined;
  /** Normalised (`normalizeFinishReason`). */
  finishReason: string | undefined;
  /** The provider's own value. */
  providerFinishReason: string | undefined;
  usage: ModelUsage | undefined;
  cost: ModelCallCost | undefined;
}

/**
 * A response MESSAGE's metadata: the adapter's own keys first (rare), then the recorder's over
 * them, always in the same order (`provider`, `api`, `model`, `request_model`, `status`,
 * `stream`, `latency_ms`, `time_to_first_token_ms`, `request_id`, `attempts`, then `response_id`,
 * `finish_reason`, `provider_finish_reason`, `usage` and `cost` when known). The caller adds the rarer keys after these.
 * @internal
 */
export function responseMetadata(
  fields: ResponseMetadataFields,
  extra: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const metadata: Record<string, unknown> = extra === undefined ? {} : { ...extra };
  metadata.provider = fields.provider;
  if (fields.api !== undefined) metadata.api = fields.api;
  metadata.model = fields.model;
  metadata.request_model = fields.requestModel;
  metadata.status = fields.status;
  metadata.stream = fields.stream;
  metadata.latency_ms = fields.latencyMs;
  metadata.time_to_first_token_ms = fields.timeToFirstTokenMs;
  metadata.request_id = fields.requestId;
  metadata.attempts = fields.attempts;
  if (fields.responseId !== undefined) metadata.response_id = fields.responseId;
  if (fields.finishReason !== undefined) metadata.finish_reason = fields.finishReason;
  if (fields.providerFinishReason !== undefined)
    metadata.provider_finish_reason = fields.providerFinishReason;
  if (fields.usage !== undefined) metadata.usage = usageMetadata(fields.usage);
  if (fields.cost !== undefined) metadata.cost = fields.cost;
  return metadata;
}

/** Usage as recorded (snake_case, the total computed when not reported). @internal */
export function usageMetadata(usage: ModelUsage): Record<string, number> {
  const metadata: Record<string, number> = {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.totalTokens ?? usage.inputTokens + usage.outputTokens,
  };
  if (usage.cachedInputTokens !== undefined) metadata.cached_input_tokens = usage.cachedInputTokens;
  if (usage.reasoningTokens !== undefined) metadata.reasoning_tokens = usage.reasoningTokens;
  return metadata;
}

/** An error as the response MESSAGE's `metadata.error` records it. @internal */
export function errorSummary(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const summary: Record<string, unknown> = { type: errorType(error), message: error.message };
    // `status` (OpenAI's SDK, LangChain) or `statusCode` (the AI SDK's APICallError)
    const fields = error as { status?: unknown; statusCode?: unknown };
    const status = fields.status ?? fields.statusCode;
    if (typeof status === 'number' || typeof status === 'string') summary.status = status;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') summary.code = code;
    return summary;
  }
  return { type: typeof error, message: String(error) };
}

/** Milliseconds rounded to the microsecond. @internal */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** The request id of the last attempt that had one. @internal */
export function lastRequestId(attempts: readonly ModelCallAttempt[]): string | null {
  for (let i = attempts.length - 1; i >= 0; i--) {
    const id = attempts[i]?.request_id;
    if (id !== undefined) return id;
  }
  return null;
}
