import type { PolicyViolationError, ToolCallReview, Tracer } from '@tracewarden/core';
import {
  blockingError,
  recordBlockedResult,
  reviewMetadata,
  reviewUnlinkedToolCall,
  type UnlinkedCallPolicy,
} from './check-unlinked-tool-call.js';
import { linkCall } from './conversation-links.js';
import { argumentsOf, recordUnlinkedToolCall } from './record-unlinked-tool-call.js';

/** A tool call no model call of the trace proposed, as the handler or the middleware sees it. */
export interface UnlinkedToolCall {
  readonly callId: string;
  readonly name: string;
  /** Its arguments as the tool run got them (JSON, or a string tool's input). */
  readonly input: string;
  /** Its arguments for the policy, when already parsed; else read from `input` when reviewed. */
  readonly arguments?: Record<string, unknown> | undefined;
  /** The TOOL_CALL's metadata (`langchain`), to which the verdict is added. */
  readonly metadata: Record<string, unknown>;
}

/**
 * Admits a tool call no model call of the trace proposed (a plain `tool.invoke(args)`, a call id
 * no TOOL_CALL has, another middleware's call): with a policy it is reviewed on the trace so far
 * (a policy that throws, throws here: the caller fails the run closed), then recorded as a
 * TOOL_CALL under the latest answer with the verdict, and when blocked with its refused
 * TOOL_RESULT. A recording failure is reported, never thrown.
 * @param tracer - the run's trace (`undefined` when it could not be resolved: reviewed on nothing)
 * @param policy - the policy and its mode, or `undefined` to record without a review
 * @param call - the call
 * @param onRecordingError - where a recording failure goes
 * @returns the review (with a policy) and the error that blocks the call, if it is blocked
 * @internal
 */
export function admitUnlinkedToolCall(
  tracer: Tracer | undefined,
  policy: UnlinkedCallPolicy | undefined,
  call: UnlinkedToolCall,
  onRecordingError: (error: unknown) => void,
): { review: ToolCallReview | undefined; error: PolicyViolationError | undefined } {
  const review =
    policy === undefined
      ? undefined
      : reviewUnlinkedToolCall(tracer, policy, {
          callId: call.callId,
          name: call.name,
          arguments: call.arguments ?? argumentsOf(call.input),
        });
  const error = review === undefined || review.allowed ? undefined : blockingError(review);
  if (tracer !== undefined) {
    try {
      recordUnlinkedToolCall(tracer, {
        callId: call.callId,
        name: call.name,
        input: call.input,
        metadata:
          review === undefined ? call.metadata : { ...call.metadata, ...reviewMetadata(review) },
      });
      linkCall(tracer, call.callId);
      if (review !== undefined && error !== undefined)
        recordBlockedResult(tracer, review, error, call.name);
    } catch (recordingError) {
      onRecordingError(recordingError);
    }
  }
  return { review, error };
}
