import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Middleware,
} from '@ai-sdk/provider';
import {
  type AdapterOptions,
  createAdapterRuntime,
  currentTracer,
  type Tracer,
} from '@tracewarden/core';
import { generateCall, type ModelCallSetup, streamCall } from '../model/model-call.js';
import { promptToNeutral } from '../model/prompt-to-neutral.js';
import { type TelemetryScope, telemetryScope } from '../model/telemetry-scope.js';
import { guardedMarker } from '../tools/guarded-marker.js';
import { registerTracerPolicy } from '../tools/tracer-policies.js';

/**
 * Options of {@link tracewardenMiddleware}: the options every tracewarden adapter shares
 * (`tracer`, `guards`, `timeoutSeconds`, `policy`, `onPolicyViolation`, `refusalMessage`,
 * `pricing`, `recordRaw`, `onRecordingError`), with the same names and meanings as `wrapOpenAI`.
 */
export interface TracewardenMiddlewareOptions extends AdapterOptions {}

/** What `transformParams` hands `wrapGenerate` / `wrapStream` for one call. */
interface CallSignals {
  /** The caller's own signal (cancelled vs failed). */
  user: AbortSignal | undefined;
  /** Aborts the request when a guard stops the call. */
  stop: AbortController;
}

const requestKeys = [
  'maxOutputTokens',
  'temperature',
  'stopSequences',
  'topP',
  'topK',
  'presencePenalty',
  'frequencyPenalty',
  'responseFormat',
  'seed',
  'toolChoice',
  'reasoning',
] as const;

function requestOf(params: LanguageModelV4CallOptions): Record<string, unknown> {
  const request: Record<string, unknown> = {};
  for (const key of requestKeys) if (params[key] !== undefined) request[key] = params[key];
  return request;
}

/** The offered tools' names, and those whose `execute` refuses a blocked call itself. */
interface OfferedTools {
  names: { name: string }[] | undefined;
  /** Made at the first guarded tool (most calls have none). */
  guarded: Set<string> | undefined;
}

/** A call without tools: one object for all. */
const noTools: OfferedTools = { names: undefined, guarded: undefined };

function toolsOf(params: LanguageModelV4CallOptions): OfferedTools {
  if (params.tools === undefined) return noTools;
  let guarded: Set<string> | undefined;
  const names = params.tools.map((tool) => {
    const options = (tool as { providerOptions?: Record<string, Record<string, unknown>> })
      .providerOptions;
    if (options?.tracewarden?.[guardedMarker] === true) (guarded ??= new Set()).add(tool.name);
    return { name: tool.name };
  });
  return { names, guarded };
}

/**
 * A Vercel AI SDK language-model middleware that traces and guards every call of the model it
 * wraps (`wrapLanguageModel`), streamed or not: the prompt messages new to the trace (a
 * conversation re-sent each step is recorded once), then an assistant MESSAGE with its THINK
 * and TOOL_CALL blocks, usage, cost, latency, time to first chunk, finish reason and status.
 * Tool results that arrive in the next prompt become TOOL_RESULT blocks under their TOOL_CALL.
 *
 * Guards (`circuitBreaker`, `rateLimit`, `budget`, `timeoutSeconds`) decide before the call;
 * a budget also cuts a stream off before it is passed. Proposed tool calls are checked against
 * `policy` before any tool runs: `onPolicyViolation: 'throw'` rejects the call with
 * `PolicyViolationError`; `'refuse'` keeps the blocked call from running and the model reads a
 * refusal: a tool wrapped with `guardTools` answers the refusal as its result (the loop goes
 * on), any other blocked call is removed from the response and the refusal appended to its text.
 *
 * Without `tracer`, calls record into the enclosing `withTrace`, else into the middleware's own
 * tracer. With the telemetry integration also registered, the integration records the call; a
 * middleware with a policy, a guard or a timeout still enforces them, and records its own copy
 * only into a tracer other than the integration's (its `tracer`, else its fallback trace), so the
 * integration's trace holds each call once; it hands the integration its verdicts, so that trace
 * shows each proposed call with its violations, removed and rejected calls included.
 *
 * @param options - tracer, guards, timeout, policy and its mode, pricing
 * @returns a `LanguageModelV4Middleware` for `wrapLanguageModel`
 * @throws TracewardenError `INVALID_OPTIONS` for an unknown option or a wrong value
 * @example
 * ```ts
 * const model = wrapLanguageModel({
 *   model: openai('gpt-4o-mini'),
 *   middleware: tracewardenMiddleware({ tracer, policy }),
 * });
 * const { text } = await generateText({ model, prompt: 'Summarise my inbox' });
 * ```
 */
