import type { GuardDecision } from '../guards/types.js';
import type { ContentPart, ToolCall, Trace } from '../model/index.js';
import type { PolicyViolation, ToolCallVerdict } from '../policy/policy-types.js';
import type { Tracer } from '../tracing/types.js';

/**
 * A tool call inside a {@link NeutralMessage}: the chat-event shape, with `arguments` either the
 * parsed object or its JSON text (adapters pass what the framework gave them).
 * @example `{ id: 'call_1', type: 'function', function: { name: 'get_inbox', arguments: '{}' } }`
 */
export interface NeutralToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: Record<string, unknown> | string };
}

/**
 * One request message in the framework-neutral (chat-event) shape adapters convert to:
 * `system`, `developer`, `user`, `assistant` (optionally with `tool_calls`) or `tool` (with
 * `tool_call_id`). Unknown fields are ignored.
 * @example `{ role: 'tool', tool_call_id: 'call_1', content: '[{"from":"bob@x.com"}]' }`
 */
export interface NeutralMessage {
  role: string;
  content?: string | ContentPart[] | null;
  tool_calls?: NeutralToolCall[] | undefined;
  tool_call_id?: string | undefined;
  name?: string | undefined;
  /**
   * A `tool` message's outcome, when the framework knows it (the AI SDK marks a tool error as
   * `error-text`): recorded as the TOOL_RESULT's `metadata.status` (a seed-004 ToolCallStatus).
   */
  status?: 'success' | 'failure' | undefined;
  /**
   * A `tool` message's output as the value the tool returned, when the framework keeps it apart
   * from the text the model reads (the AI SDK's `{ type: 'json', value }` results): recorded as
   * the TOOL_RESULT's `output` instead of `content`, so that a result reads the same whether a
   * request re-sends it or a guarded tool recorded it.
   */
  outputValue?: unknown;
  [key: string]: unknown;
}

/**
 * Token usage of one model call, provider-neutral.
 * @example `{ inputTokens: 120, outputTokens: 30, cachedInputTokens: 64, reasoningTokens: 8 }`
 */
export interface ModelUsage {
  /** Prompt tokens, cached ones included. */
  inputTokens: number;
  /** Completion tokens, reasoning included. */
  outputTokens: number;
  /** Prompt tokens served from the provider's cache. */
  cachedInputTokens?: number | undefined;
  /** Completion tokens spent on reasoning. */
  reasoningTokens?: number | undefined;
  /** Total tokens as reported. @default inputTokens + outputTokens */
  totalTokens?: number | undefined;
}

/**
 * A piece of a streamed response, as an adapter extracts it from one provider chunk. Every
 * field is optional; tool calls arrive in pieces keyed by `index`.
 * @example `{ toolCalls: [{ index: 0, arguments: '{"to":' }] }`
 */
export interface ModelCallDelta {
  /** Assistant text to append. */
  text?: string | undefined;
  /** Reasoning text to append. */
  reasoning?: string | undefined;
  /** Tool-call pieces: the first piece of a call usually carries `id` and `name`. */
  toolCalls?: ModelToolCallDelta[] | undefined;
  /** Usage, when the provider reports it (usually on the last chunk). */
  usage?: ModelUsage | undefined;
  /**
   * Why the model stopped, as the provider (or the framework) says it; recorded as
   * `finish_reason` in one vocabulary (see `normalizeFinishReason`).
   */
  finishReason?: string | undefined;
  /**
   * The provider's own finish reason, when `finishReason` is a framework's unified one (the AI
   * SDK's `{ unified, raw }`); recorded as `provider_finish_reason`.
   * @default finishReason
   */
  providerFinishReason?: string | undefined;
  /** The model that answered (may differ from the requested alias). */
  model?: string | undefined;
  /** The provider's response id. */
  responseId?: string | undefined;
  /**
   * The provider's request id, when the adapter knows it before the end (from the response
   * headers): kept when the call ends without a response of its own (cancelled, failed, or
   * ended at the tracer's shutdown).
   */
  requestId?: string | undefined;
  /**
   * Tool calls the provider ran itself (see {@link ProviderToolCall}), or their results: a piece
   * with the `id` of a call already streamed adds its `output` (and `isError`) to that call.
   */
  providerToolCalls?: ProviderToolCall[] | undefined;
}

/**
 * A tool call the provider ran itself (a hosted tool: OpenAI's web search or code interpreter, a
 * remote MCP server the provider calls), with its result when the response carries one. It is
 * recorded as a TOOL_CALL under the answer, with `metadata.provider_executed: true`, and its
 * result as a TOOL_RESULT under it, so the trace shows what ran; it already ran, so no policy
 * can hold or refuse it at the call site (a whole-trace `check` still sees it).
 */
