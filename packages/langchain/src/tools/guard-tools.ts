import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager';
import { ToolMessage } from '@langchain/core/messages';
import type { ToolRunnableConfig } from '@langchain/core/tools';
import {
  ConfigurationError,
  currentTracer,
  type GuardCallContext,
  type GuardOptions,
  guardTools as guardFunctions,
  PolicyViolationError,
  recordedRefusal,
  recordResultUnderCall,
  refusalFor,
  type ToolCallPolicy,
  type ToolCallReview,
  type TraceEntry,
  type Tracer,
  TracewardenError,
} from '@tracewarden/core';
import { toolContentOf } from '../messages/messages-to-neutral.js';
import { errorOutputOf, jsonSafe, toolNodeErrorText } from '../messages/tool-output.js';
import { ownTracersAmong, tracerOfCall, waitingCallOf } from '../tracing/conversation-links.js';
import { checkGuardToolOptions, type ToolCall } from './check-guard-tool-options.js';
import { checkUnlinkedRun, recordWithoutCallId, reportResultRecording } from './unlinked-runs.js';

/**
 * What a guarded tool does with a guard's refusal (rate limit, budget, breaker, timeout,
 * validation, policy): answer with an error `ToolMessage`, or throw.
 * @example
 * ```ts
 * const mode: GuardErrorMode = 'throw';
 * const sendEmail = guardTool(emailTool, { rateLimit: { callsPerMinute: 5 }, onGuardError: mode });
 * ```
 */
export type GuardErrorMode = 'message' | 'throw';

/**
 * Options of {@link guardTool}: the options of core's `guard()` (`retry`, `timeout`, `budget`,
 * `rateLimit`, `circuitBreaker`, validators, `hallucination`, `sideEffect`, `tracer`, ...), and
 * what a guard's refusal becomes.
 * @example
 * ```ts
 * const options: GuardToolOptions = { retry: { maxRetries: 2 }, timeout: { timeoutSeconds: 10 } };
 * const search = guardTool(searchTool, options);
 * ```
 */
export type GuardToolOptions = Omit<GuardOptions, 'name'> & {
  /**
   * A guard's refusal (a tracewarden error: `RateLimitedError`, `BudgetExceededError`,
   * `CircuitOpenError`, `GuardTimeoutError`, `ValidationFailedError`, a policy refusal) becomes
   * the error `ToolMessage` the model reads (`'message'`, `status: 'error'`, when the tool was
   * invoked with a tool call), or is thrown (`'throw'`). The tool's own errors always throw.
   * @default 'message'
   */
  onGuardError?: GuardErrorMode | undefined;
  /**
   * Checked against every run of the tool that no model call proposed (a plain
   * `tool.invoke(args)`, or a tool call whose id no recorded TOOL_CALL has), on the trace so far,
   * before the tool body runs. A model's calls are reviewed when the model call ends, by the
   * handler's or the agent middleware's `policy`: give them the same policy.
   * @default none
   */
  policy?: ToolCallPolicy | undefined;
  /**
   * What a call the `policy` blocks becomes: `'throw'` rejects with `PolicyViolationError`;
   * `'refuse'` answers with the refusal, as an error `ToolMessage` when the tool was invoked
   * with a tool call (`onGuardError: 'message'`), else as the thrown error's message.
   * @default 'throw'
   */
  onPolicyViolation?: 'throw' | 'refuse' | undefined;
  /**
   * The refusal text in `'refuse'` mode.
   * @default `Tool call <name> was blocked by policy: <first violation>. It was not executed.`
   */
  refusalMessage?: ((review: ToolCallReview) => string) | undefined;
};

/**
 * Options of {@link guardTools}: {@link GuardToolOptions} shared by every tool, and per-tool
 * options under `tools` (by tool name) that replace shared ones key by key. One budget is shared
 * by all the tools.
 * @example
 * ```ts
 * const options: GuardToolsOptions = {
 *   budget: { maxCostPerSession: 1 },
 *   tools: { send_email: { sideEffect: 'write', rateLimit: { callsPerMinute: 5 } } },
 * };
 * const guarded = guardTools([getInbox, sendEmail], options);
 * ```
 */
export type GuardToolsOptions = GuardToolOptions & {
  tools?: Readonly<Record<string, Omit<GuardOptions, 'name'>>> | undefined;
};

/**
 * A LangChain tool this package can guard: `tool()` (a `DynamicStructuredTool` or
 * `DynamicTool`), `StructuredTool` and `Tool` subclasses. Typed by shape, so tools of any
 * `@langchain/core` 1.x copy fit (a `StructuredToolInterface` check fails for some under
 * `exactOptionalPropertyTypes`); that the value has a `_call` is checked at run time.
 * @example
 * ```ts
 * const tools: GuardableTool[] = [tool(fn, { name: 'search', schema }), new Calculator()];
 * ```
 */
