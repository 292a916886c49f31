import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import type {
  AdapterRuntime,
  ModelCallHandle,
  ModelToolCall,
  NeutralMessage,
  ReviewedCalls,
  Tracer,
} from '@tracewarden/core';
import {
  applyOutcome,
  finishWithout,
  isClientToolCall,
  recordRejectedAnswer,
} from './call-outcome.js';
import { generateResultToResponse, requestIdOf } from './model-response.js';
import { observeStream } from './observe-stream.js';

/** Everything one model call needs, whether middleware or telemetry started it. @internal */
export interface ModelCallSetup {
  runtime: AdapterRuntime;
  /** The AI SDK provider id (`openai.chat`, `mock-provider`). */
  provider: string;
  modelId: string;
  messages: NeutralMessage[];
  tools: { name: string }[] | undefined;
  /**
   * Refuse mode: tools that refuse a blocked call themselves (guarded by `guardTools`, or run
   * through the telemetry integration's `executeTool`); their calls stay in the response.
   */
  refusesAtTool: (toolName: string) => boolean;
  /** Call settings worth keeping in `raw.request`. */
  request: Record<string, unknown>;
  /** The caller's abort signal. */
  userSignal: AbortSignal | undefined;
  /** Aborts the request when a guard stops the call (its signal is in the request). */
  stop: AbortController | undefined;
  tracer?: Tracer | undefined;
  stream: boolean;
  /** Hands this call's verdicts to the telemetry integration that records it too. */
  onReviewed?: ((reviewed: ReviewedCalls) => void) | undefined;
  /** The verdicts of an enforcing middleware inside (telemetry), recorded on the TOOL_CALLs. */
  adoptedReviews?: (() => ReviewedCalls | undefined) | undefined;
  /**
   * A streamed model call ended (finished, with this many tool calls; or cancelled: 0): with no
   * tool call to run, the AI SDK's run is over, and the telemetry integration ends its trace even
   * when the SDK reports no end (a reader that stopped reading).
   */
  onStreamEnded?: ((toolCalls: number) => void) | undefined;
}

/**
 * The results a model call recorded, with its trace: the same result reaching a second recorder
 * of the same trace (`tracewardenMiddleware` twice in one model's chain) is the call recorded
 * twice, its answer and cost counted twice.
 */
const recordedResults = new WeakMap<object, { tracer: Tracer; call: number }>();
let doubleRecordingWarned = false;
/** Numbers model calls in start order: a mark made by a later call was made inside this one. */
let callsStarted = 0;

/** Says once that a model call was recorded twice into one trace (see {@link noteRecorded}). */
function warnDoubleRecording(): void {
  if (doubleRecordingWarned) return;
  doubleRecordingWarned = true;
  process.emitWarning(
    'tracewarden: a model call was recorded twice into one trace: two tracewardenMiddleware instances wrap the same model (say one in a shared model factory and one added again), so each answer and its cost count twice. Give the model one tracewardenMiddleware (one with every guard and the policy).',
    { code: 'TRACEWARDEN_DOUBLE_RECORDING' },
  );
}

/** Whether a mark was made by a call started inside call `call`, into the same trace. */
function madeInside(
  mark: { tracer: Tracer; call: number } | undefined,
  tracer: Tracer,
  call: number,
): boolean {
  return mark !== undefined && mark.tracer === tracer && mark.call > call;
}

/**
 * Marks a result this call returns; says once when a call started inside this one (another
 * middleware nested in it) already recorded it into this trace. A result recorded by an earlier
 * call (a caching middleware inside that returns the same object again) is not a double record.
 */
function noteRecorded(result: object, tracer: Tracer, call: number): void {
  if (madeInside(recordedResults.get(result), tracer, call)) warnDoubleRecording();
  recordedResults.set(result, { tracer, call });
}

/**
 * The mark a streamed call leaves on the result it returns (an object of its own, never the
 * provider's), read by a middleware outside it as {@link recordedResults} is for generated
 * results: an own property, not a WeakMap entry, costs about 3 µs less per streamed call amid
 * the SDK's work (measured over HTTP, session 22).
 */
const streamMark = Symbol('tracewarden.recorded');

type MarkedStreamResult = LanguageModelV4StreamResult & {
  [streamMark]?: { tracer: Tracer; call: number };
};

/** Starts the call: the guards decide (a refusal throws), the new prompt messages are recorded. */
function start(setup: ModelCallSetup): ModelCallHandle {
  const handle = setup.runtime.recorder.start({
    provider: setup.provider,
    model: setup.modelId,
    messages: setup.messages,
    tools: setup.tools,
    stream: setup.stream,
    raw: setup.runtime.recordRaw ? setup.request : undefined,
    signal: setup.userSignal,
    tracer: setup.tracer,
    keepRefusedCall: (call: ModelToolCall) => setup.refusesAtTool(call.name),
    onReviewed: setup.onReviewed,
    adoptedReviews: setup.adoptedReviews,
  });
  const stop = setup.stop;
  if (stop !== undefined) {
    // the timeout or live budget cut-off aborts the request the SDK sends
    handle.signal.addEventListener('abort', () => stop.abort(handle.signal.reason), { once: true });
  }
  return handle;
}

