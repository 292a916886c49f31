import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import type { Serialized } from '@langchain/core/load/serializable';
import type { BaseMessage } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import type { ChainValues } from '@langchain/core/utils/types';
import {
  type AdapterOptions,
  type AdapterRuntime,
  createAdapterRuntime,
  createTracer,
  currentTracer,
  type ModelCallHandle,
  type ModelCallStartInput,
  type NeutralMessage,
  optionChecks,
  PolicyViolationError,
  recordToolResult,
  type ToolCallReview,
  type Tracer,
  TracewardenError,
} from '@tracewarden/core';
import { messageToResponse, tokenDelta } from '../messages/message-to-response.js';
import { type LooseMessage, messagesToNeutral } from '../messages/messages-to-neutral.js';
import {
  type ModelCallInfo,
  modelCallInfo,
  rawRequestOf,
  rawResponseOf,
} from '../messages/model-call-info.js';
import {
  errorOutputOf,
  errorStatusOf,
  errorSummaryOf,
  toolCallIdOf,
  toolOutcomeOf,
} from '../messages/tool-output.js';
import {
  blockingError,
  recordBlockedResult,
  reviewMetadata,
  reviewUnlinkedToolCall,
  type UnlinkedCallPolicy,
} from '../tracing/check-unlinked-tool-call.js';
import {
  linkCall,
  linkResponse,
  noteAnswer,
  tracerOfCall,
  tracerOfMessages,
} from '../tracing/conversation-links.js';
import { handOverVerdicts } from '../tracing/hand-over-verdicts.js';
import { argumentsOf, recordUnlinkedToolCall } from '../tracing/record-unlinked-tool-call.js';
import { ReviewedCalls } from '../tracing/reviewed-calls.js';
import { type RunInfo, runMetadata } from '../tracing/run-metadata.js';

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

/** Most traces the handler keeps in {@link TracewardenCallbackHandler.tracers}. */
const keptTraces = 100;

/** One LangChain run the handler has seen, by `runId`. */
interface Run extends RunInfo {
  readonly parent: Run | undefined;
  /** Root runs: the trace of the whole run, once something was recorded. */
  tracer: Tracer | undefined;
  /** Root runs: the enclosing `withTrace` when the run started. */
  readonly ambient: Tracer | undefined;
  /** Model runs. */
  handle?: ModelCallHandle | undefined;
  input?: ModelCallStartInput | undefined;
  /** Tool runs: the call id its TOOL_RESULT answers, and where. */
  callId?: string | undefined;
  toolTracer?: Tracer | undefined;
  toolInput?: string | undefined;
  startedAt?: number | undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Most runs open at once; past it the oldest (an abandoned stream, say) is dropped. */
const maxOpenRuns = 10_000;

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
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

  readonly #runtime: AdapterRuntime;
  readonly #options: TracewardenCallbackHandlerOptions;
  readonly #runs = new Map<string, Run>();
  readonly #tracers: Tracer[] = [];
  readonly #refuse: boolean;
  /** With a policy: how tool runs no model call proposed are judged. */
  readonly #unlinkedPolicy: UnlinkedCallPolicy | undefined;
  /** With a policy: the calls this handler's model calls proposed, for runs without a call id. */
  readonly #reviewed = new ReviewedCalls();
  readonly #onRecordingError: (error: unknown) => void;

