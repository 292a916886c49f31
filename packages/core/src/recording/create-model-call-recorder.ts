import { TracewardenError } from '../errors/index.js';
import { BudgetExceededError } from '../guards/budget-exceeded-error.js';
import { GuardError } from '../guards/guard-error.js';
import { GuardTimeoutError } from '../guards/guard-timeout-error.js';
import type { GuardDecision } from '../guards/types.js';
import type { ContentPart, Message, ToolCall, ToolOutput, Trace } from '../model/index.js';
import type { PolicyViolation } from '../policy/policy-types.js';
import { PolicyViolationError } from '../policy/policy-violation-error.js';
import { ownsDirectPath } from '../tracing/record-guarded-call.js';
import { type ModelResponseTracer, recordModelResponse } from '../tracing/record-model-response.js';
import type { Tracer } from '../tracing/types.js';
import { currentTracer } from '../tracing/with-trace.js';
import {
  type ChainKey,
  hashPair,
  messageStep,
  mixChainKey,
  parseArguments,
  plainText,
  responseHashPair,
  rootChainKey,
} from './message-fingerprint.js';
import { recordToolResult } from './record-tool-result.js';
import { scrubRaw } from './scrub-raw.js';
import {
  hasResult,
  keyedByFields,
  rememberSent,
  type SentMessage,
  stateOf,
  type TracerState,
} from './tracer-state.js';
import type {
  ModelCallAttempt,
  ModelCallCost,
  ModelCallDelta,
  ModelCallGuard,
  ModelCallGuardTicket,
  ModelCallHandle,
  ModelCallOutcome,
  ModelCallPricer,
  ModelCallResponse,
  ModelCallStartInput,
  ModelCallStatus,
  ModelToolCall,
  ModelUsage,
  NeutralMessage,
  ToolCallPolicy,
  ToolCallReview,
} from './types.js';

/** Options of {@link createModelCallRecorder}. */
export interface ModelCallRecorderOptions {
  /**
   * The tracer to record into.
   * @default the tracer of the enclosing `withTrace`, else `defaultTracer()`
   */
  tracer?: Tracer | undefined;
  /** Called when there is neither `tracer` nor an enclosing `withTrace`. */
  defaultTracer?: (() => Tracer) | undefined;
  /**
   * Guards applied around each model call, in order (build them with
   * {@link createModelCallGuards} from rate-limit, circuit-breaker and budget options).
   * @default []
   */
  guards?: readonly ModelCallGuard[] | undefined;
  /**
   * Deadline of a whole call (all the SDK's attempts and the stream), in seconds. On expiry the
   * handle's signal aborts and the call is recorded with status `timeout`.
   * @default none (the SDK's own timeout applies)
   */
  timeoutSeconds?: number | undefined;
  /** Checked against every proposed tool call before anything runs. */
  policy?: ToolCallPolicy | undefined;
  /**
   * What a `block` violation does: `throw` a `PolicyViolationError`, or `refuse` (the call is
   * removed from the response and a refusal text the model sees on the next turn takes its
   * place). `warn` and `log` violations only record.
   * @default 'throw'
   */
  onPolicyViolation?: 'throw' | 'refuse' | undefined;
  /**
   * The refusal text of a blocked call in `refuse` mode.
   * @default `Tool call <name> was blocked by policy: <first violation message>`
   */
  refusalMessage?: ((review: ToolCallReview) => string) | undefined;
  /** Prices a call from its usage (`metadata.cost`); adapters pass the pricing module's `priceUsage`. */
  pricer?: ModelCallPricer | undefined;
  /**
   * Called when recording a block fails (e.g. a message over the byte limit). The model call
   * itself goes on: tracing never breaks the caller.
   * @default a process warning
   */
  onRecordingError?: ((error: unknown) => void) | undefined;
  /** Milliseconds clock (fractions allowed). @default performance.now */
  clock?: (() => number) | undefined;
}

/**
 * Records model calls of any framework as blocks, and guards them. Adapters call
 * {@link ModelCallRecorder.start} per request and feed the returned handle.
 */
export interface ModelCallRecorder {
  /**
   * Starts a call: applies the guards (a refusal is recorded and thrown), records the request's
   * messages not recorded before, and returns the handle to feed.
   */
  start(input: ModelCallStartInput): ModelCallHandle;
  /**
   * Records a tool's result under its TOOL_CALL (once per call id), e.g. after running it.
   * @returns false when the call is unknown to the trace or its result is already recorded
   */
  recordToolResult(input: {
    tracer?: Tracer | undefined;
    callId: string;
    output: unknown;
    metadata?: Record<string, unknown> | undefined;
  }): boolean;
  /** The tracer a call started now would record into. */
  resolveTracer(): Tracer;
  /** The policy mode. */
  readonly onPolicyViolation: 'throw' | 'refuse';
  /** Whether a policy is configured. */
  readonly hasPolicy: boolean;
}

function defaultRecordingError(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.emitWarning(`tracewarden: a block could not be recorded: ${message}`, {
    code: 'TRACEWARDEN_RECORDING',
  });
}

function defaultRefusal(review: ToolCallReview): string {
  const first =
    review.violations.find((violation) => violation.action === 'block') ?? review.violations[0];
  return `Tool call ${review.call.name} was blocked by policy: ${first?.message ?? 'not allowed'}. It was not executed.`;
}

const guardStatuses: Record<string, ModelCallStatus> = {
  circuit_open: 'circuit_open',
  rate_limited: 'rate_limited',
  budget_exceeded: 'budget_exceeded',
  timeout: 'timeout',
};

const nowDefault = (): number => performance.now();