export interface ProviderToolCall {
  /** The provider's id of the call; a missing or empty one gets a generated call id. */
  id?: string | undefined;
  /** The tool's name, e.g. `web_search`. */
  name?: string | undefined;
  /** JSON text of the arguments (as the provider sent it) or the parsed object. */
  arguments?: string | Record<string, unknown> | undefined;
  /** The result the provider returned (any JSON value); absent when the response has none. */
  output?: unknown;
  /** The provider reported the run failed: its TOOL_RESULT gets `status: 'failure'`. */
  isError?: boolean | undefined;
}

/** A piece of one streamed tool call. */
export interface ModelToolCallDelta {
  /** Position of the call in the response. */
  index: number;
  id?: string | undefined;
  name?: string | undefined;
  /** A fragment of the JSON arguments. */
  arguments?: string | undefined;
  /**
   * The call's whole arguments, replacing the fragments streamed so far: what the framework will
   * run the call with (the AI SDK's `tool-call` part after its `tool-input-delta` parts), which
   * the policy reviews and the trace records even where it differs from the fragments.
   */
  completeArguments?: string | undefined;
}

/** A complete tool call the model proposed. */
export interface ModelToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments (as the provider sent it) or the parsed object. */
  arguments: string | Record<string, unknown>;
}

/**
 * A model's complete answer, as an adapter extracts it from a non-streamed response (or to
 * override what a stream aggregated).
 */
export interface ModelCallResponse {
  text?: string | null | undefined;
  reasoning?: string | null | undefined;
  toolCalls?: ModelToolCall[] | undefined;
  usage?: ModelUsage | undefined;
  model?: string | undefined;
  /**
   * Why the model stopped, as the provider (or the framework) says it; recorded as
   * `finish_reason` in one vocabulary (see `normalizeFinishReason`).
   */
  finishReason?: string | undefined;
  /**
   * The provider's own finish reason, when `finishReason` is a framework's unified one (the AI
   * SDK's `{ unified, raw }`); recorded as `provider_finish_reason`.
   * @default finishReason
   */
  providerFinishReason?: string | undefined;
  responseId?: string | undefined;
  /** The provider's request id (`x-request-id`). */
  requestId?: string | null | undefined;
  /** The raw provider payload; credentials and headers are removed before recording. */
  raw?: unknown;
  /** Tool calls the provider ran itself, with their results ({@link ProviderToolCall}). */
  providerToolCalls?: ProviderToolCall[] | undefined;
  /**
   * Adapter-specific keys for the response MESSAGE's metadata (e.g. `{ unparsed: true,
   * http_status }`). The recorder's own keys (status, usage, request_id, ...) win over them.
   */
  metadata?: Record<string, unknown> | undefined;
  /**
   * The error of an answer the provider sent but reports as failed (a Responses API
   * `response.failed`, status `failed`): the call is recorded with status `failure` and this
   * error, its output and proposed tool calls as they came (still reviewed by the policy).
   */
  failure?: unknown;
}

/**
 * Status of a model call, recorded in the response MESSAGE's `metadata.status`. The guard
 * statuses are the seed's {@link ToolCallStatus} values.
 */
export type ModelCallStatus =
  | 'success'
  | 'failure'
  | 'cancelled'
  | 'timeout'
  | 'circuit_open'
  | 'rate_limited'
  | 'budget_exceeded';

/** One HTTP attempt of a model call (the SDK's own retries included), snake_case as recorded. */
export interface ModelCallAttempt {
  /** 1-based attempt number. */
  attempt: number;
  /** HTTP status, when a response arrived. */
  http_status?: number | undefined;
  /** `success` (2xx), `failure` (an error status) or `error` (no response: connection error, abort). */
  outcome: 'success' | 'failure' | 'error';
  /** From the request start to the response headers (or the error). */
  duration_ms: number;
  /** Error message, when the attempt got no response. */
  error?: string | undefined;
  /** The provider's request id of this attempt. */
  request_id?: string | undefined;
}

