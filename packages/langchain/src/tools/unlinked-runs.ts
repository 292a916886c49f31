import {
  type PolicyViolationError,
  recordResultUnderCall,
  type TraceEntry,
  type Tracer,
} from '@tracewarden/core';
import {
  blockingError,
  recordBlockedResult,
  reviewMetadata,
  reviewUnlinkedToolCall,
  type UnlinkedCallPolicy,
} from '../tracing/check-unlinked-tool-call.js';
import { linkCall, noteCallAnswered } from '../tracing/conversation-links.js';
import { recordUnlinkedToolCall } from '../tracing/record-unlinked-tool-call.js';
import { recordingErrorReporter } from '../tracing/recording-error-reporter.js';

const reportRefusalRecording = recordingErrorReporter(undefined, 'a refused tool call');
/** Where a guarded tool's failure to record its result goes (said, never thrown). @internal */
export const reportResultRecording = recordingErrorReporter(undefined, 'a guarded tool result');

/**
 * Records a guarded run of a call without an id (`""`): its result answers the trace's next
 * unanswered call by core's order rule (`recordResultUnderCall`, decision 030).
 * @internal
 */
export function recordWithoutCallId(tracer: Tracer, callId: string, entry: TraceEntry): void {
  try {
    // (the guard ran under an id of its own: the model's call has none; `callId` is the id its
    // TOOL_CALL was recorded under when known, else `""` and the order rule)
    recordResultUnderCall(tracer, {
      call: { ...entry.call, call_id: callId },
      result: { ...entry.result, call_id: callId },
    });
    if (callId !== '') noteCallAnswered(tracer, callId);
  } catch (error) {
    reportResultRecording(error);
  }
}

/**
 * A guarded tool's run no model call proposed (no TOOL_CALL for its id, or one the handler
 * recorded for the run itself, `unlinked`): checked against the policy on the trace so far,
 * before the body runs. A blocked call is recorded (its TOOL_CALL with the violations, when the
 * handler did not record it, and the refused TOOL_RESULT) and its error returned.
 * @internal
 */
export function checkUnlinkedRun(
  settings: UnlinkedCallPolicy,
  tracer: Tracer | undefined,
  runCallId: string | undefined,
  name: string,
  input: unknown,
): { error?: PolicyViolationError; callId: string | undefined } {
  const existing = runCallId === undefined ? undefined : tracer?.findToolCall(runCallId);
  // a model's call: reviewed when the model call ended
  if (existing !== undefined && existing.metadata.unlinked !== true) return { callId: runCallId };
  const callId = runCallId ?? `call_${crypto.randomUUID()}`;
  const args =
    typeof input === 'object' && input !== null && !Array.isArray(input)
      ? (input as Record<string, unknown>)
      : { input };
  const review = reviewUnlinkedToolCall(tracer, settings, { callId, name, arguments: args });
  // nothing to say about an allowed call: the guard records it as it always does
  if (review.allowed && review.violations.length === 0) return { callId: runCallId };
  const error = review.allowed ? undefined : blockingError(review);
  if (tracer !== undefined) {
    try {
      // the guard records its TOOL_RESULT under this TOOL_CALL (by the call id it is given)
      if (existing === undefined) {
        recordUnlinkedToolCall(tracer, {
          callId,
          name,
          input: JSON.stringify(args),
          metadata: { ...reviewMetadata(review) },
        });
        linkCall(tracer, callId);
      }
      if (error !== undefined) recordBlockedResult(tracer, review, error, name);
    } catch (recordingError) {
      reportRefusalRecording(recordingError);
    }
  }
  return error === undefined ? { callId } : { error, callId };
}