/** Normalises content parts to the chat-event form (`image_url` objects become strings). */
function normalizeContent(content: unknown): string | ContentPart[] | null {
  if (content === undefined || content === null) return null;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  const parts: ContentPart[] = [];
  for (const part of content as unknown[]) {
    if (typeof part !== 'object' || part === null) continue;
    const record = part as Record<string, unknown>;
    const type = record.type;
    if ((type === 'input_text' || type === 'output_text') && typeof record.text === 'string') {
      parts.push({ type: 'text', text: record.text });
    } else if (
      type === 'image_url' &&
      typeof record.image_url === 'object' &&
      record.image_url !== null
    ) {
      parts.push({
        type: 'image',
        image_url: String((record.image_url as { url?: unknown }).url ?? ''),
      });
    } else if (type === 'input_image' && typeof record.image_url === 'string') {
      parts.push({ type: 'image', image_url: record.image_url });
    } else if (typeof type === 'string') {
      parts.push(record as ContentPart);
    }
  }
  return parts;
}

function usageMetadata(usage: ModelUsage): Record<string, number> {
  const total = usage.totalTokens ?? usage.inputTokens + usage.outputTokens;
  // The usual full report (OpenAI sends both details) as one literal: one hidden class, no adds.
  if (usage.cachedInputTokens !== undefined && usage.reasoningTokens !== undefined) {
    return {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      total_tokens: total,
      cached_input_tokens: usage.cachedInputTokens,
      reasoning_tokens: usage.reasoningTokens,
    };
  }
  const metadata: Record<string, number> = {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: total,
  };
  if (usage.cachedInputTokens !== undefined) metadata.cached_input_tokens = usage.cachedInputTokens;
  if (usage.reasoningTokens !== undefined) metadata.reasoning_tokens = usage.reasoningTokens;
  return metadata;
}

/**
 * The error's class name: `name` unless it is the inherited `'Error'` (openai 7's error classes
 * do not set it), then the constructor's name (`InternalServerError`, `RateLimitError`).
 */
function errorType(error: Error): string {
  if (error.name !== 'Error') return error.name;
  const constructorName = (error.constructor as { name?: unknown } | undefined)?.name;
  return typeof constructorName === 'string' && constructorName !== '' ? constructorName : 'Error';
}

function errorSummary(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const summary: Record<string, unknown> = { type: errorType(error), message: error.message };
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' || typeof status === 'string') summary.status = status;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') summary.code = code;
    return summary;
  }
  return { type: typeof error, message: String(error) };
}

function estimateTokens(messages: readonly NeutralMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    const text = plainText(message.content);
    chars +=
      text !== undefined
        ? text.length
        : message.content == null
          ? 0
          : JSON.stringify(message.content).length;
    if (message.tool_calls)
      for (const call of message.tool_calls) chars += JSON.stringify(call.function).length;
  }
  return Math.ceil(chars / 4);
}

/** The chat-event view of request messages, for the policy. */
function toChatEvents(messages: readonly NeutralMessage[]): Trace {
  const events: Trace = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      const event: ToolOutput = { role: 'tool', content: normalizeContent(message.content) };
      if (message.tool_call_id !== undefined) event.tool_call_id = message.tool_call_id;
      events.push(event);
      continue;
    }
    const event: Message = { role: message.role, content: normalizeContent(message.content) };
    if (message.tool_calls && message.tool_calls.length > 0) {
      event.tool_calls = message.tool_calls.map((call) =>
        toPolicyCall(call.id, call.function.name, call.function.arguments),
      );
    }
    events.push(event);
  }
  return events;
}

function toPolicyCall(id: string, name: string, args: unknown): ToolCall {
  return { id, type: 'function', function: { name, arguments: parseArguments(args).value } };
}

interface ToolCallSlot {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Creates the framework-neutral recording path every adapter feeds: one model call becomes
 * blocks exactly once (request messages de-duplicated across turns, tool outputs as TOOL_RESULT
 * blocks under their TOOL_CALL, the response as an assistant MESSAGE with THINK and TOOL_CALL
 * blocks), streamed or not; guards run around the call; proposed tool calls are checked
 * against the policy before anything runs.
 *
 * De-duplication: every recorded conversation prefix is kept per tracer as a chain of message
 * fingerprints, so a conversation re-sent on every turn is recorded once, while the same text
 * sent again later (a second "yes") is a new message. Responses and tool results are never
 * recorded twice.
 *
 * @param options - tracer, guards, timeout, policy and its mode, pricer, error callback, clock
 * @returns a {@link ModelCallRecorder}
 * @example
 * ```ts
 * const recorder = createModelCallRecorder({ tracer, policy });
 * const call = recorder.start({ provider: 'acme', model: 'm-1', messages });
 * for await (const piece of stream) call.chunk({ text: piece.text });
 * call.finish({ usage: { inputTokens: 10, outputTokens: 3 } });
 * ```
 */
export function createModelCallRecorder(options: ModelCallRecorderOptions = {}): ModelCallRecorder {
  const clock = options.clock ?? nowDefault;
  const guards = options.guards ?? [];
  const policy = options.policy;
  const mode = options.onPolicyViolation ?? 'throw';
  const refusalMessage = options.refusalMessage ?? defaultRefusal;
  const pricer = options.pricer;
  const onRecordingError = options.onRecordingError ?? defaultRecordingError;
  const timeoutMs =
    options.timeoutSeconds === undefined ? undefined : options.timeoutSeconds * 1000;

  function resolveTracer(explicit?: Tracer): Tracer {
    const tracer = explicit ?? options.tracer ?? currentTracer() ?? options.defaultTracer?.();
    if (tracer === undefined) {
      throw new TracewardenError('NO_TRACER', {
        message:
          'no tracer to record the model call into: pass options.tracer, run inside withTrace(tracer, fn), or give the recorder a defaultTracer',
      });
    }
    return tracer;
  }

  function safely<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (error) {
      onRecordingError(error);
      return undefined;
    }
  }

