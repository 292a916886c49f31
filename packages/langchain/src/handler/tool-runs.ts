import type { Serialized } from '@langchain/core/load/serializable';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import {
  type PolicyViolationError,
  recordedRefusal,
  recordToolResult,
  type Tracer,
} from '@tracewarden/core';
import { toolCallIdOf, toolNodeErrorText } from '../messages/tool-output.js';
import { admitUnlinkedToolCall } from '../tracing/admit-unlinked-tool-call.js';
import type { UnlinkedCallPolicy } from '../tracing/check-unlinked-tool-call.js';
import {
  answeredAbsentCall,
  noteCallAnswered,
  tracerOfCall,
  waitingCallOf,
} from '../tracing/conversation-links.js';
import { toolArguments } from '../tracing/hand-over-verdicts.js';
import { runMetadata } from '../tracing/run-metadata.js';
import { asAttempt, ToolAttempts } from '../tracing/tool-attempts.js';
import {
  failedToolResultOf,
  type ToolResultInput,
  type ToolRun,
  toolResultOf,
} from '../tracing/tool-result-of.js';
import type { HandlerContext } from './handler-context.js';
import { inGraphNode, refusalError } from './refusal-wording.js';
import type { Run } from './run-registry.js';

/**
 * Whether a tool run ended because its caller aborted it. The run's signal decides when it is
 * known; else the error's shape: an `AbortError`, or the `Error('Aborted')` LangChain makes
 * from a signal aborted without an error or text as its reason (made in its
 * `getAbortSignalError`), never a tool's own `new Error('Aborted')`, which the model reads.
 */
function isAbortError(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal !== undefined) return signal.aborted;
  if (typeof error !== 'object' || error === null) return false;
  const { name, message, stack } = error as { name?: unknown; message?: unknown; stack?: unknown };
  if (name === 'AbortError') return true;
  return (
    name === 'Error' &&
    message === 'Aborted' &&
    typeof stack === 'string' &&
    stack.includes('getAbortSignalError')
  );
}