export interface GuardableTool {
  readonly name: string;
  readonly description: string;
  readonly schema: unknown;
  invoke(input: never, config?: never): Promise<unknown>;
}

/** The runs (by their config) whose tool returned an empty list, recorded as the empty text read. */
const emptiedRuns = new WeakSet<object>();

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * What the model reads for a tool's value: LangChain takes an empty list for a ToolMessage's
 * content (no content blocks), sent as empty content, and records it so in the handler's
 * TOOL_RESULT; the guard records it as the same empty text (as wrapOpenAI records a tool message
 * with an empty list of parts). The run is noted so the tool still returns its list.
 */
function emptyListAsRead(value: unknown, config: object): unknown {
  if (!Array.isArray(value) || value.length !== 0) return value;
  emptiedRuns.add(config);
  return '';
}

/**
 * The tool's config with the guard's attempt signal (aborted at the attempt's timeout). Only a
 * timed tool gets one: without a timeout the attempt's signal is the caller's own (already in the
 * config) or one that never aborts, and LangChain's `tool()` adds and removes an abort listener
 * on any signal it is given: 9-11 µs of CPU a call in in-process A/Bs of the `guardTools` rows
 * of bench/langchain.bench.ts (load 12), where the untimed tool now adds ~0-8 µs to the raw one.
 */
function withSignal(
  config: ToolRunnableConfig | undefined,
  signal: AbortSignal,
): ToolRunnableConfig | undefined {
  const own = config?.signal;
  if (own === signal) return config;
  return { ...config, signal: own === undefined ? signal : AbortSignal.any([own, signal]) };
}

/**
 * Wraps LangChain tools with tracewarden's guards, keeping each tool's name, description,
 * schema and type: each wrapper is a new object whose prototype is the tool, with only its
 * `_call` (the body, after LangChain parsed the input) guarded. Each call is recorded under the
 * model's TOOL_CALL (by the tool call id, in the trace that recorded it, or `tracer`, or the
 * enclosing `withTrace`), with the guards' decisions. A guard's refusal comes back as an error
 * `ToolMessage` the model reads, or is thrown (`onGuardError`). In `onPolicyViolation:
 * 'refuse'` mode, a call the policy refused is answered with its refusal and never runs.
 *
 * @param tools - the tools (names must be unique)
 * @param options - shared guard options, `tools` for per-tool ones, `onGuardError`
 * @returns the guarded tools, in order, each typed as its tool
 * @throws ConfigurationError (`INVALID_OPTIONS`) for a tool that cannot be guarded, a duplicate
 *   name or a bad option
 * @example
 * ```ts
 * const [getInbox, sendEmail] = guardTools([inboxTool, emailTool], {
 *   timeout: { timeoutSeconds: 10 },
 *   tools: { send_email: { sideEffect: 'write', rateLimit: { callsPerMinute: 5 } } },
 * });
 * const agent = createAgent({ model, tools: [getInbox, sendEmail] });
 * ```
 */
export function guardTools<const Tools extends GuardableTool[]>(
  tools: Tools,
  options?: GuardToolsOptions,
): Tools;
export function guardTools<const Tools extends readonly GuardableTool[]>(
  tools: Tools,
  options?: GuardToolsOptions,
): Tools;
export function guardTools(
  tools: readonly GuardableTool[],
  options: GuardToolsOptions = {},
): readonly GuardableTool[] {
  return guardToolList(tools, options, 'guardTools');
}

/**
 * {@link guardTools}, with errors naming the function the user called: `guardTool(tool)` is
 * reported as `guardTool()`'s `tool`, not as `guardTools()`'s `tools[0]`.
 */