  function recordToolCall(
    tracer: Tracer,
    parent: string,
    call: ModelToolCall,
    metadata?: Record<string, unknown>,
  ): string | undefined {
    if (tracer.findToolCall(call.id) !== undefined) return tracer.findToolCall(call.id)?.id;
    const parsed = parseArguments(call.arguments);
    const payload: { call_id: string; name: string; arguments: unknown; [key: string]: unknown } = {
      call_id: call.id,
      name: call.name,
      arguments: parsed.value,
    };
    if (!parsed.valid)
      payload.invalid_arguments =
        typeof call.arguments === 'string' ? call.arguments : String(call.arguments);
    const block = safely(() =>
      tracer.logAct({
        parent_block_id: parent,
        payload,
        ...(metadata === undefined ? {} : { metadata }),
      }),
    );
    return block?.id;
  }

  function recordInputMessage(
    tracer: Tracer,
    state: TracerState,
    message: NeutralMessage,
    fingerprint: string,
  ): void {
    const role = message.role;
    if (role === 'tool' || role === 'function') {
      const callId = message.tool_call_id;
      if (typeof callId !== 'string' || hasResult(tracer, state, callId)) return;
      const call = tracer.findToolCall(callId);
      // A result whose call is not in this trace cannot be attached (no orphans): skip it.
      if (call === undefined) return;
      const text = plainText(message.content);
      const status = message.status;
      const block = safely(() =>
        tracer.logObserve({
          parent_block_id: call.id,
          payload: { call_id: callId, output: text ?? normalizeContent(message.content) },
          ...(typeof status === 'string' ? { metadata: { status } } : {}),
        }),
      );
      if (block !== undefined) state.results.add(callId);
      return;
    }
    if (role === 'assistant') {
      const [h1, h2] = hashPair(fingerprint);
      if (state.responses.has(h1, h2)) return;
      // An assistant turn re-sent as its tool calls alone (the Responses API's usual loop appends
      // only the `function_call` items) is the recorded response, not a new message: when it has
      // no text and every call id is already in the trace, there is nothing new to record.
      const calls = message.tool_calls;
      if (
        calls !== undefined &&
        calls.length > 0 &&
        (message.content === null ||
          message.content === undefined ||
          plainText(message.content) === '') &&
        calls.every((call) => tracer.findToolCall(call.id) !== undefined)
      )
        return;
      const block = safely(() =>
        tracer.logMessage({ role: 'assistant', content: normalizeContent(message.content) }),
      );
      if (block === undefined) return;
      for (const call of message.tool_calls ?? []) {
        recordToolCall(tracer, block.id, {
          id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        });
      }
      return;
    }
    const input: {
      role: 'system' | 'user';
      content: string | ContentPart[] | null;
      [key: string]: unknown;
    } = {
      role: role === 'system' || role === 'developer' ? 'system' : 'user',
      content: normalizeContent(message.content),
    };
    if (role !== 'system' && role !== 'user') input.original_role = role;
    if (typeof message.name === 'string') input.name = message.name;
    safely(() => tracer.logMessage(input));
  }

  function recordRequest(
    tracer: Tracer,
    state: TracerState,
    messages: readonly NeutralMessage[],
  ): ChainKey {
    let key = rootChainKey;
    let index = 0;
    // The leading messages the last request sent too, as the same objects with the same fields:
    // their keys are known, and among the prefixes (which only grow).
    const sent = state.sent;
    const known = Math.min(sent.length, messages.length);
    for (; index < known; index++) {
      const message = messages[index] as NeutralMessage;
      const entry = sent[index] as SentMessage;
      if (
        entry.message !== message ||
        entry.role !== message.role ||
        entry.content !== message.content ||
        entry.toolCallId !== message.tool_call_id ||
        !keyedByFields(message)
      )
        break;
      key = entry.key;
    }
    // from here on `sent` is rewritten, for as long as the messages stay keyed by their fields
    if (sent.length > index) sent.length = index;
    let remembering = true;
    let step: { fingerprint: string; key: ChainKey } | undefined;
    for (; index < messages.length; index++) {
      const message = messages[index] as NeutralMessage;
      step = messageStep(key, message);
      if (!state.prefixes.has(step.key.a, step.key.b)) break;
      key = step.key;
      if (remembering) {
        if (keyedByFields(message)) rememberSent(sent, message, key);
        else remembering = false;
      }
    }
    for (; index < messages.length; index++) {
      const message = messages[index] as NeutralMessage;
      // the first new message's step is already known from the loop above
      if (step === undefined) step = messageStep(key, message);
      key = step.key;
      state.prefixes.add(key.a, key.b);
      if (remembering) {
        if (keyedByFields(message)) rememberSent(sent, message, key);
        else remembering = false;
      }
      recordInputMessage(tracer, state, message, step.fingerprint);
      step = undefined;
    }
    return key;
  }