/** The abort signal of the runnable config LangChain's context holds, if any. */
function contextSignal(): AbortSignal | undefined {
  try {
    const config: { signal?: unknown } | undefined =
      AsyncLocalStorageProviderSingleton.getRunnableConfig();
    return config?.signal instanceof AbortSignal ? config.signal : undefined;
  } catch {
    return undefined;
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * A handler's tool runs: the TOOL_RESULT under the model's TOOL_CALL, a TOOL_CALL of their own
 * for runs no model call proposed (checked against the policy first, when there is one), and
 * the refusal of a call the policy refused (`refuse` mode).
 * @internal
 */
export class ToolRuns {
  readonly #context: HandlerContext;
  /** Calls whose run failed: a retry middleware may run them again (their next attempt). */
  readonly #attempts = new ToolAttempts();

  constructor(context: HandlerContext) {
    this.#context = context;
  }

  /**
   * A model call started in `tracer`: the retries of that trace's last answer are over (another
   * conversation's, in its own trace, may still run).
   */
  modelCallStarted(tracer: Tracer): void {
    this.#attempts.forget(tracer);
  }

  /**
   * Opens a tool run. A call the policy refused is stopped with a `PolicyViolationError`; a run
   * no model call proposed gets its TOOL_CALL now (checked first with a policy, and stopped
   * when blocked).
   */
  start(
    tool: Serialized,
    input: string,
    runId: string,
    parentRunId: string | undefined,
    tags: string[] | undefined,
    metadata: Record<string, unknown> | undefined,
    runName: string | undefined,
    toolCallId: string | undefined,
  ): void {
    const context = this.#context;
    const name =
      runName ??
      stringOf((tool as { name?: unknown } | undefined)?.name) ??
      stringOf(tool?.id?.at(-1));
    // `""` (Gemini-backed agents): the run answers the trace's next unanswered call by decision
    // 002's order rule (decision 030), found like a run without an id
    const knownId = toolCallId === '' ? undefined : toolCallId;
    const policy = context.unlinkedPolicy;
    let reviewed = false;
    if (policy !== undefined) {
      const graphNode = inGraphNode(metadata);
      // a re-check of changed arguments records its refusal now: as this run's node answers it
      context.toolNodeRefusals = context.refuse && graphNode;
      let claimed: ReturnType<typeof context.reviewed.claim>;
      try {
        claimed = context.reviewed.claim(knownId, name, input);
      } finally {
        context.toolNodeRefusals = false;
      }
      // the refusal is already recorded as the call's TOOL_RESULT, as the model will read it
      if (claimed.refusal !== undefined) {
        context.refused.stopped(claimed.callId, name);
        throw refusalError(claimed.refusal, graphNode);
      }
      reviewed = claimed.reviewed;
    }
    const run = context.runs.open(runId, parentRunId, name, tags, metadata);
    run.startedAt = performance.now();
    run.toolInput = input;
    run.signal = contextSignal();
    if (toolCallId === '') run.absentCallId = true;
    if (policy !== undefined && !reviewed) {
      this.#checkUnlinked(run, policy, knownId, input);
      return;
    }
    // Without a call id (a plain tool.invoke(args), or @langchain/core versions that do not pass
    // it) the call is known at the end, from the ToolMessage the tool returns.
    if (knownId === undefined) return;
    try {
      this.#resolveToolCall(run, knownId);
    } catch (error) {
      context.report(error);
    }
  }

  /** Records the tool's output as the TOOL_RESULT of its call (a guarded tool's own record wins). */
  end(output: unknown, runId: string): void {
    this.#end(runId, toolCallIdOf(output), (run) => toolResultOf(output, run));
  }

  /**
   * Records a tool that threw: the text the model reads for it, its status (a guard error's own,
   * else `failure`). A run inside a LangGraph node (an agent's tool node) answers the model with
   * the node's error text; any other run's error goes to the caller, recorded as `Error: ...`.
   */
  error(error: unknown, runId: string): void {
    const run = this.#context.runs.get(runId);
    const node = run?.metadata?.langgraph_node;
    // an aborted run answers no one: the agent rejects, and the model never reads the node's text
    const read =
      typeof node === 'string' && !isAbortError(error, run?.signal)
        ? toolNodeErrorText(error)
        : undefined;
    this.#end(runId, undefined, (run) => failedToolResultOf(error, run, read), true);
  }

  /**
   * The call a run that LangChain gave no call id answers, when a model call proposed it:
   * 1.0.0 starts a tool run without its call id, and a run that threw (or whose call id is
   * `""`, so LangChain makes no ToolMessage) returns none either. The run answers the waiting
   * call for this tool and these arguments, in its trace when that is known already.
   * @param unique - only the one waiting call that fits: a run whose calls have ids must not take
   *   the call of a twin run (same tool and arguments) whose result will name that id
   */
  #waitingCallId(run: Run, unique: boolean): string | undefined {
    const context = this.#context;
    const known =
      context.givenTracer ??
      (run.parent === undefined ? undefined : context.runs.tracerOf(run, () => undefined));
    return waitingCallOf(known, run.name, run.toolInput, context.runs.own, unique)?.callId;
  }

  /**
   * With a policy: a tool run's TOOL_CALL, checked against the policy on the trace so far unless
   * a model call of the trace proposed it (core's recorder reviewed it then). A blocked call is
   * recorded with its refusal and stopped by throwing (the handler raises errors with a policy).
   * A policy that throws fails the run closed.
   */
  #checkUnlinked(
    run: Run,
    policy: UnlinkedCallPolicy,
    toolCallId: string | undefined,
    input: string,
  ): void {
    const context = this.#context;
    let tracer: Tracer | undefined;
    const callId = toolCallId ?? run.runId;
    let again: string | undefined;
    try {
      tracer = context.runs.tracerOf(run, () =>
        tracerOfCall(toolCallId, run.name, input, true, context.runs.own),
      );
      run.callId = callId;
      run.toolTracer = tracer;
      if (tracer.findToolCall(callId) !== undefined) {
        // a model call proposed it: reviewed then, and its verdict taken by its first run; a
        // blocked call run again (a retry middleware, the same call invoked twice) is refused
        // again, as the trace recorded it
        again = recordedRefusal(tracer, callId, run.name ?? '', toolArguments(input));
        if (again === undefined) return;
      }
    } catch (error) {
      context.report(error);
    }
    if (again !== undefined) {
      context.runs.close(run.runId);
      context.refused.stopped(callId, run.name);
      throw refusalError(again, inGraphNode(run.metadata));
    }
    let error: PolicyViolationError | undefined;
    try {
      error = admitUnlinkedToolCall(
        tracer,
        policy,
        {
          callId,
          name: run.name ?? 'tool',
          input,
          metadata: { langchain: runMetadata(run) },
        },
        context.report,
      ).error;
    } catch (policyError) {
      context.runs.close(run.runId);
      throw policyError;
    }
    if (error === undefined) return;
    // LangChain sends no end callback for a run its handler stopped
    context.runs.close(run.runId);
    throw error;
  }

  /** Where a tool run's result goes: the trace holding its TOOL_CALL, recorded now if missing. */
  #resolveToolCall(run: Run, toolCallId: string | undefined): void {
    const context = this.#context;
    // by the call id, among the traces holding it the one whose call (tool, arguments) waits
    // for this result: concurrent conversations may use the same ids
    const tracer = context.runs.tracerOf(run, () =>
      tracerOfCall(toolCallId, run.name, run.toolInput, true, context.runs.own),
    );
    const callId = toolCallId ?? run.runId;
    run.callId = callId;
    run.toolTracer = tracer;
    // `""` answers the trace's next unanswered call (core's order rule)
    if (callId === '' || tracer.findToolCall(callId) !== undefined) return;
    // a run no model call of this trace proposed: its TOOL_CALL goes under the latest answer
    admitUnlinkedToolCall(
      tracer,
      undefined,
      {
        callId,
        name: run.name ?? 'tool',
        input: run.toolInput ?? '{}',
        metadata: { langchain: runMetadata(run) },
      },
      context.report,
    );
  }

  #end(
    runId: string,
    callIdInOutput: string | undefined,
    result: (run: ToolRun) => ToolResultInput,
    failed = false,
  ): void {
    const context = this.#context;
    const run = context.runs.close(runId);
    if (run === undefined) return;
    try {
      if (run.callId === undefined) {
        if (callIdInOutput === '' || run.absentCallId === true) {
          // `""` (no id): the call of this tool with these arguments, else the order rule;
          // nothing when a guarded tool already recorded that call's result
          const waiting = this.#waitingCallId(run, false);
          const tracer = context.givenTracer ?? context.runs.tracerOf(run, () => undefined);
          if (
            waiting === undefined &&
            tracer !== undefined &&
            answeredAbsentCall(tracer, run.name, run.toolInput)
          )
            return;
          this.#resolveToolCall(run, waiting ?? '');
        } else this.#resolveToolCall(run, callIdInOutput ?? this.#waitingCallId(run, true));
      }
      if (run.toolTracer === undefined || run.callId === undefined) return;
      // a call whose earlier run failed, run again: a retry's result, beside the failure
      const attempt = this.#attempts.of(run.toolTracer, run.callId);
      recordToolResult(
        run.toolTracer,
        asAttempt(
          result({
            callId: run.callId,
            toolName: run.name,
            startedAt: run.startedAt ?? 0,
            langchain: runMetadata(run),
          }),
          attempt,
        ),
      );
      this.#attempts.ended(run.toolTracer, run.callId, attempt, failed);
      noteCallAnswered(run.toolTracer, run.callId);
    } catch (error) {
      context.report(error);
    }
  }
}
