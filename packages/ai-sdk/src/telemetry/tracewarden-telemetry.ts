import { AsyncLocalStorage } from 'node:async_hooks';
import type { LanguageModelV4GenerateResult, LanguageModelV4StreamResult } from '@ai-sdk/provider';
import {
  type AdapterOptions,
  configurationError,
  createAdapterRuntime,
  createTracer,
  currentTracer,
  type GuardedFunction,
  type GuardOptions,
  guard,
  guardOptionsSchema,
  optionChecks,
  recordResultUnderCall,
  type Sink,
  ToolCallScope,
  type TraceEntry,
  type Tracer,
  validateOptions,
  warnRecordingError,
  withTrace,
} from '@tracewarden/core';
import type { Telemetry } from 'ai';
import { generateCall, type ModelCallSetup, streamCall } from '../model/model-call.js';
import { promptToNeutral } from '../model/prompt-to-neutral.js';
import { type TelemetryScope, telemetryScope } from '../model/telemetry-scope.js';
import { toolCallRefusal } from '../tools/check-tool-call-on-conversation.js';
import { modelErrorText } from '../tools/model-error-text.js';

/** A top-level `generateText` / `streamText` call, as the integration sees it. */
export interface TelemetryCallInfo {
  /** The AI SDK's id of the call (`callId` in every event). */
  callId: string;
  /** `ai.generateText` or `ai.streamText`. */
  operationId: string | undefined;
  /** The call's `telemetry.functionId`, if set. */
  functionId: string | undefined;
}

/**
 * Options of {@link tracewardenTelemetry}: the options every tracewarden adapter shares (same
 * names and meanings as `wrapOpenAI`), plus where each trace goes and the guards of tools.
 */
export interface TracewardenTelemetryOptions extends AdapterOptions {
  /**
   * Sinks of each call's own tracer (when neither `tracer`, `createTracer` nor an enclosing
   * `withTrace` gives one); flushed when the call ends, after it returns (`flush()` of the
   * integration waits for it).
   */
  sinks?: readonly Sink[] | undefined;
  /** Builds the tracer of each top-level call (when neither `tracer` nor `withTrace` gives one). */
  createTracer?: ((call: TelemetryCallInfo) => Tracer) | undefined;
  /**
   * Called when a top-level call ends (finished, failed or aborted), after its own tracer was
   * flushed, off the call's path (the call has returned; `flush()` of the integration waits
   * for it): render it, send it, keep it. What it throws goes to `onRecordingError`.
   */
  onTraceEnd?: ((tracer: Tracer, call: TelemetryCallInfo) => void | Promise<void>) | undefined;
  /**
   * Guards of the tools the AI SDK runs through the integration (`executeTool`): the options of
   * core's `guard()` shared by every tool, and per-tool ones under `tools`.
   * @default none: each tool run is recorded, and refused when the policy blocked its call
   */
  toolGuards?:
    | (Omit<GuardOptions, 'name'> & { tools?: Record<string, Omit<GuardOptions, 'name'>> })
    | undefined;
}

/**
 * The integration {@link tracewardenTelemetry} returns: an ai@7 `Telemetry`, and `flush()`.
 */
export type TracewardenTelemetry = Telemetry & {
  /**
   * Waits until the traces of every call that ended so far are flushed to their sinks and
   * handed to `onTraceEnd` (which run after the call returns, never holding it). Call it before
   * a short-lived process ends (a serverless handler, a script); failures go to
   * `onRecordingError` (default: a `TRACEWARDEN_RECORDING` warning), not here.
   * @example
   * ```ts
   * await generateText({ model, prompt, telemetry: { integrations: [telemetry] } });
   * await telemetry.flush();
   * ```
   */
  flush(): Promise<void>;
};

interface CallState {
  info: TelemetryCallInfo;
  tracer: Tracer;
  /** The integration made the tracer for this call (and flushes it at the end). */
  owned: boolean;
  /** A call made inside one of our tool runs: part of that call's trace, not a trace of its own. */
  nested: boolean;
  /** Names of the call's tools that have an `execute` (only those run through executeTool). */
  executable: ReadonlySet<string>;
  /** `telemetry.recordInputs` of the call (false: the prompt is not handed to integrations). */
  recordInputs: boolean;
  /** The call's tool runs whose end the AI SDK has not reported yet (by tool call id). */
  running?: Set<string> | undefined;
  /** The call ended (an abort, an error) while tools still ran: it ends when they have. */
  endPending?: boolean | undefined;
}