/** What {@link ModelCallRecorder.start} needs to know about a request. */
export interface ModelCallStartInput {
  /** Provider name, e.g. `openai`. */
  provider: string;
  /** Which API, e.g. `chat.completions` or `responses`. */
  api?: string | undefined;
  /** The requested model. */
  model: string;
  /** The request's messages in the neutral shape (the whole conversation, as sent). */
  messages: NeutralMessage[];
  /** Tool definitions offered to the model (recorded names only). */
  tools?: readonly { name: string }[] | undefined;
  /** Whether the response is streamed. */
  stream?: boolean | undefined;
  /** Request parameters worth keeping (temperature, tool choice, ...): recorded in `raw.request`, never headers. */
  raw?: unknown;
  /** The caller's abort signal, if any: the handle's signal follows it. */
  signal?: AbortSignal | null | undefined;
  /** Records into this tracer instead of the recorder's. */
  tracer?: Tracer | undefined;
  /**
   * Refuse mode: a blocked call for which this returns true stays in the response, because the
   * framework's tool executor refuses it (a guarded tool reads the refusal for its call id): the
   * loop goes on and the model reads the refusal as the tool's result. Other blocked calls are
   * removed from the response and their refusal appended to its text.
   * @default every blocked call is removed
   */
  keepRefusedCall?: ((call: ModelToolCall) => boolean) | undefined;
  /**
   * Called when `finish()` has reviewed the proposed calls against the policy (before a `throw`
   * mode rejection): hands the verdicts to another recorder of this very call (its
   * `adoptedReviews`), when two record it into different traces. Not called without a policy.
   */
  onReviewed?: ((reviewed: ReviewedCalls) => void) | undefined;
  /**
   * The verdicts another recorder of this very call reached (an enforcing AI SDK middleware
   * inside the telemetry integration, which records the call into the trace the user reads),
   * read when the call ends: recorded on this call's TOOL_CALL blocks (the strictest decision,
   * the violations of both), and the calls that reviewer removed or rejected are recorded too.
   * They enforce nothing here: the reviewer that reached them did.
   */
  adoptedReviews?: (() => ReviewedCalls | undefined) | undefined;
}

/** A recorder's verdicts on one model call's proposed tool calls, for another recorder of it. */
export interface ReviewedCalls {
  /** The reviewing recorder's `onPolicyViolation`. */
  mode: 'throw' | 'refuse';
  /** One review per proposed call, in order. */
  reviews: readonly ToolCallReview[];
  /**
   * `throw` mode, when a call was blocked: the answer the reviewer rejected, as it records it.
   * The other recorder, which sees the call fail with the `PolicyViolationError`, records this
   * answer instead (`finish`), so both traces show a call that succeeded and whose calls were
   * blocked.
   */
  answer?: ModelCallResponse | undefined;
}

/** The verdict on one proposed tool call. */
export interface ToolCallReview {
  /** The call as proposed. */
  call: ModelToolCall;
  /** False when the policy blocked it. */
  allowed: boolean;
  /** `block`, `warn`, `log` or `allow` (no violation). */
  decision: 'allow' | 'block' | 'warn' | 'log';
  /** The violations found (any action). */
  violations: readonly PolicyViolation[];
  /** The refusal the model sees instead of the call, in `refuse` mode. */
  refusal?: string | undefined;
  /** The call stays in the response and its tool refuses it (see `keepRefusedCall`). */
  refusedAtTool?: boolean | undefined;
}

/** What {@link ModelCallHandle.finish} decided about the response. */
export interface ModelCallOutcome {
  /** The recorded status. */
  status: ModelCallStatus;
  /** One review per proposed tool call, in order. */
  toolCalls: ToolCallReview[];
  /** True when at least one call was blocked (refused, in `refuse` mode). */
  refused: boolean;
  /** In `refuse` mode with a blocked call: the text to append to the assistant message. */
  refusalText?: string | undefined;
  /** The response MESSAGE block id, when it was recorded. */
  messageBlockId?: string | undefined;
  /**
   * With a policy: re-checks a proposed call whose arguments the framework changed before
   * running it (a repaired call, a schema that trims or coerces). A block is recorded as the
   * call's refusal (whatever the mode) and its text returned; `undefined` when allowed.
   */
  recheck?: ((call: ModelToolCall) => string | undefined) | undefined;
}

/**
 * One model call in flight. The adapter feeds it: `chunk()` for each streamed piece, then exactly
 * one of `finish()`, `fail()` or `cancel()` (later calls are ignored).
 */
