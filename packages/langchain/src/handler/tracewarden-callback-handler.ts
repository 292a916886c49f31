import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import type { Serialized } from '@langchain/core/load/serializable';
import type { BaseMessage } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import type { ChainValues } from '@langchain/core/utils/types';
import {
  type AdapterOptions,
  createAdapterRuntime,
  optionChecks,
  type Tracer,
} from '@tracewarden/core';
import { type LooseMessage, messagesToNeutral } from '../messages/messages-to-neutral.js';
import { registerOwnTracers } from '../tracing/conversation-links.js';
import { recordingErrorReporter } from '../tracing/recording-error-reporter.js';
import { HandlerContext } from './handler-context.js';
import { ModelRuns } from './model-runs.js';
import { refusalWording } from './refusal-wording.js';
import { RunRegistry } from './run-registry.js';
import { ToolRuns } from './tool-runs.js';

/**
 * What a tracer factory learns about the top-level run a new trace is for.
 * @example
 * ```ts
 * const handler = new TracewardenCallbackHandler({
 *   tracerFactory: (run: TraceRunInfo) =>
 *     createTracer({ sinks: [createJsonlFileSink(`traces/${run.runId}.jsonl`)] }),
 * });
 * ```
 */
export interface TraceRunInfo {
  /** The top-level run's id. */
  runId: string;
  /** Its name (`runName`, or the runnable's class name). */
  name: string | undefined;
  /** Its tags. */
  tags: readonly string[];
  /** Its metadata (yours and LangChain's `ls_*` keys). */
  metadata: Readonly<Record<string, unknown>>;
}

/**
 * Options of {@link TracewardenCallbackHandler}: the options every tracewarden adapter shares
 * (`tracer`, `guards`, `timeoutSeconds`, `policy`, `onPolicyViolation`, `refusalMessage`,
 * `pricing`, `recordRaw`, `onRecordingError`), with the same names and meanings as
 * `wrapOpenAI`, and two of the handler's own.
 * @example
 * ```ts
 * const options: TracewardenCallbackHandlerOptions = {
 *   tracer,
 *   policy: parsePolicy(policyText),
 *   onPolicyViolation: 'refuse',
 *   guards: { budget: { maxCostPerSession: 0.5 } },
 * };
 * const handler = new TracewardenCallbackHandler(options);
 * ```
 */
export interface TracewardenCallbackHandlerOptions extends AdapterOptions {
  /**
   * Makes a new trace for a top-level run that continues no recorded conversation (when no
   * `tracer` is given and no `withTrace` encloses the run): route traces to your sinks here.
   * @default `createTracer()` (in memory; the last 100 are in `handler.tracers`)
   */
  tracerFactory?: ((run: TraceRunInfo) => Tracer) | undefined;
  /**
   * Sets LangChain's `lc_prefer_streaming`: `invoke()` then streams internally, so the trace
   * gets the time to first token and a budget can cut a long answer off (at its end).
   * @default false
   */
  preferStreaming?: boolean | undefined;
}

/**
 * A LangChain.js callback handler that traces every chat model, tool, chain, agent and
 * LangGraph node run it sees, and blocks what the guards or the policy refuse.
 *
 * - Chat model runs: the request messages new to the trace (a history re-sent each turn is
 *   recorded once), then the assistant MESSAGE with THINK (reasoning blocks) and TOOL_CALL
 *   blocks (the model's call ids), usage with cost, model, latency, time to first token when
 *   streaming, and errors with their status.
 * - Tool runs: the TOOL_RESULT under the model's TOOL_CALL (a `ToolMessage`'s content, its
 *   artifact in `extra`, status, time); a tool run without a call id becomes a TOOL_CALL +
 *   TOOL_RESULT pair under the latest assistant message.
 * - Runs map onto traces by `runId` / `parentRunId`: one trace per top-level run (a top-level
 *   run that continues a recorded conversation, like a manual tool loop, continues its trace),
 *   unless `tracer` is given or a `withTrace` encloses the run. Each block's
 *   `metadata.langchain` keeps the run's id, parent, name, tags, metadata and chain path.
 *
 * Blocking: with `guards`, `timeoutSeconds` or `policy` the handler is built with
 * `raiseError: true`, so LangChain awaits it and its typed errors reach your call: a guard
 * refuses a model call before it is sent (`BudgetExceededError`, `RateLimitedError`, ...); a
 * proposed tool call the policy blocks rejects the model call with `PolicyViolationError`
 * before any tool runs (`onPolicyViolation: 'throw'`), or, in `'refuse'` mode, the tool run
 * for that call id is refused (`PolicyViolationError` whose message is the refusal; an agent's
 * tool node hands it to the model as an error `ToolMessage`). A timeout or a budget cut-off
 * cannot interrupt a running request from a callback: the call rejects when it ends.
 *
 * Without guards or policy the handler only observes: LangChain still awaits it (it is cheaper
 * inline than in LangChain's background queue), so a run's trace is complete when the call
 * returns; `await handler.flush()` flushes the traces' sinks (and any other background
 * callbacks) before a process exits.
 *
 * @example
 * ```ts
 * const handler = new TracewardenCallbackHandler({ tracer, policy: parsePolicy(policyText) });
 * const model = new ChatOpenAI({ model: 'gpt-4o-mini' }).bindTools([getInbox, sendEmail]);
 * const answer = await model.invoke(messages, { callbacks: [handler] });
 * for (const call of answer.tool_calls ?? [])
 *   messages.push(await tools[call.name].invoke(call, { callbacks: [handler] }));
 * await handler.flush();
 * ```
 */