type Execute = () => PromiseLike<unknown>;

/**
 * Operations whose model call the AI SDK does not run through a telemetry integration (no
 * `executeLanguageModelCall`): the integration can neither record nor guard them.
 */
const unrecordedOperations: Record<string, string> = {
  'ai.generateObject': 'generateObject',
  'ai.streamObject': 'streamObject',
};
const warnedOperations = new Set<string>();

/**
 * Says once per operation that the integration cannot record or guard it, instead of leaving a
 * user who counts on its budget or rate limit with nothing.
 */
function warnUnrecorded(operationId: string): void {
  const name = unrecordedOperations[operationId];
  if (name === undefined || warnedOperations.has(operationId)) return;
  warnedOperations.add(operationId);
  process.emitWarning(
    `tracewarden: tracewardenTelemetry cannot record or guard ${name}(): the AI SDK does not run its model call through telemetry integrations. Use generateText / streamText with \`output\` (what ai@7 recommends over ${name}), or wrap the model with tracewardenMiddleware.`,
    { code: 'TRACEWARDEN_UNRECORDED_CALL' },
  );
}

/** An object, not a list (option groups keyed by name). */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Calls with tools after which per-tool guards naming no tool seen are warned about. */
const unknownToolGuardsAfterCalls = 10;

/**
 * A Vercel AI SDK (ai@7) telemetry integration that traces and enforces without wrapping
 * anything: register it globally (`registerTelemetry(tracewardenTelemetry())`) or per call
 * (`telemetry: { integrations: [tracewardenTelemetry()] }`).
 *
 * Each top-level `generateText` / `streamText` call is one trace, its steps in order: every
 * model call (run inside the integration, so guards and the policy apply before the response
 * reaches the SDK, streamed or not) and every tool run (`executeTool`: the tool guards apply,
 * and a call the policy blocked never runs — in `throw` mode the model call rejects with
 * `PolicyViolationError`, in `refuse` mode the tool answers the refusal and the loop goes on).
 * A `generateText` run inside a tool records into the same trace.
 *
 * @param options - tracer (or sinks / a tracer factory), guards, timeout, policy, pricing, tool guards
 * @returns the `Telemetry` integration
 * @throws ConfigurationError (`INVALID_OPTIONS`) for an unknown option or a wrong value
 * @example
 * ```ts
 * const telemetry = tracewardenTelemetry({
 *   policy,
 *   onTraceEnd: (tracer) => console.log(renderTree(tracer.stitched())),
 * });
 * await generateText({ model, tools, prompt, telemetry: { integrations: [telemetry] } });
 * ```
 */