function guardToolList(
  tools: readonly GuardableTool[],
  options: GuardToolsOptions,
  entryPoint: 'guardTools' | 'guardTool',
): readonly GuardableTool[] {
  const { onGuardError, unlinkedPolicy, guardOptions, originals } = checkGuardToolOptions(
    tools,
    options,
    entryPoint,
  );
  const bodies: Record<string, (...args: unknown[]) => unknown> = {};
  const wrappers = new Map<string, GuardableTool>();
  for (const tool of tools as readonly GuardableTool[]) {
    const original = originals.get(tool.name) as ToolCall;
    const contentAndArtifact =
      (tool as { responseFormat?: unknown }).responseFormat === 'content_and_artifact';
    // core's guardTools lays a tool's own options over the shared ones
    const own = options.tools?.[tool.name];
    // (a value that is no options object is rejected by core's guardTools below, by name)
    const timed =
      (typeof own === 'object' && own !== null && 'timeout' in own
        ? own.timeout
        : guardOptions.timeout) !== undefined;
    bodies[tool.name] = (input, runManager, config, context) => {
      const value = original.call(
        wrappers.get(tool.name),
        input,
        runManager as CallbackManagerForToolRun | undefined,
        timed
          ? withSignal(
              config as ToolRunnableConfig | undefined,
              (context as GuardCallContext).signal,
            )
          : (config as ToolRunnableConfig | undefined),
      );
      // only a run for a model's tool call with an id becomes a ToolMessage (its content)
      if (contentAndArtifact || !(config as ToolRunnableConfig | undefined)?.toolCall?.id)
        return value;
      return isThenable(value)
        ? value.then((settled) => emptyListAsRead(settled, config as object))
        : emptyListAsRead(value, config as object);
    };
  }
  let guarded: ReturnType<typeof guardFunctions>;
  try {
    guarded = guardFunctions(bodies, guardOptions as never);
  } catch (error) {
    // core checks the options as guardTools()'s: a guardTool() caller is told of guardTool()
    if (entryPoint === 'guardTool' && error instanceof ConfigurationError)
      throw new ConfigurationError({
        message: error.message.replaceAll('guardTools()', 'guardTool()'),
        entryPoint: 'guardTool',
        issues: error.issues,
      });
    throw error;
  }
  const explicitTracer = guardOptions.tracer;
  return (tools as readonly GuardableTool[]).map((tool) => {
    const guardedBody = guarded[tool.name] as (typeof guarded)[string];
    const wrapper = Object.create(tool) as GuardableTool;
    wrappers.set(tool.name, wrapper);
    const contentAndArtifact =
      (tool as { responseFormat?: unknown }).responseFormat === 'content_and_artifact';
    /** The tool's own value for LangChain: an empty list recorded as read goes back as a list. */
    const returned = (value: unknown, config: ToolRunnableConfig | undefined): unknown =>
      value === '' && config !== undefined && emptiedRuns.has(config) ? [] : value;
    // whether refuse() answers `error` with a ToolMessage rather than throwing it
    const answers = (error: unknown, toolCallId: string | undefined): error is TracewardenError =>
      // in throw mode a policy block is thrown, whatever onGuardError says
      !(unlinkedPolicy?.mode === 'throw' && PolicyViolationError.isInstance(error)) &&
      onGuardError !== 'throw' &&
      toolCallId !== undefined &&
      TracewardenError.isInstance(error);
    // What the model reads for a run that failed, recorded as the TOOL_RESULT's output: the
    // refusal ToolMessage below, or, for an error thrown on, the error text of the agent's tool
    // node the run is in (else `Error: ...`; the caller gets the error)
    const shownToModel =
      (toolCallId: string | undefined, config: ToolRunnableConfig | undefined) =>
      (error: unknown): string =>
        answers(error, toolCallId)
          ? `Error: ${error.message}`
          : typeof config?.metadata?.langgraph_node === 'string'
            ? toolNodeErrorText(error)
            : errorOutputOf(error);
    const refuse = (error: unknown, toolCallId: string | undefined): unknown => {
      if (!answers(error, toolCallId) || toolCallId === undefined) throw error;
      const message = new ToolMessage({
        content: `Error: ${error.message}`,
        tool_call_id: toolCallId,
        name: tool.name,
        status: 'error',
      });
      // a content-and-artifact tool must return a pair; a ToolMessage passes through as is
      return contentAndArtifact ? [message, undefined] : message;
    };
    /**
     * A content-and-artifact tool's run for a model's call: the guard's record with the content
     * the model reads as its output and the artifact in `extra` (as the handler records the
     * ToolMessage), not the `[content, artifact]` pair the tool returns.
     */
    const runWithArtifact = async (
      tracer: Tracer,
      callId: string,
      input: unknown,
      runManager: CallbackManagerForToolRun | undefined,
      config: ToolRunnableConfig | undefined,
    ): Promise<unknown> => {
      let entry: TraceEntry | undefined;
      const record = (value?: unknown) => {
        if (entry === undefined) return;
        try {
          if (!Array.isArray(value)) {
            recordResultUnderCall(tracer, entry);
            return;
          }
          const [content, artifact] = value as [unknown, unknown];
          recordResultUnderCall(
            tracer,
            {
              call: entry.call,
              result: { ...entry.result, return_value: jsonSafe(toolContentOf(content)) },
            },
            undefined,
            artifact === undefined ? undefined : { artifact: jsonSafe(artifact) },
          );
        } catch (error) {
          reportResultRecording(error);
        }
      };
      try {
        const value = await guardedBody.invoke(
          {
            callId,
            tracer: null,
            onEntry: (held: TraceEntry) => (entry = held),
            errorOutput: shownToModel(callId, config),
            ...(config?.signal === undefined ? {} : { signal: config.signal }),
          },
          input as never,
          runManager as never,
          config as never,
        );
        record(value);
        return value;
      } catch (error) {
        record();
        return refuse(error, callId);
      }
    };
    Object.defineProperty(wrapper, '_call', {
      configurable: true,
      writable: true,
      async value(
        input: unknown,
        runManager?: CallbackManagerForToolRun,
        config?: ToolRunnableConfig,
      ): Promise<unknown> {
        const toolCallId = config?.toolCall?.id;
        // under tracewarden handlers or the agent middleware, only the traces they recorded into
        // (never another recorder's call); the whole index only under none
        const own = ownTracersAmong(runManager?.handlers);
        // a run without a tool call: the handler recorded its TOOL_CALL under the run's id
        let callId = toolCallId ?? runManager?.runId;
        if (toolCallId !== undefined) {
          // the model call's verdict, re-checked on the arguments that really run
          const refusal = refusalFor(toolCallId, tool.name, input);
          if (refusal !== undefined)
            return refuse(
              new PolicyViolationError({ violations: [], message: refusal }),
              toolCallId,
            );
        }
        if (toolCallId === '') {
          // a call without an id (Gemini-backed agents): its result answers the trace's next
          // unanswered call by core's order rule (decision 030); it has no id to record under
          const trace =
            explicitTracer ?? currentTracer() ?? tracerOfCall('', tool.name, input, true, own);
          let entry: TraceEntry | undefined;
          // the guard's record, with the text the model reads for a failure
          const record = (failure?: unknown) => {
            if (trace === undefined || entry === undefined) return;
            recordWithoutCallId(
              trace,
              // the call of this tool with these arguments (parallel calls end in any order)
              waitingCallOf(trace, tool.name, input)?.callId ?? '',
              failure === undefined || entry.result.return_value !== null
                ? entry
                : {
                    call: entry.call,
                    result: {
                      ...entry.result,
                      return_value: shownToModel(toolCallId, config)(failure),
                    },
                  },
            );
          };
          try {
            const value = await guardedBody.invoke(
              {
                tracer: null,
                ...(trace === undefined ? {} : { onEntry: (held: TraceEntry) => (entry = held) }),
                ...(config?.signal === undefined ? {} : { signal: config.signal }),
              },
              input as never,
              runManager as never,
              config as never,
            );
            record();
            return returned(value, config);
          } catch (error) {
            record(error);
            return refuse(error, toolCallId);
          }
        }
        let tracer = explicitTracer ?? tracerOfCall(callId, tool.name, input, true, own);
        // a blocked call run again (a retry middleware, the same call invoked twice): its verdict
        // was taken by the first run, and the trace keeps it blocked
        const again =
          toolCallId === undefined || tracer === undefined
            ? undefined
            : recordedRefusal(tracer, toolCallId, tool.name, input);
        if (again !== undefined)
          return refuse(new PolicyViolationError({ violations: [], message: again }), toolCallId);
        if (unlinkedPolicy !== undefined) {
          tracer ??= currentTracer();
          const checked = checkUnlinkedRun(unlinkedPolicy, tracer, callId, tool.name, input);
          if (checked.error !== undefined) return refuse(checked.error, toolCallId);
          callId = checked.callId;
        }
        if (
          contentAndArtifact &&
          toolCallId !== undefined &&
          tracer !== undefined &&
          tracer.findToolCall(toolCallId) !== undefined
        )
          return runWithArtifact(tracer, toolCallId, input, runManager, config);
        try {
          const value = await guardedBody.invoke(
            {
              callId,
              errorOutput: shownToModel(toolCallId, config),
              ...(tracer === undefined ? {} : { tracer }),
              ...(config?.signal === undefined ? {} : { signal: config.signal }),
            },
            input as never,
            runManager as never,
            config as never,
          );
          return returned(value, config);
        } catch (error) {
          return refuse(error, toolCallId);
        }
      },
    });
    return wrapper;
  });
}

/**
 * Wraps one LangChain tool with tracewarden's guards (see {@link guardTools}), keeping its
 * name, description, schema and type.
 * @param tool - a `tool()`, `DynamicStructuredTool` or `StructuredTool` subclass instance
 * @param options - the guard options, `onGuardError`
 * @returns the guarded tool, typed as `tool`
 * @throws ConfigurationError (`INVALID_OPTIONS`) for a value that is not a LangChain tool or a bad option
 * @example
 * ```ts
 * const sendEmail = guardTool(emailTool, {
 *   sideEffect: 'write',
 *   rateLimit: { callsPerMinute: 5 },
 * });
 * const message = await sendEmail.invoke(toolCall); // an error ToolMessage when rate limited
 * ```
 */
export function guardTool<Tool extends GuardableTool>(
  tool: Tool,
  options: GuardToolOptions = {},
): Tool {
  return guardToolList([tool], options, 'guardTool')[0] as Tool;
}
