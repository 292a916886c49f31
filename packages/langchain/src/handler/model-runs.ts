import type { Serialized } from '@langchain/core/load/serializable';
import type { LLMResult } from '@langchain/core/outputs';
import {
  ConfigurationError,
  type ModelCallOutcome,
  type ModelCallStartInput,
  type NeutralMessage,
  type Tracer,
} from '@tracewarden/core';
import { messageToResponse, tokenDelta } from '../messages/message-to-response.js';
import type { LooseMessage } from '../messages/messages-to-neutral.js';
import { modelCallInfo, rawRequestOf } from '../messages/model-call-info.js';
import { tracerOfMessages } from '../tracing/conversation-links.js';
import { finishModelCall } from '../tracing/finish-model-call.js';
import { runMetadata } from '../tracing/run-metadata.js';
import type { HandlerContext } from './handler-context.js';
import { inGraphNode } from './refusal-wording.js';

/**
 * The error for a model run asked for several answers while a policy is set: the policy reviews
 * one answer per call (as `wrapOpenAI` refuses `n > 1` with a policy), and the tool calls of the
 * others would reach the application unchecked.
 */
function severalAnswersError(given: number, asked: boolean): Error {
  const expected = 'one answer per call (n: 1, or no n) when the handler has a policy';
  return new ConfigurationError({
    message: `TracewardenCallbackHandler: ${asked ? `the chat model run asked for ${given} answers (n: ${given})` : `the chat model answered ${given} times in one call`}; the policy reviews one answer per call, so the tool calls of the others would reach your application unchecked. Set n to 1 on the chat model (or leave it unset), or watch that model with a handler without a policy`,
    entryPoint: 'TracewardenCallbackHandler',
    issues: [{ path: 'n', expected, received: String(given) }],
  });
}

/** The keep-it answer of `keepRefusedCall` (one function, not one per call). */
const keepRefusedCall = () => true;

/**
 * A handler's chat model and LLM runs: the request at the start (with the model-call guards),
 * streamed tokens, the response and its policy review at the end, or the error.
 * @internal
 */
export class ModelRuns {
  readonly #context: HandlerContext;
  readonly #started: (tracer: Tracer) => void;

  /** @param started - told each model call's trace when the call starts */
  constructor(context: HandlerContext, started: (tracer: Tracer) => void) {
    this.#context = context;
    this.#started = started;
  }

  /**
   * Opens a model run and records its request: the messages new to the trace (`neutral`,
   * converted only once the trace is known). A guard's refusal is rethrown when blocking.
   */
  start(
    llm: Serialized,
    messages: readonly LooseMessage[],
    neutral: () => NeutralMessage[],
    runId: string,
    parentRunId: string | undefined,
    extraParams: Record<string, unknown> | undefined,
    tags: string[] | undefined,
    metadata: Record<string, unknown> | undefined,
    runName: string | undefined,
  ): Promise<void> | undefined {
    const context = this.#context;
    const info = modelCallInfo(llm, extraParams, metadata);
    const run = context.runs.open(runId, parentRunId, runName ?? info.className, tags, metadata);
    try {
      if (info.answers > 1 && context.runtime.recorder.hasPolicy)
        throw severalAnswersError(info.answers, true);
      const tracer = context.runs.tracerOf(run, () => tracerOfMessages(messages, context.runs.own));
      this.#started(tracer);
      // what the model read for the calls refused last turn (`refuse` mode)
      if (context.refuse) context.refused.reconcile(tracer, messages, context.report);
      const signal = (extraParams?.options as { signal?: unknown } | undefined)?.signal;
      const input: ModelCallStartInput = {
        provider: info.provider,
        api: info.className,
        model: info.model,
        messages: neutral(),
        tools: info.tools,
        stream: false,
        raw: context.runtime.recordRaw ? rawRequestOf(extraParams) : undefined,
        signal: signal instanceof AbortSignal ? signal : undefined,
        tracer,
        // the handler cannot edit the response: a refused call stays, and its tool run is refused
        keepRefusedCall: context.refuse ? keepRefusedCall : undefined,
      };
      run.input = input;
      const handle = context.runtime.recorder.start(input);
      run.handle = handle;
      // a guard with a shared store (Redis) decides asynchronously: LangChain awaits the
      // handler (raiseError), so the model waits for it, and a refusal is rethrown
      if (handle.admission !== undefined)
        return handle.admission.catch((error: unknown) => {
          context.runs.close(runId);
          // the call's own deadline or its caller's abort while the store decided (the call is
          // recorded as ended): the model must not run, as for a refusal
          if (context.blocking && handle.signal.aborted && error === handle.signal.reason)
            throw error;
          context.fail(error);
        });
    } catch (error) {
      context.runs.close(runId);
      context.fail(error);
    }
    return undefined;
  }

  /** Aggregates a streamed token (time to first token, the live budget estimate); never throws. */
  token(token: string, runId: string, chunk: unknown): void {
    const run = this.#context.runs.get(runId);
    const handle = run?.handle;
    if (handle === undefined || run?.input === undefined) return;
    try {
      // the request was recorded as not streamed; the response is written when the call ends
      run.input.stream = true;
      handle.chunk(tokenDelta(token, chunk));
    } catch (error) {
      this.#context.report(error);
    }
  }

  /**
   * Records the response and its proposed tool calls' review: a blocked call throws
   * `PolicyViolationError` in `throw` mode (rethrown when blocking).
   */
  end(output: LLMResult, runId: string): void {
    const context = this.#context;
    const run = context.runs.close(runId);
    const handle = run?.handle;
    if (run === undefined || handle === undefined) return;
    try {
      // a model that returned several answers unasked (no `n` in its invocation parameters)
      const answers = output.generations[0]?.length ?? 0;
      if (answers > 1 && context.runtime.recorder.hasPolicy) {
        const error = severalAnswersError(answers, false);
        handle.end(error);
        throw error;
      }
      const generation = output.generations[0]?.[0] as
        | { text?: string; message?: LooseMessage; generationInfo?: Record<string, unknown> }
        | undefined;
      const message: LooseMessage = generation?.message ?? {
        type: 'ai',
        content: generation?.text ?? '',
      };
      const response = messageToResponse(message, generation?.generationInfo, output.llmOutput);
      response.metadata = { langchain: runMetadata(run) };
      // with a fixed tracer every run records there: the answer need not point to its trace
      // (a WeakMap entry per answer, and the GC's work on it), only its call ids do (guarded
      // tools find the trace of their call by them)
      // Refusals are recorded now, and read when the refused call's tool run is stopped: with
      // the handler attached to the whole graph (it sees this run's parent), an agent's tool
      // node stops it and answers the model in its own words, so the refusal is worded so.
      context.toolNodeRefusals =
        context.refuse && run.parent !== undefined && inGraphNode(run.metadata);
      let outcome: ModelCallOutcome;
      try {
        outcome = finishModelCall(
          handle,
          message,
          response,
          context.runtime.recordRaw,
          context.givenTracer === undefined ? generation?.message : undefined,
          'handler',
        );
      } finally {
        context.toolNodeRefusals = false;
      }
      if (context.unlinkedPolicy !== undefined) context.reviewed.remember(outcome);
      if (context.refuse) context.refused.note(handle.tracer, outcome);
    } catch (error) {
      context.fail(error);
    }
  }

  /** Records a failed model call (`cancelled` when the caller's signal aborted it). */
  error(error: unknown, runId: string): void {
    const run = this.#context.runs.close(runId);
    if (run?.handle === undefined) return;
    try {
      run.handle.end(error);
    } catch (recordingError) {
      this.#context.report(recordingError);
    }
  }
}