export function tracewardenMiddleware(
  options?: TracewardenMiddlewareOptions,
): LanguageModelV4Middleware {
  const runtime = createAdapterRuntime(options, { entryPoint: 'tracewardenMiddleware' });
  // guardTools(tools, { tracer }) checks each call against this policy when it runs
  if (options?.tracer !== undefined && options.policy !== undefined)
    registerTracerPolicy(options.tracer, options.policy);
  // A stop signal in the request only where something can stop a call (a timeout, a budget).
  const stoppable = runtime.hasTimeout || options?.guards !== undefined;
  // Inside the telemetry integration (which records the call) a middleware that only traces
  // steps aside, so the call is recorded once; one that enforces anything never does: an
  // integration registered for tracing must not switch a policy or a guard off (it then records
  // beside the integration's trace: `tracerBeside`). Nor does one given a tracer of its own,
  // other than the integration's: the user asked for the calls there (left empty, it looked
  // broken).
  const tracingOnly = !stoppable && options?.policy === undefined;
  const ownTracer = options?.tracer;
  const stepsAside = (telemetry: TelemetryScope | undefined): boolean =>
    tracingOnly &&
    telemetry !== undefined &&
    (ownTracer === undefined || ownTracer === telemetry.tracer);
  /**
   * Where an enforcing middleware records a call the telemetry integration records too: its own
   * tracer, unless that is the integration's trace (given as `tracer`, or the enclosing
   * `withTrace`); then the runtime's fallback trace (counting the call, so it stays bounded), so
   * the shared trace holds the call once (its answer and cost counted once) while the policy and
   * guards still decide. The policy checks each call against its own request's messages, never
   * against the fallback trace, so conversations sharing that trace stay apart.
   */
  const tracerBeside = (telemetry: TelemetryScope): Tracer | undefined =>
    (ownTracer ?? currentTracer()) !== telemetry.tracer ? ownTracer : runtime.defaultTracer(true);
  /** Inside the telemetry integration: records beside it, and hands it the verdicts. */
  const beside = (call: ModelCallSetup, telemetry: TelemetryScope): void => {
    call.tracer = tracerBeside(telemetry);
    if (options?.policy !== undefined)
      call.onReviewed = (reviewed) => {
        telemetry.reviewed = reviewed;
      };
  };
  const signals = new WeakMap<LanguageModelV4CallOptions, CallSignals>();
  // The settings kept in `raw.request` only when raw payloads are recorded.
  const noRequest: Record<string, unknown> = {};

  /**
   * @param runsThroughTelemetry - inside the telemetry integration (looked up once per call by
   *   the caller), whose executeTool refuses a blocked call of a tool it runs
   */
  function setup(
    params: LanguageModelV4CallOptions,
    model: LanguageModelV4,
    stream: boolean,
    runsThroughTelemetry: ((toolName: string) => boolean) | undefined,
  ): ModelCallSetup {
    const { names, guarded } = toolsOf(params);
    const own = stoppable ? signals.get(params) : undefined;
    return {
      runtime,
      provider: model.provider,
      modelId: model.modelId,
      messages: promptToNeutral(params.prompt),
      tools: names,
      refusesAtTool: (name) => guarded?.has(name) === true || runsThroughTelemetry?.(name) === true,
      request: runtime.recordRaw ? requestOf(params) : noRequest,
      userSignal: own === undefined ? params.abortSignal : own.user,
      stop: own?.stop,
      stream,
    };
  }

  const middleware: LanguageModelV4Middleware = {
    specificationVersion: 'v4',
    wrapGenerate({ doGenerate, params, model }) {
      const telemetry = telemetryScope.getStore();
      if (stepsAside(telemetry)) return doGenerate();
      const call = setup(params, model, false, telemetry?.refusesAtTool);
      if (telemetry !== undefined) beside(call, telemetry);
      return generateCall(call, doGenerate);
    },
    wrapStream({ doStream, params, model }) {
      const telemetry = telemetryScope.getStore();
      if (stepsAside(telemetry)) return doStream();
      const call = setup(params, model, true, telemetry?.refusesAtTool);
      if (telemetry !== undefined) beside(call, telemetry);
      return streamCall(call, doStream);
    },
  };
  // Only where something can stop a call: `wrapLanguageModel` awaits a `transformParams` before
  // every request, a promise hop that would otherwise delay each request for nothing.
  if (stoppable) {
    middleware.transformParams = async ({ params }) => {
      const stop = new AbortController();
      const user = params.abortSignal;
      const next = {
        ...params,
        abortSignal: user === undefined ? stop.signal : AbortSignal.any([user, stop.signal]),
      };
      signals.set(next, { user, stop });
      return next;
    };
  }
  return middleware;
}
