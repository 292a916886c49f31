import type { ModelCallHandle, ModelCallOutcome, ModelCallResponse } from '@tracewarden/core';
import type { LooseMessage } from '../messages/messages-to-neutral.js';
import { rawResponseOf } from '../messages/model-call-info.js';
import { linkRecordedIds, linkResponse, noteAnswer, refOf } from './conversation-links.js';
import { handOverVerdicts } from './hand-over-verdicts.js';

/** Who records a model call: the callback handler or the agent middleware. @internal */
export type AnswerRecorder = 'handler' | 'middleware';

/**
 * Answers already recorded, with the trace they went into (held weakly: an app keeps its
 * messages, and a WeakMap holds its values as long as their key) and who recorded them.
 */
const recordedAnswers = new WeakMap<
  object,
  { readonly tracer: WeakRef<ModelCallHandle['tracer']>; readonly by: AnswerRecorder }
>();
let doubleRecordingWarned = false;

/** What the warning says records an answer twice, by who recorded it each time. */
function doubleRecordingCause(first: AnswerRecorder, second: AnswerRecorder): string {
  if (first !== second)
    return 'TracewardenCallbackHandler and tracewardenAgentMiddleware both record this agent (each answer and its cost count twice). Use one of them: the middleware for createAgent (it also enforces), the handler elsewhere.';
  if (first === 'handler')
    return "two TracewardenCallbackHandler instances on this tracer both record this model call (say one in the model's constructor and one passed per call; each answer and its cost count twice). Attach one handler instance: the same instance attached in several places records once.";
  return 'two tracewardenAgentMiddleware instances on this tracer both record this agent (each answer and its cost count twice). Give the agent one middleware.';
}

/**
 * Says once per process that one answer is being recorded a second time into the same trace
 * (the README says: one recorder per agent), naming the two recorders, as every answer, and its
 * cost, would count twice.
 */
function noteRecorded(
  message: LooseMessage,
  tracer: ModelCallHandle['tracer'],
  by: AnswerRecorder,
): void {
  if (typeof message !== 'object' || message === null) return;
  const recorded = recordedAnswers.get(message);
  if (recorded === undefined || recorded.tracer.deref() !== tracer) {
    recordedAnswers.set(message, { tracer: refOf(tracer), by });
    return;
  }
  if (doubleRecordingWarned) return;
  doubleRecordingWarned = true;
  process.emitWarning(
    `tracewarden: a model answer was recorded twice into one trace: ${doubleRecordingCause(recorded.by, by)}`,
    { code: 'TRACEWARDEN_DOUBLE_RECORDING' },
  );
}

/**
 * Ends a model call the handler or the agent middleware recorded: the answer's raw fields (with
 * `recordRaw`), the links that let later runs find this trace (the answer object, when given, and
 * its tool call ids), the response's blocks, the latest answer of the trace, and the verdicts on
 * its proposed calls for the tool runs that follow. Throws what `finish` throws (a policy block
 * in `throw` mode).
 * @param handle - the model call
 * @param message - the answer, as LangChain returned it
 * @param response - the recorder's response, made from `message`
 * @param recordRaw - whether to keep the answer's raw fields
 * @param linkedMessage - the answer object to link to the trace, or `undefined` (a fixed tracer)
 * @param by - who records it (for the warning when an answer is recorded twice)
 * @internal
 */
export function finishModelCall(
  handle: ModelCallHandle,
  message: LooseMessage,
  response: ModelCallResponse,
  recordRaw: boolean,
  linkedMessage: unknown,
  by: AnswerRecorder,
): ModelCallOutcome {
  if (recordRaw) response.raw = rawResponseOf(message);
  noteRecorded(message, handle.tracer, by);
  linkResponse(handle.tracer, linkedMessage, response.toolCalls ?? []);
  const outcome = handle.finish(response);
  noteAnswer(handle.tracer, outcome.messageBlockId);
  linkRecordedIds(handle.tracer, outcome.messageBlockId, response.toolCalls ?? []);
  handOverVerdicts(outcome, handle.tracer);
  return outcome;
}