  /**
   * @param options - tracer, guards, timeout, policy and its mode, pricing, tracer factory
   * @throws ConfigurationError (`INVALID_OPTIONS`) for an unknown option or a wrong value
   */
  constructor(options?: TracewardenCallbackHandlerOptions) {
    const runtime = createAdapterRuntime(options, {
      entryPoint: 'TracewardenCallbackHandler',
      extraOptions: { tracerFactory: optionChecks.function, preferStreaming: optionChecks.boolean },
    });
    const blocking =
      options?.guards !== undefined ||
      options?.policy !== undefined ||
      options?.timeoutSeconds !== undefined;
    // raiseError makes LangChain await the handler and rethrow what it throws: the only way a
    // callback handler can stop a tool or a model call (decision 011). An observing handler is
    // awaited too (`_awaitHandler`, as LangChain's own event-stream and run-collector tracers
    // are): its callbacks are synchronous and a few µs, and LangChain's background queue costs
    // more than they do (4-11 µs CPU and 10-50 µs wall per model call in in-process A/Bs of the
    // bench/langchain.bench.ts model call, handler queued vs awaited).
    // Retrievers and custom events it does not record: LangChain then skips the handler.
    super({
      raiseError: blocking,
      _awaitHandler: true,
      ignoreRetriever: true,
      ignoreCustomEvent: true,
    });
    this.#runtime = runtime;
    this.#options = options ?? {};
    this.#refuse = runtime.recorder.onPolicyViolation === 'refuse' && runtime.recorder.hasPolicy;
    this.#unlinkedPolicy =
      options?.policy === undefined
        ? undefined
        : {
            policy: options.policy,
            mode: runtime.recorder.onPolicyViolation,
            refusalMessage: options.refusalMessage,
          };
    this.#onRecordingError =
      options?.onRecordingError ??
      ((error) =>
        process.emitWarning(
          `tracewarden: a LangChain run could not be recorded: ${error instanceof Error ? error.message : String(error)}`,
          { code: 'TRACEWARDEN_RECORDING' },
        ));
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
    return this.#tracers;
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
    await Promise.all(this.#tracers.map((tracer) => tracer.flush()));
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

  // ---------------------------------------------------------------- runs and traces

  #open(
    runId: string,
    parentRunId: string | undefined,
    name: string | undefined,
    tags: string[] | undefined,
    metadata: Record<string, unknown> | undefined,
  ): Run {
    const parent = parentRunId === undefined ? undefined : this.#runs.get(parentRunId);
    const run: Run = {
      runId,
      parent,
      name,
      tags,
      metadata,
      tracer: undefined,
      // the enclosing withTrace matters only when no tracer was given (an AsyncLocalStorage read)
      ambient:
        parent === undefined && this.#options.tracer === undefined ? currentTracer() : undefined,
    };
    this.#runs.set(runId, run);
    if (this.#runs.size > maxOpenRuns) this.#evictOldest();
    return run;
  }

  /**
   * Ends the oldest open run. LangChain sends no end callback for a stream the caller abandoned
   * (`break` out of `.stream()`), so such a run would stay open forever: past
   * {@link maxOpenRuns} the oldest is dropped, its model call recorded as cancelled.
   */
  #evictOldest(): void {
    const oldest = this.#runs.keys().next();
    if (oldest.done === true) return;
    const run = this.#close(oldest.value);
    try {
      run?.handle?.cancel();
    } catch (error) {
      this.#onRecordingError(error);
    }
  }

  #close(runId: string): Run | undefined {
    const run = this.#runs.get(runId);
    if (run !== undefined) this.#runs.delete(runId);
    return run;
  }

  /** The trace of a run: its root's, resolved on first use. */
  #tracerOf(run: Run, continued: () => Tracer | undefined): Tracer {
    let root = run;
    while (root.parent !== undefined) root = root.parent;
    if (root.tracer !== undefined) return root.tracer;
    const tracer = this.#options.tracer ?? root.ambient ?? continued() ?? this.#newTrace(root);
    root.tracer = tracer;
    if (!this.#tracers.includes(tracer)) {
      this.#tracers.push(tracer);
      if (this.#tracers.length > keptTraces) this.#tracers.shift();
    }
    return tracer;
  }