  function reviewToolCalls(
    messages: readonly NeutralMessage[],
    text: string | null,
    calls: readonly ModelToolCall[],
  ): ToolCallReview[] {
    const reviews: ToolCallReview[] = [];
    if (calls.length === 0) return reviews;
    if (policy === undefined) {
      for (const call of calls)
        reviews.push({ call, allowed: true, decision: 'allow', violations: [] });
      return reviews;
    }
    const events = toChatEvents(messages);
    // Earlier calls of the same response are part of the trace the later ones are checked against.
    const assistant: Message = { role: 'assistant', content: text, tool_calls: [] };
    events.push(assistant);
    for (const call of calls) {
      const proposed = toPolicyCall(call.id, call.name, call.arguments);
      const verdict = policy.checkToolCall(events, proposed);
      const violations = verdict.violations;
      let decision: ToolCallReview['decision'] = 'allow';
      if (!verdict.allowed) decision = 'block';
      else if (violations.some((violation) => violation.action === 'warn')) decision = 'warn';
      else if (violations.length > 0) decision = 'log';
      const review: ToolCallReview = { call, allowed: verdict.allowed, decision, violations };
      if (!verdict.allowed && mode === 'refuse') review.refusal = refusalMessage(review);
      reviews.push(review);
      if (verdict.allowed) assistant.tool_calls?.push(proposed);
    }
    return reviews;
  }

  /**
   * Re-checks a proposed call whose arguments the framework changed before running it (a repaired
   * call, a schema that trims or coerces): a block is recorded as the call's refusal and its text
   * returned, whatever the mode (the call must not run on arguments nobody checked).
   */
  function recheckToolCall(
    tracer: Tracer,
    messages: readonly NeutralMessage[],
    text: string | null,
    call: ModelToolCall,
  ): string | undefined {
    const review = reviewToolCalls(messages, text, [call])[0];
    if (review === undefined || review.allowed) return undefined;
    const refusal = review.refusal ?? refusalMessage(review);
    safely(() =>
      recordToolResult(tracer, {
        callId: call.id,
        output: refusal,
        metadata: {
          status: 'failure',
          refused: true,
          policy: 'block',
          rechecked_arguments:
            typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
          violations: violationSummary(review.violations),
        },
      }),
    );
    return refusal;
  }

  function violationSummary(violations: readonly PolicyViolation[]): Record<string, unknown>[] {
    return violations.map((violation) => ({
      message: violation.message,
      action: violation.action,
      key: violation.key,
      rule: violation.rule.name ?? violation.rule.index,
      addresses: violation.addresses,
    }));
  }

  const core: RecorderCore = {
    clock,
    guards,
    pricer,
    mode,
    timeoutMs,
    safely,
    onRecordingError,
    recordRequest,
    recordToolCall,
    reviewToolCalls,
    recheckToolCall,
    violationSummary,
    hasPolicy: policy !== undefined,
  };

  function start(input: ModelCallStartInput): ModelCallHandle {
    return new ModelCall(core, resolveTracer(input.tracer), input);
  }

  return {
    start,
    resolveTracer: () => resolveTracer(),
    onPolicyViolation: mode,
    hasPolicy: policy !== undefined,
    recordToolResult(input) {
      const { tracer, ...rest } = input;
      return safely(() => recordToolResult(resolveTracer(tracer), rest)) ?? false;
    },
  };
}

/**
 * Whether an error means the caller stopped the call: their signal aborted, or an abort error by
 * name (`AbortError`, the OpenAI SDK's `APIUserAbortError`, whose `name` is plain 'Error' on
 * openai 7, hence the class name too).
 */
function isAbort(error: unknown, signal: AbortSignal | null | undefined): boolean {
  if (signal?.aborted === true) return true;
  if (!(error instanceof Error)) return false;
  const name = error.name === 'Error' ? error.constructor.name : error.name;
  return name === 'AbortError' || name === 'APIUserAbortError' || name === 'ResponseAborted';
}

/**
 * Estimated output size in quarter tokens: about four characters make a token in Latin scripts,
 * while CJK, Hangul, Thai and similar scripts (U+0E00 and above, bar a few punctuation blocks)
 * take about a token per character — the plain characters / 4 rule under-counts them fourfold.
 */
function quarterTokens(text: string): number {
  let units = text.length;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x0e00) units += 3;
  return units;
}