/**
 * Records the HTTP answer of a request the provider refused (the AI SDK's `APICallError`: its
 * `statusCode` and the response's request id), so a failed call keeps them as a successful one
 * does. Nothing for an error without a status (a connection error, an abort).
 */
function recordRefusedRequest(handle: ModelCallHandle, error: unknown, startedAt: number): void {
  const fields = error as { statusCode?: unknown; responseHeaders?: unknown } | null;
  const status = fields?.statusCode;
  if (typeof status !== 'number') return;
  const headers = fields?.responseHeaders;
  const requestId =
    typeof headers === 'object' && headers !== null
      ? requestIdOf(headers as Record<string, string | undefined>)
      : undefined;
  handle.attempt({
    outcome: 'failure',
    http_status: status,
    duration_ms: Math.round((performance.now() - startedAt) * 1000) / 1000,
    ...(requestId === undefined ? {} : { request_id: requestId }),
  });
}

/** Settles with `promise`, or rejects with the signal's reason when it aborts first. */
function raceAbort<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Runs a non-streamed model call: records it, applies the guards and the policy. `throw` mode:
 * rejects with `PolicyViolationError` (no tool runs). `refuse` mode: removed calls give way to
 * the refusal text; calls whose tool refuses them stay.
 * @internal
 */
export async function generateCall(
  setup: ModelCallSetup,
  doGenerate: () => PromiseLike<LanguageModelV4GenerateResult>,
): Promise<LanguageModelV4GenerateResult> {
  const handle = start(setup);
  const call = ++callsStarted;
  // a guard with a shared store (Redis) decides asynchronously: nothing is sent before it has
  if (handle.admission !== undefined) await handle.admission;
  const startedAt = performance.now();
  let result: LanguageModelV4GenerateResult;
  try {
    // The deadline ends the call even when the provider ignores the request's signal (or there
    // is none: telemetry cannot add one).
    result = setup.runtime.hasTimeout
      ? await raceAbort(doGenerate(), handle.signal)
      : await doGenerate();
  } catch (error) {
    if (recordRejectedAnswer(handle, setup, error)) throw error;
    recordRefusedRequest(handle, error, startedAt);
    throw handle.end(error, setup.userSignal);
  }
  if (handle.stopped) throw handle.fail(handle.signal.reason);
  noteRecorded(result, handle.tracer, call);
  const outcome = handle.finish(generateResultToResponse(result, setup.runtime.recordRaw));
  if (outcome.toolCalls.length === 0) return result;
  const removed = applyOutcome(outcome, setup, handle.tracer);
  if (removed.size === 0) return result;
  const content: LanguageModelV4Content[] = result.content.filter(
    (part) => !(part.type === 'tool-call' && removed.has(part.toolCallId)),
  );
  const hadText = content.some((part) => part.type === 'text' && part.text !== '');
  const refusal = outcome.refusalText ?? '';
  content.push({ type: 'text', text: hadText ? `\n\n${refusal}` : refusal });
  const delivered = {
    ...result,
    content,
    finishReason: finishWithout(result.finishReason, content.some(isClientToolCall)),
  };
  recordedResults.set(delivered, { tracer: handle.tracer, call });
  return delivered;
}

/**
 * Runs a streamed model call: the stream the caller reads is observed part by part.
 * @internal
 */
export async function streamCall(
  setup: ModelCallSetup,
  doStream: () => PromiseLike<LanguageModelV4StreamResult>,
): Promise<LanguageModelV4StreamResult> {
  const handle = start(setup);
  const call = ++callsStarted;
  // a guard with a shared store (Redis) decides asynchronously: nothing is sent before it has
  if (handle.admission !== undefined) await handle.admission;
  const startedAt = performance.now();
  let result: LanguageModelV4StreamResult;
  try {
    result = await doStream();
  } catch (error) {
    recordRefusedRequest(handle, error, startedAt);
    throw handle.end(error, setup.userSignal);
  }
  const requestId = requestIdOf(result.response?.headers);
  // known now: kept however the call ends (cancelled, failed, at the tracer's shutdown)
  if (requestId !== undefined) handle.chunk({ requestId });
  if (madeInside((result as MarkedStreamResult)[streamMark], handle.tracer, call))
    warnDoubleRecording();
  const observed: MarkedStreamResult = {
    ...result,
    stream: observeStream(
      result.stream,
      handle,
      setup,
      requestId === undefined ? undefined : { requestId },
    ),
  };
  observed[streamMark] = { tracer: handle.tracer, call };
  return observed;
}