export class TracewardenCallbackHandler extends BaseCallbackHandler {
  /** The handler's name, as LangChain reports it. */
  name = 'TracewardenCallbackHandler';
  /** Whether `invoke()` of a chat model streams internally for this handler (`preferStreaming`). */
  readonly lc_prefer_streaming: boolean;

  readonly #runs: RunRegistry;
  readonly #models: ModelRuns;
  readonly #tools: ToolRuns;

  /**
   * @param options - tracer, guards, timeout, policy and its mode, pricing, tracer factory
   * @throws ConfigurationError (`INVALID_OPTIONS`) for an unknown option or a wrong value
   */
  constructor(options?: TracewardenCallbackHandlerOptions) {
    // a refusal is recorded as the model will read it: worded as an agent's tool node answers
    // the error that stops the tool run, when the handler will stop it inside one
    let context: HandlerContext | undefined;
    const given = options?.refusalMessage;
    const runtime = createAdapterRuntime(
      options?.policy === undefined || (given !== undefined && typeof given !== 'function')
        ? options
        : {
            ...options,
            refusalMessage: refusalWording(given, () => context?.toolNodeRefusals === true),
          },
      {
        entryPoint: 'TracewardenCallbackHandler',
        extraOptions: {
          tracerFactory: optionChecks.function,
          preferStreaming: optionChecks.boolean,
        },
      },
    );
    const blocking =
      options?.guards !== undefined ||
      options?.policy !== undefined ||
      options?.timeoutSeconds !== undefined;
    // raiseError makes LangChain await the handler and rethrow what it throws: the only way a
    // callback handler can stop a tool or a model call (decision 011). An observing handler is
    // awaited too (`_awaitHandler`, as LangChain's own event-stream and run-collector tracers
    // are): its callbacks are synchronous and a few µs, and LangChain's background queue costs
    // more than they do (2-11 µs CPU per model call in four in-process A/Bs of the
    // bench/langchain.bench.ts model call, queued vs awaited, at load 8-13; wall time within
    // the noise). The trace is then complete when the call returns.
    // Retrievers and custom events it does not record: LangChain then skips the handler.
    super({
      raiseError: blocking,
      _awaitHandler: true,
      ignoreRetriever: true,
      ignoreCustomEvent: true,
    });
    const report = recordingErrorReporter(options?.onRecordingError, 'a LangChain run');
    this.#runs = new RunRegistry(options?.tracer, options?.tracerFactory, report);
    registerOwnTracers(this, this.#runs.own);
    context = new HandlerContext(
      runtime,
      this.#runs,
      options?.tracer,
      blocking,
      options?.policy === undefined
        ? undefined
        : {
            policy: options.policy,
            mode: runtime.recorder.onPolicyViolation,
            refusalMessage: options.refusalMessage,
          },
      report,
    );
    this.#tools = new ToolRuns(context);
    const tools = this.#tools;
    this.#models = new ModelRuns(context, (tracer) => tools.modelCallStarted(tracer));
    this.lc_prefer_streaming = options?.preferStreaming === true;
  }

  /**
   * The traces this handler recorded into, oldest first (the given `tracer`, or the last 100
   * traces it made).
   * @example
   * ```ts
   * await handler.flush();
   * const [trace] = handler.tracers;
   * console.log(renderTree(trace.stitched()));
   * ```
   */
  get tracers(): readonly Tracer[] {
    return this.#runs.tracers;
  }

  /**
   * Waits for LangChain's background callbacks (`awaitAllCallbacks()`: other handlers', or
   * callbacks a caller dispatched itself), then flushes every trace's sinks. Call it before a
   * process exits, so that file or HTTP sinks have written everything.
   * @returns when every callback ran and every sink is flushed
   * @example
   * ```ts
   * await chain.invoke(input, { callbacks: [handler] });
   * await handler.flush();
   * ```
   */
  async flush(): Promise<void> {
    await awaitAllCallbacks();
    await Promise.all(this.#runs.tracers.map((tracer) => tracer.flush()));
  }

  /**
   * The same handler: its state (runs in flight, traces) must be shared by every copy
   * LangChain makes of a callback manager.
   * @returns this handler
   * @example
   * ```ts
   * handler.copy() === handler; // true
   * ```
   */
  override copy(): BaseCallbackHandler {
    return this;
  }

  // ---------------------------------------------------------------- model runs

  /**
   * Records a chat model call's request (the messages new to the trace) and applies the
   * model-call guards: a refusal throws its typed error (with guards configured, LangChain
   * rethrows it and the model is never called).
   * @internal
   */
  override handleChatModelStart(
    llm: Serialized,
    messages: BaseMessage[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ): Promise<void> | undefined {
    const list = (messages[0] ?? []) as unknown as LooseMessage[];
    return this.#models.start(
      llm,
      list,
      () => messagesToNeutral(list),
      runId,
      parentRunId,
      extraParams,
      tags,
      metadata,
      runName,
    );
  }

  /**
   * Records a text-completion model call (its prompt as a user message).
   * @internal
   */
  override handleLLMStart(
    llm: Serialized,
    prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ): Promise<void> | undefined {
    return this.#models.start(
      llm,
      [],
      () => [{ role: 'user', content: prompts[0] ?? '' }],
      runId,
      parentRunId,
      extraParams,
      tags,
      metadata,
      runName,
    );
  }

  /**
   * Aggregates a streamed token (time to first token, the live budget estimate). Never throws:
   * models do not await token callbacks, so a throw here could not stop the stream; a budget
   * cut-off is raised when the call ends.
   * @internal
   */
  override handleLLMNewToken(
    token: string,
    _idx: unknown,
    runId: string,
    _parentRunId?: string,
    _tags?: string[],
    fields?: { chunk?: unknown },
  ): void {
    this.#models.token(token, runId, fields?.chunk);
  }

  /**
   * Records the response and checks its proposed tool calls against the policy: a blocked
   * call throws `PolicyViolationError` in `throw` mode (the model call rejects, no tool runs).
   * @internal
   */
  override handleLLMEnd(output: LLMResult, runId: string): void {
    this.#models.end(output, runId);
  }

  /**
   * Records a failed model call with its error and status (`cancelled` when the caller's
   * signal aborted it).
   * @internal
   */
  override handleLLMError(error: unknown, runId: string): void {
    this.#models.error(error, runId);
  }

  // ---------------------------------------------------------------- tool runs

  /**
   * Starts a tool run. In `refuse` mode a call the policy refused is stopped here with a
   * `PolicyViolationError` (the tool body never runs). A run no model call proposed (a plain
   * `tool.invoke(args)`, or a call id no recorded TOOL_CALL has) gets its TOOL_CALL now, under
   * the latest assistant message; with a policy it is checked first, and a blocked one is
   * stopped here with a `PolicyViolationError` (recorded as a refused TOOL_RESULT).
   * @internal
   */
  override handleToolStart(
    tool: Serialized,
    input: string,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
    toolCallId?: string,
  ): void {
    this.#tools.start(tool, input, runId, parentRunId, tags, metadata, runName, toolCallId);
  }

  /**
   * Records the tool's output as the TOOL_RESULT of its call (once per call id: a guarded
   * tool's own record wins).
   * @internal
   */
  override handleToolEnd(output: unknown, runId: string): void {
    this.#tools.end(output, runId);
  }

  /**
   * Records a tool that threw: the error text as its output, its status (a guard error's own,
   * else `failure`).
   * @internal
   */
  override handleToolError(error: unknown, runId: string): void {
    this.#tools.error(error, runId);
  }

  // ---------------------------------------------------------------- chains, agents, graph nodes

  /**
   * Opens a chain, agent or LangGraph node run: its name, tags and metadata go into the
   * metadata of the blocks recorded under it. LangChain calls this with `parentRunId` fourth,
   * whatever the declared signature says.
   * @internal
   */
  override handleChainStart(
    chain: Serialized,
    _inputs: ChainValues,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    _runType?: string,
    runName?: string,
  ): void {
    const className = chain?.id?.at(-1);
    this.#runs.open(
      runId,
      parentRunId,
      runName ?? (typeof className === 'string' && className !== '' ? className : undefined),
      tags,
      metadata,
    );
  }

  /** Closes a chain run. @internal */
  override handleChainEnd(_outputs: ChainValues, runId: string): void {
    this.#runs.close(runId);
  }

  /** Closes a chain run that failed. @internal */
  override handleChainError(_error: unknown, runId: string): void {
    this.#runs.close(runId);
  }
}
