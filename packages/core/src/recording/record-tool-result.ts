import { type CallResultTracer, recordCallResult } from '../tracing/record-call-result.js';
import { ownsDirectPath } from '../tracing/record-guarded-call.js';
import type { Tracer } from '../tracing/types.js';
import { answeredCallId, hasResult, stateOf } from './tracer-state.js';

/** Input of {@link recordToolResult}. */
export interface RecordToolResultInput {
  /**
   * The call id of the TOOL_CALL this result answers (the model's tool call id). `""` means
   * absent (decision 030): the result answers the first unanswered call of the latest response
   * recorded in the trace, else the most recent call (decision 002's order rule).
   */
  callId: string;
  /** The tool's output as it returned it (or the error text the model reads). */
  output: unknown;
  /** The result's metadata: `status` (a seed-004 ToolCallStatus), timing, guard decisions. */
  metadata?: Record<string, unknown> | undefined;
  /** Free-form client space (e.g. a LangChain `ToolMessage` artifact). */
  extra?: Record<string, unknown> | undefined;
  /**
   * The arguments the tool ran with, when known (an object or its JSON text): with
   * `metadata.tool_name`, tells apart calls that wait under one id (two conversations sharing a
   * trace whose model numbers calls per answer). Not recorded.
   */
  arguments?: unknown;
  /**
   * A later attempt of a call whose earlier attempt's result is recorded (a framework's retry,
   * such as LangChain's `toolRetryMiddleware`, ran the call again under its id): recorded as
   * another TOOL_RESULT of the call, after the earlier one, instead of being left out as already
   * recorded. Only the caller knows a run is a new attempt: a second record of the same run (a
   * guarded tool's own, then the adapter's) must stay out.
   */
  retry?: boolean | undefined;
}

/**
 * Records a tool's result as a TOOL_RESULT block under the TOOL_CALL with its call id, once per
 * call id (a result already recorded, by any adapter or guard, is not recorded again), unless
 * it is a later attempt's (`retry`). Every
 * adapter records tool results through this one function.
 * @param tracer - the tracer holding the TOOL_CALL
 * @param input - call id, output, metadata
 * @returns false when the trace has no TOOL_CALL with this id or its result is already recorded
 * @throws TraceError when the block is invalid (e.g. over the byte limit)
 * @example
 * ```ts
 * recordToolResult(tracer, { callId: 'call_1', output: '[]', metadata: { status: 'success' } });
 * ```
 */
export function recordToolResult(tracer: Tracer, input: RecordToolResultInput): boolean {
  const state = stateOf(tracer);
  // the tool's name and arguments tell calls sharing an id apart
  const callId = answeredCallId(
    tracer,
    state,
    input.callId,
    input.metadata?.tool_name,
    input.arguments,
  );
  if (callId === undefined || (input.retry !== true && hasResult(state, callId))) return false;
  const direct = (tracer as Partial<CallResultTracer>)[recordCallResult];
  if (ownsDirectPath(direct, tracer.logObserve)) {
    // createTracer's own: the result is built under the call it holds, without the input object
    // and the checks of fields that hold by construction (decision 080, third pass)
    if (
      !(direct as CallResultTracer[typeof recordCallResult]).call(
        tracer,
        callId,
        input.output,
        input.metadata,
        input.extra,
      )
    )
      return false;
    state.results.add(callId);
    return true;
  }
  const call = tracer.findToolCall(callId);
  if (call === undefined) return false;
  tracer.logObserve({
    parent_block_id: call.id,
    payload: { call_id: callId, output: input.output },
    ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
    ...(input.extra === undefined ? {} : { extra: input.extra }),
  });
  state.results.add(callId);
  return true;
}