export function tracewardenTelemetry(options?: TracewardenTelemetryOptions): TracewardenTelemetry {
  const runtime = createAdapterRuntime(options, {
    entryPoint: 'tracewardenTelemetry',
    extraOptions: {
      sinks: optionChecks.sinks,
      createTracer: optionChecks.function,
      onTraceEnd: optionChecks.function,
      toolGuards: (value) =>
        isPlainRecord(value) &&
        (value.tools === undefined ||
          (isPlainRecord(value.tools) && Object.values(value.tools).every(isPlainRecord)))
          ? undefined
          : "guard() options, with per-tool ones under 'tools' by tool name ({ tools: { send_email: { retry } } })",
    },
  });
  // Guard options are checked now, against guard()'s own schema (a typo must not fail every tool
  // run later, or be ignored).
  const { tools: perToolGuards, ...sharedGuards } = options?.toolGuards ?? {};
  if (options?.toolGuards !== undefined) {
    const entryPoint = 'tracewardenTelemetry';
    validateOptions(guardOptionsSchema, sharedGuards, { entryPoint, path: 'toolGuards' });
    for (const [name, own] of Object.entries(perToolGuards ?? {}))
      validateOptions(guardOptionsSchema, own, { entryPoint, path: `toolGuards.tools.${name}` });
  }
  const calls = new Map<string, CallState>();
  const guardedTools = new Map<string, GuardedFunction<[unknown], unknown>>();
  const toolRun = new AsyncLocalStorage<Execute>();
  /** Set while a tool runs through executeTool: a generateText inside it is nested. */
  const toolScope = new AsyncLocalStorage<true>();
  /** Guard entries of tools run, until onToolExecutionEnd records them with their output. */
  const entries = new Map<string, TraceEntry>();
  /** The scopes tools ran in, for the record of a guarded function a tool called itself. */
  const scopes = new Map<string, ToolCallScope>();

  function tracerFor(info: TelemetryCallInfo): { tracer: Tracer; owned: boolean } {
    if (options?.tracer !== undefined) return { tracer: options.tracer, owned: false };
    const ambient = currentTracer();
    if (ambient !== undefined) return { tracer: ambient, owned: false };
    if (options?.createTracer !== undefined)
      return { tracer: options.createTracer(info), owned: true };
    return {
      tracer: createTracer(options?.sinks === undefined ? {} : { sinks: [...options.sinks] }),
      owned: true,
    };
  }

  function callOf(callId: string, start?: Record<string, unknown>): CallState {
    let state = calls.get(callId);
    if (state === undefined) {
      const info: TelemetryCallInfo = {
        callId,
        operationId: start?.operationId as string | undefined,
        functionId: start?.functionId as string | undefined,
      };
      const executable = new Set<string>();
      const tools = start?.tools;
      if (typeof tools === 'object' && tools !== null)
        for (const [name, tool] of Object.entries(tools))
          if (typeof (tool as { execute?: unknown } | null)?.execute === 'function')
            executable.add(name);
      state = {
        info,
        ...tracerFor(info),
        nested: toolScope.getStore() === true,
        executable,
        recordInputs: start?.recordInputs !== false,
      };
      calls.set(callId, state);
    }
    return state;
  }

  function toolGuard(name: string): GuardedFunction<[unknown], unknown> {
    let guarded = guardedTools.get(name);
    if (guarded === undefined) {
      guarded = guard((_input: unknown) => (toolRun.getStore() as Execute)(), {
        ...sharedGuards,
        ...perToolGuards?.[name],
        name,
      } as GuardOptions) as GuardedFunction<[unknown], unknown>;
      guardedTools.set(name, guarded);
    }
    return guarded;
  }

  /**
   * Per-tool guard names no call has had a tool of yet. After
   * {@link unknownToolGuardsAfterCalls} calls with tools, each one left is said once: a typo
   * guards nothing (an integration shared by calls with other tool sets may name tools a later
   * call has, so one call alone does not decide).
   */
  const unseenGuardNames = new Set(Object.keys(perToolGuards ?? {}));
  let callsWithTools = 0;
  function warnUnknownToolGuards(tools: unknown): void {
    if (unseenGuardNames.size === 0 || typeof tools !== 'object' || tools === null) return;
    for (const name of Object.keys(tools)) unseenGuardNames.delete(name);
    if (++callsWithTools < unknownToolGuardsAfterCalls) return;
    for (const name of unseenGuardNames)
      process.emitWarning(
        `tracewarden: tracewardenTelemetry's toolGuards.tools names "${name}", but none of the ${callsWithTools} calls so far had a tool of that name: its guards apply to nothing (a typo?).`,
        { code: 'TRACEWARDEN_UNKNOWN_TOOL_GUARDS' },
      );
    unseenGuardNames.clear();
  }

  // Each ended call's flush and onTraceEnd run off the caller's path (the AI SDK awaits its
  // telemetry hooks: a slow or failing collector would hold every call, for minutes while an
  // HTTP sink retries); `flush()` of the integration waits for them.
  const ending = new Set<Promise<void>>();
  async function finishTrace(state: CallState): Promise<void> {
    const report = options?.onRecordingError ?? warnRecordingError;
    try {
      if (state.owned) await state.tracer.flush();
    } catch (error) {
      report(error);
    }
    // the trace is whole in memory even when a sink failed: it is handed over all the same
    try {
      await options?.onTraceEnd?.(state.tracer, state.info);
    } catch (error) {
      report(error);
    }
  }
  /** Records a tool run's result as the model reads it: the tool's value, or the SDK's error text. */
  function recordToolEnd(
    state: CallState,
    entry: TraceEntry,
    toolOutput: { type: string; output?: unknown; error?: unknown },
    scope: ToolCallScope | undefined,
  ): void {
    const result =
      toolOutput.type === 'tool-result'
        ? { ...entry.result, return_value: toolOutput.output ?? null }
        : toolOutput.type === 'tool-error'
          ? { ...entry.result, return_value: modelErrorText(toolOutput.error) }
          : entry.result;
    try {
      recordResultUnderCall(state.tracer, { call: entry.call, result }, scope);
    } catch (error) {
      (options?.onRecordingError ?? warnRecordingError)(error);
    }
  }

  /**
   * Ends a call once its stream's last answer is in and no tool runs, if the AI SDK has not by
   * the next turn of the event loop: when the reader of `streamText` stops (a closed browser
   * tab, `break`), the SDK fires neither `onEnd` nor `onAbort`, and the trace would never reach
   * its sinks (and its state would stay in memory). Ending first is harmless: nothing is
   * recorded after the last answer, and the SDK's own end then finds the call gone.
   */
  function endWhenIdle(callId: string): void {
    const timer: unknown = setTimeout(() => {
      const state = calls.get(callId);
      if (state !== undefined && (state.running?.size ?? 0) === 0) endCall(callId);
    }, 0);
    (timer as { unref?: () => void }).unref?.();
  }

  function endCall(callId: unknown): void {
    if (typeof callId !== 'string') return;
    const state = calls.get(callId);
    if (state === undefined) return;
    // Aborted while a tool ran: the AI SDK reports the tool's end after the call's (its side
    // effect happened), so the trace stays open for it; `flush()` ends it all the same.
    if (state.running !== undefined && state.running.size > 0) {
      state.endPending = true;
      return;
    }
    calls.delete(callId);
    if (state.nested) return;
    const done = finishTrace(state);
    ending.add(done);
    void done.finally(() => ending.delete(done));
  }

  return {
    onStart(event) {
      const start = event as Record<string, unknown> & { callId: string; operationId?: string };
      if (start.operationId === 'ai.generateText' || start.operationId === 'ai.streamText') {
        callOf(start.callId, start);
        warnUnknownToolGuards(start.tools);
      } else if (start.operationId !== undefined) warnUnrecorded(start.operationId);
    },
    async executeLanguageModelCall<T>(
      event: Record<string, unknown> & { callId: string; execute: () => PromiseLike<T> },
    ): Promise<T> {
      const state = callOf(event.callId);
      if (!state.recordInputs && runtime.recorder.hasPolicy)
        // fail closed: a policy that cannot see the conversation would silently pass everything
        throw configurationError(
          'tracewardenTelemetry',
          'telemetry.recordInputs',
          'true (the default) when the integration checks a policy: without the prompt, flow rules cannot see what reached the model; use tracewardenMiddleware to keep inputs out of telemetry',
          false,
        );
      const tools = event.tools as readonly { name?: unknown }[] | undefined;
      const setup: ModelCallSetup = {
        runtime,
        provider: String(event.provider ?? 'unknown'),
        modelId: String(event.modelId ?? 'unknown'),
        messages: promptToNeutral(
          (event.messages as { role: string; content: unknown }[] | undefined) ?? [],
          event.instructions,
        ),
        tools: tools?.map((tool) => ({ name: String(tool.name) })),
        // a tool with an `execute` runs through executeTool, which refuses a blocked call; a
        // blocked call of any other tool is removed from the response
        refusesAtTool: (name) => state.executable.has(name),
        request: {},
        userSignal: undefined,
        stop: undefined,
        tracer: state.tracer,
        stream: state.info.operationId === 'ai.streamText',
        // the last answer of a run whose reader stopped reading: the AI SDK reports no end
        onStreamEnded: (toolCalls) => {
          if (toolCalls === 0) endWhenIdle(event.callId);
        },
      };
      const scope: TelemetryScope = {
        refusesAtTool: setup.refusesAtTool,
        tracer: state.tracer,
        reviewed: undefined,
      };
      setup.adoptedReviews = () => scope.reviewed;
      return telemetryScope.run(scope, async () => {
        if (setup.stream)
          return (await streamCall(
            setup,
            event.execute as () => PromiseLike<LanguageModelV4StreamResult>,
          )) as T;
        return (await generateCall(
          setup,
          event.execute as () => PromiseLike<LanguageModelV4GenerateResult>,
        )) as T;
      });
    },
    executeTool<T>(
      event: Record<string, unknown> & {
        callId: string;
        toolCallId: string;
        execute: () => PromiseLike<T>;
      },
    ): PromiseLike<T> {
      const toolCall = event.toolCall as { toolName?: unknown; input?: unknown } | undefined;
      const state = callOf(event.callId);
      // the model call's verdict, then the policy on the conversation the SDK hands the tool (a
      // tool approval resumed in another process has no verdict here)
      const blocked = toolCallRefusal(
        options?.policy,
        event.messages,
        { id: event.toolCallId, name: String(toolCall?.toolName), input: toolCall?.input },
        state.tracer,
      );
      if (blocked !== undefined) return Promise.reject(blocked);
      const guarded = toolGuard(String(toolCall?.toolName ?? 'tool'));
      const toolCallId = event.toolCallId;
      (state.running ??= new Set()).add(toolCallId);
      // The AI SDK's `execute` keeps the tool's output to itself (it resolves to nothing): the
      // guards decide here, and the result is recorded from onToolExecutionEnd, which has it.
      const run = toolRun.run(
        // a core guard() the tool's own execute calls takes the model's call from the scope
        // (no TOOL_CALL of its own): its record joins the result onToolExecutionEnd records
        () =>
          toolScope.run(true, () =>
            withTrace(state.tracer, () => {
              if (toolCallId === '') return event.execute();
              const scope = new ToolCallScope(toolCallId, state.tracer);
              scopes.set(toolCallId, scope);
              return scope.run(event.execute);
            }),
          ),
        () =>
          guarded.invoke(
            {
              callId: toolCallId,
              tracer: null,
              onEntry: (entry) => entries.set(toolCallId, entry),
            },
            toolCall?.input,
          ),
      ) as PromiseLike<T>;
      // a run whose end the AI SDK never reports (it reports it right after the run settles)
      // must not keep an ended call open
      const settled = () =>
        setImmediate(() => {
          if (state.running?.delete(toolCallId) === true && state.endPending === true)
            if (state.running.size === 0) endCall(event.callId);
        });
      run.then(settled, settled);
      return run;
    },
    onToolExecutionEnd(event) {
      const { callId, toolCall, toolOutput } = event as {
        callId: string;
        toolCall: { toolCallId: string };
        toolOutput: { type: string; output?: unknown; error?: unknown };
      };
      const toolCallId = toolCall.toolCallId;
      const entry = entries.get(toolCallId);
      entries.delete(toolCallId);
      const scope = scopes.get(toolCallId);
      scopes.delete(toolCallId);
      const state = calls.get(callId);
      if (state?.running?.delete(toolCallId) === true && state.endPending === true) {
        // the call ended while this tool ran: its result is recorded, then the call ends
        try {
          if (entry !== undefined) recordToolEnd(state, entry, toolOutput, scope);
        } finally {
          if (state.running.size === 0) endCall(callId);
        }
        return;
      }
      if (entry === undefined || state === undefined) return;
      recordToolEnd(state, entry, toolOutput, scope);
    },

    onEnd(event) {
      endCall((event as { callId?: unknown }).callId);
    },
    onAbort(event) {
      endCall((event as { callId?: unknown }).callId);
    },
    onError(event) {
      endCall((event as { callId?: unknown } | null)?.callId);
    },
    async flush() {
      // calls still waiting for a tool's end are ended now: what their tools report later is lost
      for (const [callId, state] of calls)
        if (state.endPending === true) {
          state.running?.clear();
          endCall(callId);
        }
      while (ending.size > 0) await Promise.all(ending);
    },
  } as TracewardenTelemetry;
}