  #newTrace(root: Run): Tracer {
    const factory = this.#options.tracerFactory;
    if (factory === undefined) return createTracer();
    return factory({
      runId: root.runId,
      name: root.name,
      tags: root.tags ?? [],
      metadata: root.metadata ?? {},
    });
  }

  /** Rethrows our typed errors (a guard's or the policy's decision) when blocking; reports others. */
  #fail(error: unknown): void {
    if (this.raiseError && TracewardenError.isInstance(error)) throw error;
    this.#onRecordingError(error);
  }

  // ---------------------------------------------------------------- model runs

  #startModel(
    llm: Serialized,
    messages: readonly LooseMessage[],
    neutral: () => NeutralMessage[],
    runId: string,
    parentRunId: string | undefined,
    extraParams: Record<string, unknown> | undefined,
    tags: string[] | undefined,
    metadata: Record<string, unknown> | undefined,
    runName: string | undefined,
  ): void {
    const info: ModelCallInfo = modelCallInfo(llm, extraParams, metadata);
    const run = this.#open(runId, parentRunId, runName ?? info.className, tags, metadata);
    try {
      const tracer = this.#tracerOf(run, () => tracerOfMessages(messages));
      const signal = (extraParams?.options as { signal?: unknown } | undefined)?.signal;
      const input: ModelCallStartInput = {
        provider: info.provider,
        api: info.className,
        model: info.model,
        messages: neutral(),
        tools: info.tools,
        stream: false,
        raw: this.#runtime.recordRaw ? rawRequestOf(extraParams) : undefined,
        signal: signal instanceof AbortSignal ? signal : undefined,
        tracer,
        // the handler cannot edit the response: a refused call stays, and its tool run is refused
        keepRefusedCall: this.#refuse ? () => true : undefined,
      };
      run.input = input;
      run.handle = this.#runtime.recorder.start(input);
    } catch (error) {
      this.#close(runId);
      this.#fail(error);
    }
  }

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
  ): void {
    const list = (messages[0] ?? []) as unknown as LooseMessage[];
    this.#startModel(
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
  ): void {
    this.#startModel(
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
    const run = this.#runs.get(runId);
    const handle = run?.handle;
    if (handle === undefined || run?.input === undefined) return;
    try {
      // the request was recorded as not streamed; the response is written when the call ends
      run.input.stream = true;
      handle.chunk(tokenDelta(token, fields?.chunk));
    } catch (error) {
      this.#onRecordingError(error);
    }
  }

  /**
   * Records the response and checks its proposed tool calls against the policy: a blocked
   * call throws `PolicyViolationError` in `throw` mode (the model call rejects, no tool runs).
   * @internal
   */
  override handleLLMEnd(output: LLMResult, runId: string): void {
    const run = this.#close(runId);
    const handle = run?.handle;
    if (run === undefined || handle === undefined) return;
    try {
      const generation = output.generations[0]?.[0] as
        | { text?: string; message?: LooseMessage; generationInfo?: Record<string, unknown> }
        | undefined;
      const message: LooseMessage = generation?.message ?? {
        type: 'ai',
        content: generation?.text ?? '',
      };
      const response = messageToResponse(
        message,
        runId,
        generation?.generationInfo,
        output.llmOutput,
      );
      response.metadata = { langchain: runMetadata(run) };
      if (this.#runtime.recordRaw) response.raw = rawResponseOf(message);
      // with a fixed tracer every run records there: the answer need not point to its trace
      // (a WeakMap entry per answer, and the GC's work on it), only its call ids do (guarded
      // tools find the trace of their call by them)
      linkResponse(
        handle.tracer,
        this.#options.tracer === undefined ? generation?.message : undefined,
        response.toolCalls,
      );
      const outcome = handle.finish(response);
      noteAnswer(handle.tracer, outcome.messageBlockId);
      handOverVerdicts(outcome);
      if (this.#unlinkedPolicy !== undefined) this.#reviewed.remember(outcome);
    } catch (error) {
      this.#fail(error);
    }
  }

  /**
   * Records a failed model call with its error and status (`cancelled` when the caller's
   * signal aborted it).
   * @internal
   */
  override handleLLMError(error: unknown, runId: string): void {
    const run = this.#close(runId);
    if (run?.handle === undefined) return;
    try {
      run.handle.end(error);
    } catch (recordingError) {
      this.#onRecordingError(recordingError);
    }
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
    const name =
      runName ??
      stringOf((tool as { name?: unknown } | undefined)?.name) ??
      stringOf(tool?.id?.at(-1));
    const policy = this.#unlinkedPolicy;
    let reviewed = false;
    if (policy !== undefined) {
      const claimed = this.#reviewed.claim(toolCallId, name, input);
      // the refusal is already recorded as the call's TOOL_RESULT
      if (claimed.refusal !== undefined)
        throw new PolicyViolationError({ violations: [], message: claimed.refusal });
      reviewed = claimed.reviewed;
    }
    const run = this.#open(runId, parentRunId, name, tags, metadata);
    run.startedAt = performance.now();
    run.toolInput = input;
    if (policy !== undefined && !reviewed) {
      this.#checkUnlinked(run, policy, toolCallId, input);
      return;
    }
    // Without a call id (a plain tool.invoke(args), or @langchain/core versions that do not pass
    // it) the call is known at the end, from the ToolMessage the tool returns.
    if (toolCallId === undefined) return;
    try {
      this.#resolveToolCall(run, toolCallId);
    } catch (error) {
      this.#onRecordingError(error);
    }
  }

  /**
   * With a policy: a tool run's TOOL_CALL, checked against the policy on the trace so far unless a
   * model call of the trace proposed it (core's recorder reviewed it then). A blocked call is
   * recorded with its refusal and stopped by throwing (the handler raises errors with a policy).
   * A policy that throws fails the run closed.
   */
  #checkUnlinked(
    run: Run,
    policy: UnlinkedCallPolicy,
    toolCallId: string | undefined,
    input: string,
  ): void {
    let tracer: Tracer | undefined;
    const callId = toolCallId ?? run.runId;
    try {
      tracer = this.#tracerOf(run, () => tracerOfCall(toolCallId));
      run.callId = callId;
      run.toolTracer = tracer;
      if (tracer.findToolCall(callId) !== undefined) return;
    } catch (error) {
      this.#onRecordingError(error);
    }
    const name = run.name ?? 'tool';
    let review: ToolCallReview;
    try {
      review = reviewUnlinkedToolCall(tracer, policy, {
        callId,
        name,
        arguments: argumentsOf(input),
      });
    } catch (error) {
      this.#close(run.runId);
      throw error;
    }
    const error = review.allowed ? undefined : blockingError(review);
    if (tracer !== undefined) {
      try {
        recordUnlinkedToolCall(tracer, {
          callId,
          name,
          input,
          metadata: { langchain: runMetadata(run), ...reviewMetadata(review) },
        });
        linkCall(tracer, callId);
        if (error !== undefined) recordBlockedResult(tracer, review, error, name);
      } catch (recordingError) {
        this.#onRecordingError(recordingError);
      }
    }
    if (error === undefined) return;
    // LangChain sends no end callback for a run its handler stopped
    this.#close(run.runId);
    throw error;
  }

  /** Where a tool run's result goes: the trace holding its TOOL_CALL, recorded now if missing. */
  #resolveToolCall(run: Run, toolCallId: string | undefined): void {
    const tracer = this.#tracerOf(run, () => tracerOfCall(toolCallId));
    const callId = toolCallId ?? run.runId;
    run.callId = callId;
    run.toolTracer = tracer;
    if (tracer.findToolCall(callId) !== undefined) return;
    // a run no model call of this trace proposed: its TOOL_CALL goes under the latest answer
    recordUnlinkedToolCall(tracer, {
      callId,
      name: run.name ?? 'tool',
      input: run.toolInput ?? '{}',
      metadata: { langchain: runMetadata(run) },
    });
    linkCall(tracer, callId);
  }

  #endTool(
    runId: string,
    callIdInOutput: string | undefined,
    result: (run: Run, callId: string) => Parameters<typeof recordToolResult>[1],
  ): void {
    const run = this.#close(runId);
    if (run === undefined) return;
    try {
      if (run.callId === undefined) this.#resolveToolCall(run, callIdInOutput);
      if (run.toolTracer === undefined || run.callId === undefined) return;
      recordToolResult(run.toolTracer, result(run, run.callId));
    } catch (error) {
      this.#onRecordingError(error);
    }
  }

  #toolMetadata(run: Run, status: string): Record<string, unknown> {
    return {
      status,
      tool_name: run.name,
      execution_time_ms: round(performance.now() - (run.startedAt ?? 0)),
      langchain: runMetadata(run),
    };
  }

  /**
   * Records the tool's output as the TOOL_RESULT of its call (once per call id: a guarded
   * tool's own record wins).
   * @internal
   */
  override handleToolEnd(output: unknown, runId: string): void {
    this.#endTool(runId, toolCallIdOf(output), (run, callId) => {
      const outcome = toolOutcomeOf(output, callId);
      return {
        callId,
        output: outcome.output,
        metadata: this.#toolMetadata(run, outcome.status),
        extra: outcome.extra,
      };
    });
  }

  /**
   * Records a tool that threw: the error text as its output, its status (a guard error's own,
   * else `failure`).
   * @internal
   */
  override handleToolError(error: unknown, runId: string): void {
    this.#endTool(runId, undefined, (run, callId) => {
      const metadata = this.#toolMetadata(run, errorStatusOf(error));
      metadata.error = errorSummaryOf(error);
      return { callId, output: errorOutputOf(error), metadata };
    });
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
    this.#open(runId, parentRunId, runName ?? stringOf(chain?.id?.at(-1)), tags, metadata);
  }

  /** Closes a chain run. @internal */
  override handleChainEnd(_outputs: ChainValues, runId: string): void {
    this.#close(runId);
  }

  /** Closes a chain run that failed. @internal */
  override handleChainError(_error: unknown, runId: string): void {
    this.#close(runId);
  }
}