/** Whether an abort came from a deadline (a `TimeoutError` as the error or the signal's reason). */
function isTimeout(error: unknown, signal: AbortSignal | null | undefined): boolean {
  const reason: unknown = signal?.aborted === true ? signal.reason : undefined;
  return (
    (error as { name?: unknown } | null)?.name === 'TimeoutError' ||
    (reason as { name?: unknown } | null)?.name === 'TimeoutError'
  );
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function lastRequestId(attempts: readonly ModelCallAttempt[]): string | null {
  for (let i = attempts.length - 1; i >= 0; i--) {
    const id = attempts[i]?.request_id;
    if (id !== undefined) return id;
  }
  return null;
}

/** What every call of one recorder shares. */
interface RecorderCore {
  clock: () => number;
  guards: readonly ModelCallGuard[];
  pricer: ModelCallPricer | undefined;
  mode: 'throw' | 'refuse';
  timeoutMs: number | undefined;
  safely<T>(fn: () => T): T | undefined;
  /** Reports a block that could not be recorded (what `safely` calls). */
  onRecordingError(error: unknown): void;
  recordRequest(tracer: Tracer, state: TracerState, messages: readonly NeutralMessage[]): ChainKey;
  recordToolCall(
    tracer: Tracer,
    parent: string,
    call: ModelToolCall,
    metadata?: Record<string, unknown>,
  ): string | undefined;
  reviewToolCalls(
    messages: readonly NeutralMessage[],
    text: string | null,
    calls: readonly ModelToolCall[],
  ): ToolCallReview[];
  violationSummary(violations: readonly PolicyViolation[]): Record<string, unknown>[];
  recheckToolCall(
    tracer: Tracer,
    messages: readonly NeutralMessage[],
    text: string | null,
    call: ModelToolCall,
  ): string | undefined;
  hasPolicy: boolean;
}

interface AggregatedOutput {
  text: string | null;
  reasoning: string;
  calls: ModelToolCall[];
  partialCalls: Set<string> | undefined;
}

const noTickets: readonly ModelCallGuardTicket[] = Object.freeze([]);

/**
 * One model call in flight. A class (not closures) so that starting a call allocates one object:
 * this is on every model call's path.
 */
class ModelCall implements ModelCallHandle {
  readonly tracer: Tracer;
  /** What the recorder remembers of this tracer (looked up once per call). */
  private readonly state: TracerState;
  private readonly core: RecorderCore;
  private readonly input: ModelCallStartInput;
  private readonly startedAt: number;
  private readonly prefixKey: ChainKey;
  private controller: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private onUserAbort: (() => void) | undefined;
  private stopReason: Error | undefined;
  private tickets: readonly ModelCallGuardTicket[] = noTickets;
  /** Guard decisions; only guards make them, so there is no array without guards. */
  private decisions: GuardDecision[] | undefined;
  /**
   * The HTTP attempts, made on the first one as a one-element array: the trace keeps it, and an
   * array grown from empty by `push` carries room for 17.
   */
  private attempts: ModelCallAttempt[] | undefined;
  private done = false;
  // streaming aggregation
  private text = '';
  private reasoning = '';
  private slots: ToolCallSlot[] | undefined;
  private usage: ModelUsage | undefined;
  private finishReason: string | undefined;
  private responseModel: string | undefined;
  private responseId: string | undefined;
  private firstTokenAt: number | undefined;
  // live budget cut-off: a linear price per output character, fixed at the start
  private liveChecks: ModelCallGuardTicket[] | undefined;
  private inputCostMicro = 0;
  private outputMicroPerChar = 0;
  private outputChars = 0;
  /** Output characters of the largest chunk so far: the expected size of the next one. */
  private largestChunkChars = 0;

  constructor(core: RecorderCore, tracer: Tracer, input: ModelCallStartInput) {
    this.core = core;
    this.tracer = tracer;
    this.state = stateOf(tracer);
    this.input = input;
    this.startedAt = core.clock();
    if (core.guards.length > 0) this.admit();
    const userSignal = input.signal;
    if (userSignal) {
      const controller = this.abortController();
      if (userSignal.aborted) controller.abort(userSignal.reason);
      else {
        this.onUserAbort = () => controller.abort(userSignal.reason);
        userSignal.addEventListener('abort', this.onUserAbort, { once: true });
      }
    }
    const timeoutMs = core.timeoutMs;
    if (timeoutMs !== undefined) {
      this.abortController();
      this.timer = setTimeout(() => {
        this.stop(
          new GuardTimeoutError({
            message: `model call to ${input.model} did not finish within ${timeoutMs / 1000} s (timeoutSeconds); raise it or shorten the request`,
            toolName: input.model,
          }),
        );
      }, timeoutMs);
    }
    this.prefixKey = core.recordRequest(tracer, this.state, input.messages);
  }

  /** Runs the guards in order; a refusal is recorded (with the request) and thrown. */
  private admit(): void {
    const { core, input } = this;
    const tickets: ModelCallGuardTicket[] = [];
    const context = {
      provider: input.provider,
      model: input.model,
      estimatedInputTokens: estimateTokens(input.messages),
    };
    let budgeted = false;
    for (const guard of core.guards) {
      let ticket: ModelCallGuardTicket | undefined;
      try {
        ticket = guard.admit(context);
      } catch (error) {
        this.refuse(tickets, guard.name, error);
      }
      if (guard.name === 'budget') budgeted = true;
      if (ticket !== undefined) {
        tickets.push(ticket);
        if (ticket.decisions) (this.decisions ??= []).push(...ticket.decisions);
      }
    }
    this.tickets = tickets;
    const live = tickets.filter((ticket) => ticket.allowsRunningCost !== undefined);
    const pricer = core.pricer;
    if (pricer === undefined || (!budgeted && live.length === 0)) return;
    // A budget needs the model's price before the call: a model the table cannot price is
    // refused here (when the pricing says so) rather than counted as free afterwards.
    let perMillionIn: ModelCallCost | undefined;
    let perMillionOut: ModelCallCost | undefined;
    try {
      perMillionIn = pricer(
        input.model,
        { inputTokens: 1_000_000, outputTokens: 0 },
        input.provider,
      );
      perMillionOut = pricer(
        input.model,
        { inputTokens: 0, outputTokens: 1_000_000 },
        input.provider,
      );
    } catch (error) {
      this.refuse(tickets, 'budget', error);
    }
    if (live.length > 0) {
      this.liveChecks = live;
      this.inputCostMicro =
        ((perMillionIn?.cost_micro_usd ?? 0) / 1_000_000) * context.estimatedInputTokens;
      this.outputMicroPerChar = (perMillionOut?.cost_micro_usd ?? 0) / 1_000_000 / 4;
    }
  }

  /** Records a refused call (the request and an empty assistant MESSAGE) and throws `error`. */
  private refuse(
    admitted: readonly ModelCallGuardTicket[],
    guardName: string,
    error: unknown,
  ): never {
    const { core, input, tracer } = this;
    for (const ticket of admitted) ticket.settle?.({ status: 'cancelled', costMicroUsd: 0 });
    const status = GuardError.isGuardError(error)
      ? (guardStatuses[error.status] ?? 'failure')
      : 'failure';
    core.recordRequest(tracer, this.state, input.messages);
    core.safely(() =>
      tracer.logMessage({
        role: 'assistant',
        content: null,
        metadata: {
          provider: input.provider,
          ...(input.api === undefined ? {} : { api: input.api }),
          model: input.model,
          status,
          error: errorSummary(error),
          decisions: [
            ...(this.decisions ?? []),
            { guard: guardName, event: 'refused', action: 'block' },
          ],
          attempts: [],
        },
      }),
    );
    throw error;
  }

  private abortController(): AbortController {
    this.controller ??= new AbortController();
    return this.controller;
  }

  get signal(): AbortSignal {
    return this.abortController().signal;
  }

  get stopped(): boolean {
    return this.stopReason !== undefined;
  }

  private stop(reason: Error): void {
    if (this.stopReason !== undefined) return;
    this.stopReason = reason;
    this.abortController().abort(reason);
  }

  attempt(attempt: Omit<ModelCallAttempt, 'attempt'> & { attempt?: number }): void {
    const attempts = this.attempts;
    const number = attempt.attempt ?? (attempts === undefined ? 0 : attempts.length) + 1;
    let entry: ModelCallAttempt;
    if (
      attempt.http_status !== undefined &&
      attempt.error === undefined &&
      attempt.request_id !== undefined
    ) {
      // The usual attempt (a response with a request id) as one literal: the trace keeps it, and
      // fields added one by one would also keep a separate property store.
      entry = {
        attempt: number,
        http_status: attempt.http_status,
        outcome: attempt.outcome,
        duration_ms: attempt.duration_ms,
        request_id: attempt.request_id,
      };
    } else {
      // Field by field (a spread after a literal field, or Object.assign, is several times slower).
      entry = { attempt: number } as ModelCallAttempt;
      if (attempt.http_status !== undefined) entry.http_status = attempt.http_status;
      entry.outcome = attempt.outcome;
      entry.duration_ms = attempt.duration_ms;
      if (attempt.error !== undefined) entry.error = attempt.error;
      if (attempt.request_id !== undefined) entry.request_id = attempt.request_id;
    }
    if (attempts === undefined) this.attempts = [entry];
    else attempts.push(entry);
  }

  chunk(delta: ModelCallDelta): Error | undefined {
    if (this.done) return undefined;
    if (this.firstTokenAt === undefined && (delta.text || delta.reasoning || delta.toolCalls))
      this.firstTokenAt = this.core.clock();
    const charsBefore = this.outputChars;
    // Under a live budget the output is measured in quarter tokens (wide scripts count a token a
    // character); otherwise its length is all anyone reads.
    const live = this.liveChecks !== undefined;
    if (delta.text) {
      this.text += delta.text;
      this.outputChars += live ? quarterTokens(delta.text) : delta.text.length;
    }
    if (delta.reasoning) {
      this.reasoning += delta.reasoning;
      this.outputChars += live ? quarterTokens(delta.reasoning) : delta.reasoning.length;
    }
    if (delta.toolCalls) {
      const slots = (this.slots ??= []);
      for (const piece of delta.toolCalls) {
        let slot = slots[piece.index];
        if (slot === undefined) {
          slot = { id: '', name: '', arguments: '' };
          slots[piece.index] = slot;
        }
        if (piece.id) slot.id = piece.id;
        if (piece.name) slot.name = piece.name;
        if (piece.arguments) {
          slot.arguments += piece.arguments;
          this.outputChars += piece.arguments.length;
        }
      }
    }
    if (delta.usage) this.usage = delta.usage;
    if (delta.finishReason) this.finishReason = delta.finishReason;
    if (delta.model) this.responseModel = delta.model;
    if (delta.responseId) this.responseId = delta.responseId;
    const liveChecks = this.liveChecks;
    if (liveChecks !== undefined) {
      const chunkChars = this.outputChars - charsBefore;
      if (chunkChars > this.largestChunkChars) this.largestChunkChars = chunkChars;
      const estimate = Math.ceil(this.inputCostMicro + this.outputChars * this.outputMicroPerChar);
      // The next chunk is assumed as large as the largest so far: stop before it would pass.
      const nextIncrement = Math.ceil(this.largestChunkChars * this.outputMicroPerChar);
      for (const ticket of liveChecks) {
        if (ticket.allowsRunningCost?.(estimate, nextIncrement) === false) {
          (this.decisions ??= []).push({
            guard: 'budget',
            event: 'cut_off',
            action: 'block',
            estimated_cost_micro_usd: estimate,
            next_chunk_micro_usd: nextIncrement,
          });
          const reason = new BudgetExceededError({
            message: `streamed response of ${this.input.model} was cut off at ~${estimate} micro-USD: one more chunk (~${nextIncrement} micro-USD) would exceed the budget; raise the budget or cap max tokens`,
            toolName: this.input.model,
          });
          this.stop(reason);
          return reason;
        }
      }
    }
    return undefined;
  }

  finish(response?: ModelCallResponse): ModelCallOutcome {
    if (this.done) return { status: 'success', toolCalls: [], refused: false };
    if (this.stopReason !== undefined) {
      const reason = this.stopReason;
      this.fail(reason, response);
      throw reason;
    }
    const output = this.aggregated(response);
    const reviews = this.core.reviewToolCalls(this.input.messages, output.text, output.calls);
    const outcome = this.record('success', response, output, undefined, reviews);
    if (reviews.length > 0 && this.core.hasPolicy) {
      const { core, tracer, input } = this;
      outcome.recheck = (call) => core.recheckToolCall(tracer, input.messages, output.text, call);
    }
    if (this.core.mode === 'throw' && reviews.length > 0) {
      const blocked = reviews.filter((review) => !review.allowed);
      if (blocked.length > 0)
        throw new PolicyViolationError({
          violations: blocked.flatMap((review) => review.violations),
        });
    }
    return outcome;
  }

  fail(error: unknown, partial?: ModelCallResponse): unknown {
    if (this.done) return this.stopReason ?? error;
    const reason = this.stopReason;
    if (reason !== undefined) {
      const status: ModelCallStatus = GuardError.isGuardError(reason)
        ? (guardStatuses[reason.status] ?? 'failure')
        : 'failure';
      // The guard's error is what the caller sees; the SDK's abort error is its cause.
      if (error !== reason && (reason as { cause?: unknown }).cause === undefined) {
        Object.defineProperty(reason, 'cause', {
          value: error,
          configurable: true,
          writable: true,
        });
      }
      this.record(status, partial, this.aggregated(partial), reason, undefined);
      return reason;
    }
    this.record('failure', partial, this.aggregated(partial), error, undefined);
    return error;
  }

  end(error: unknown, signal?: AbortSignal | null, partial?: ModelCallResponse): unknown {
    const callerSignal = signal ?? this.input.signal;
    if (this.stopReason === undefined && isAbort(error, callerSignal)) {
      // the framework's own deadline (the AI SDK's `timeout`, `AbortSignal.timeout()`) is a
      // timeout, not the caller changing their mind
      if (!this.done && isTimeout(error, callerSignal)) {
        this.record('timeout', partial, this.aggregated(partial), error, undefined);
        return error;
      }
      this.cancel(partial);
      return error;
    }
    return this.fail(error, partial);
  }

  cancel(partial?: ModelCallResponse): void {
    if (this.done) return;
    const reason = this.stopReason;
    const status: ModelCallStatus =
      reason !== undefined && GuardError.isGuardError(reason)
        ? (guardStatuses[reason.status] ?? 'cancelled')
        : 'cancelled';
    this.record(status, partial, this.aggregated(partial), reason, undefined);
  }

  private aggregated(response: ModelCallResponse | undefined): AggregatedOutput {
    let calls: ModelToolCall[];
    let partialCalls: Set<string> | undefined;
    const slots = this.slots;
    if (response?.toolCalls !== undefined) calls = response.toolCalls;
    else if (slots !== undefined) {
      calls = [];
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i];
        if (slot === undefined) continue;
        const id = slot.id || `call_${i}`;
        if (!parseArguments(slot.arguments).valid) (partialCalls ??= new Set()).add(id);
        calls.push({ id, name: slot.name, arguments: slot.arguments });
      }
    } else calls = [];
    const finalText = response?.text !== undefined ? response.text : this.text;
    return {
      text: finalText === '' || finalText === null ? null : finalText,
      reasoning: (response?.reasoning ?? this.reasoning) || '',
      calls,
      partialCalls,
    };
  }

  private record(
    status: ModelCallStatus,
    response: ModelCallResponse | undefined,
    output: AggregatedOutput,
    error: unknown,
    reviews: ToolCallReview[] | undefined,
  ): ModelCallOutcome {
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.onUserAbort !== undefined)
      this.input.signal?.removeEventListener('abort', this.onUserAbort);
    const { core, input, tracer } = this;
    const endedAt = core.clock();
    const finalUsage = response?.usage ?? this.usage;
    const model = response?.model ?? this.responseModel ?? input.model;
    const pricer = core.pricer;
    let cost: ModelCallCost | undefined;
    // try/catch in place of `safely(() => ...)`: no closure per call on this path
    if (finalUsage !== undefined && pricer !== undefined) {
      try {
        cost = pricer(model, finalUsage, input.provider);
      } catch (pricingError) {
        core.onRecordingError(pricingError);
      }
    }
    for (const ticket of this.tickets) {
      const settled = ticket.settle?.({ status, costMicroUsd: cost?.cost_micro_usd });
      if (settled !== undefined && settled.length > 0) (this.decisions ??= []).push(...settled);
    }
    const extraMetadata = response?.metadata;
    const latency = round(endedAt - this.startedAt);
    const firstToken =
      this.firstTokenAt === undefined ? null : round(this.firstTokenAt - this.startedAt);
    // the array the trace keeps: later attempts (if any) still land in it
    this.attempts ??= [];
    const attempts = this.attempts;
    const requestId = response?.requestId ?? lastRequestId(attempts);
    const finalResponseId = response?.responseId ?? this.responseId;
    const finalFinish = response?.finishReason ?? this.finishReason;
    let metadata: Record<string, unknown>;
    const complete =
      extraMetadata === undefined &&
      input.api !== undefined &&
      finalResponseId !== undefined &&
      finalFinish !== undefined &&
      finalUsage !== undefined &&
      cost !== undefined;
    if (complete) {
      // The most common case of all (a priced, complete response): every field in one literal,
      // in the order the general case adds them, so no field is added to the object afterwards.
      metadata = {
        provider: input.provider,
        api: input.api,
        model,
        request_model: input.model,
        status,
        stream: input.stream === true,
        latency_ms: latency,
        time_to_first_token_ms: firstToken,
        request_id: requestId,
        attempts,
        response_id: finalResponseId,
        finish_reason: finalFinish,
        usage: usageMetadata(finalUsage),
        cost,
      };
    } else if (extraMetadata === undefined && input.api !== undefined) {
      // The usual case (an adapter names its API, the response adds no metadata of its own):
      // one literal, so every call's metadata starts from the same hidden class.
      metadata = {
        provider: input.provider,
        api: input.api,
        model,
        request_model: input.model,
        status,
        stream: input.stream === true,
        latency_ms: latency,
        time_to_first_token_ms: firstToken,
        request_id: requestId,
        attempts,
      };
    } else {
      // The response's own metadata (rare) goes first, ours over it, in the same key order.
      metadata = extraMetadata === undefined ? { provider: input.provider } : { ...extraMetadata };
      if (extraMetadata !== undefined) metadata.provider = input.provider;
      if (input.api !== undefined) metadata.api = input.api;
      metadata.model = model;
      metadata.request_model = input.model;
      metadata.status = status;
      metadata.stream = input.stream === true;
      metadata.latency_ms = latency;
      metadata.time_to_first_token_ms = firstToken;
      metadata.request_id = requestId;
      metadata.attempts = attempts;
    }
    if (!complete) {
      // not the one-literal case above: the optional fields in their order
      if (finalResponseId !== undefined) metadata.response_id = finalResponseId;
      if (finalFinish !== undefined) metadata.finish_reason = finalFinish;
      if (finalUsage !== undefined) metadata.usage = usageMetadata(finalUsage);
      if (cost !== undefined) metadata.cost = cost;
    }
    const decisions = this.decisions;
    if (decisions !== undefined && decisions.length > 0) metadata.decisions = decisions;
    if (error !== undefined) metadata.error = errorSummary(error);
    if (input.tools !== undefined && input.tools.length > 0)
      metadata.tools = input.tools.map((tool) => tool.name);
    let blocked: ToolCallReview[] = [];
    if (reviews !== undefined && reviews.length > 0) {
      blocked = reviews.filter((review) => !review.allowed);
      const flagged = reviews.filter((review) => review.violations.length > 0);
      if (flagged.length > 0) {
        metadata.policy = {
          mode: core.mode,
          blocked: blocked.map((review) => review.call.id),
          flagged: flagged.map((review) => review.call.id),
        };
      }
    }
    const raw = scrubRaw(
      response?.raw === undefined
        ? { request: input.raw }
        : { request: input.raw, response: response.raw },
    );

    let blockId: string | undefined;
    try {
      // createTracer's tracers take the response directly (deferred when nothing can see it)
      // (not past a logMessage of a wrapper's own: it must see every response)
      blockId = ownsDirectPath(
        (tracer as Partial<ModelResponseTracer>)[recordModelResponse],
        tracer.logMessage,
      )
        ? (tracer as ModelResponseTracer)[recordModelResponse](output.text, metadata, raw)
        : tracer.logMessage({ role: 'assistant', content: output.text, metadata, raw }).id;
    } catch (recordingError) {
      core.onRecordingError(recordingError);
    }
    const state = this.state;
    if (blockId !== undefined) {
      const parentId = blockId;
      if (output.reasoning !== '')
        core.safely(() =>
          tracer.logThink({ parent_block_id: parentId, payload: { text: output.reasoning } }),
        );
      for (let i = 0; i < output.calls.length; i++) {
        const call = output.calls[i] as ModelToolCall;
        const review = reviews?.[i];
        const callMetadata: Record<string, unknown> = {};
        if (output.partialCalls?.has(call.id)) callMetadata.partial = true;
        if (review !== undefined && review.violations.length > 0) {
          callMetadata.policy = review.decision;
          callMetadata.violations = core.violationSummary(review.violations);
        }
        const callBlockId = core.recordToolCall(tracer, parentId, call, callMetadata);
        if (review?.refusal !== undefined && callBlockId !== undefined) {
          const refusal = review.refusal;
          const recorded = core.safely(() =>
            tracer.logObserve({
              parent_block_id: callBlockId,
              payload: { call_id: call.id, output: refusal },
              // A TOOL_RESULT status is a seed-004 ToolCallStatus: the call did not run
              // (`failure`); `refused` and the policy decision say why (decision 007).
              metadata: {
                status: 'failure',
                refused: true,
                policy: 'block',
                violations: core.violationSummary(review.violations),
              },
            }),
          );
          if (recorded !== undefined) state.results.add(call.id);
        }
      }
    }

    // What the caller sees (and re-sends next turn): refused calls removed, refusal appended.
    const keep = this.input.keepRefusedCall;
    const refusals =
      blocked.length === 0
        ? blocked
        : blocked.filter((review) => {
            if (review.refusal === undefined) return false;
            // refused by the framework's tool executor instead: the call stays in the response
            if (keep?.(review.call) === true) {
              review.refusedAtTool = true;
              return false;
            }
            return true;
          });
    let refusalText: string | undefined;
    let deliveredText = output.text;
    let deliveredCalls = output.calls;
    if (refusals.length > 0) {
      refusalText = refusals.map((review) => review.refusal).join('\n');
      deliveredText = deliveredText === null ? refusalText : `${deliveredText}\n\n${refusalText}`;
      const refusedIds = new Set(refusals.map((review) => review.call.id));
      deliveredCalls = output.calls.filter((call) => !refusedIds.has(call.id));
    }
    const [h1, h2] = responseHashPair(deliveredText, deliveredCalls);
    state.responses.add(h1, h2);
    const next = mixChainKey(this.prefixKey, h1, h2);
    state.prefixes.add(next.a, next.b);

    const outcome: ModelCallOutcome = {
      status,
      toolCalls: reviews ?? [],
      refused: refusals.length > 0,
    };
    if (refusalText !== undefined) outcome.refusalText = refusalText;
    if (blockId !== undefined) outcome.messageBlockId = blockId;
    return outcome;
  }
}