export interface ModelCallHandle {
  /** The tracer this call records into. */
  readonly tracer: Tracer;
  /**
   * Aborts when a guard stops the call (timeout, live budget cut-off) or the caller's signal
   * aborts. Adapters pass it to the request. Its `reason` is the typed error to throw.
   */
  readonly signal: AbortSignal;
  /** Whether a live budget cut-off or timeout stopped the call. */
  readonly stopped: boolean;
  /**
   * Set when a guard decides asynchronously (its store is shared, e.g. in Redis); `undefined`
   * when every guard decided as the call started. An adapter awaits it before sending the
   * request: it rejects with the guard's typed error, after the refusal is recorded.
   */
  readonly admission: Promise<void> | undefined;
  /** Records one HTTP attempt. */
  attempt(attempt: Omit<ModelCallAttempt, 'attempt'> & { attempt?: number }): void;
  /**
   * Aggregates a streamed piece.
   * @returns `undefined` to go on, or the typed error to throw when the call must stop now
   *   (live budget cut-off); the handle's signal is aborted too.
   */
  chunk(delta: ModelCallDelta): Error | undefined;
  /**
   * Records the response (given, or aggregated from the chunks) and checks proposed tool calls
   * against the policy.
   * @throws PolicyViolationError when a call is blocked and the mode is `throw` (after recording)
   */
  finish(response?: ModelCallResponse): ModelCallOutcome;
  /**
   * Records a failed call with whatever partial output arrived.
   * @returns the error to throw: a guard error (with `cause`) when a guard stopped the call,
   *   otherwise `error` itself
   */
  fail(error: unknown, partial?: ModelCallResponse): unknown;
  /** Records a call the caller cancelled (early `break`, abort) with the partial output. */
  cancel(partial?: ModelCallResponse): void;
  /**
   * Ends the call from an error: `cancelled` when the caller stopped it (their `signal` aborted,
   * or the error is an abort error) and no guard did, else `failed` (see {@link fail}).
   * @param error - what the SDK or the stream threw
   * @param signal - the caller's abort signal. @default the signal given to `start`
   * @returns the error to throw: a guard's typed error when a guard stopped the call, else `error`
   */
  end(error: unknown, signal?: AbortSignal | null, partial?: ModelCallResponse): unknown;
}

/**
 * A policy as the recorder uses it: anything with `checkToolCall` (a `Policy` from `parsePolicy`).
 */
export interface ToolCallPolicy {
  checkToolCall(trace: Trace, proposedCall: ToolCall): ToolCallVerdict;
}

/** Context a {@link ModelCallGuard} sees before a call. */
export interface ModelCallGuardContext {
  provider: string;
  model: string;
  /** Estimated prompt tokens (characters / 4), for guards that price before the call. */
  estimatedInputTokens: number;
}

/** What a guard keeps for one admitted call. */
export interface ModelCallGuardTicket {
  /** Decisions to record on the response message (`metadata.guard.decisions`). */
  decisions?: GuardDecision[] | undefined;
  /**
   * Live check while streaming, after each chunk: the running cost estimate in micro-USD (what
   * was generated so far) and the estimated cost of the next chunk (the largest chunk seen so
   * far). Return false when the estimate plus the next increment would pass the limit: the
   * stream is cut off before the budget is passed, not after.
   * @returns false to cut the stream off (BUDGET_EXCEEDED)
   */
  allowsRunningCost?:
    | ((estimatedCostMicroUsd: number, nextIncrementMicroUsd: number) => boolean)
    | undefined;
  /** Called once when the call ends, with its status and final cost (micro-USD, when priced). */
  settle?:
    | ((outcome: {
        status: ModelCallStatus;
        costMicroUsd: number | undefined;
      }) => GuardDecision[] | undefined)
    | undefined;
  /**
   * Called instead of `settle` when the call never ran: a later guard refused it, or it ended
   * while a shared store was still deciding. Gives back what admission holds, counting nothing
   * (a budget releases its reservation: no call, no cost). Without it, `settle` is called with
   * status `cancelled` and cost 0.
   */
  release?: (() => void) | undefined;
}

/**
 * A guard around model calls. `admit` runs before the request: throw a `GuardError` to refuse
 * (the recorder records the refusal and rethrows), or return a ticket.
 */
export interface ModelCallGuard {
  /** Guard name, for messages. */
  readonly name: string;
  /**
   * Decides before the request. A guard whose store is shared (Redis) answers with a promise:
   * the recorder then admits the call asynchronously (see {@link ModelCallHandle.admission}).
   */
  admit(
    context: ModelCallGuardContext,
  ): ModelCallGuardTicket | undefined | Promise<ModelCallGuardTicket | undefined>;
}

/** Cost of one call as recorded in `metadata.cost` (the pricing module's record). */
export interface ModelCallCost {
  cost_usd: number;
  cost_micro_usd: number;
  pricing_source?: string | undefined;
  priced_model?: string | null | undefined;
  pricing_as_of?: string | undefined;
}

/**
 * Prices a call's usage; returns `undefined` when the model cannot be priced (or throws an
 * `UNKNOWN_MODEL_PRICE` error to refuse the call). `provider` is the call's provider id
 * (`openai`, or an AI SDK provider such as `openai.chat`).
 */
export interface ModelCallPricer {
  (model: string, usage: ModelUsage, provider?: string): ModelCallCost | undefined;
  /**
   * Called as each model call starts, before the request is sent: a pricer can load what it
   * needs in the background here (without blocking), so pricing the response does not wait.
   */
  prepare?: (() => void) | undefined;
}
