import type { ModelCallHandle, ModelCallOutcome, ModelCallResponse } from '@tracewarden/core';
import type { LooseMessage } from '../messages/messages-to-neutral.js';
import { rawResponseOf } from '../messages/model-call-info.js';
import { linkRecordedIds, linkResponse, noteAnswer } from './conversation-links.js';
import { handOverVerdicts } from './hand-over-verdicts.js';

/** Answers already recorded, with the trace they went into: the same answer twice is a mistake. */
const recordedAnswers = new WeakMap<object, ModelCallHandle['tracer']>();
let doubleRecordingWarned = false;

/**
 * Says once per process that one answer is being recorded a second time into the same trace:
 * the handler and the agent middleware both attached to one agent (the README says: one of
 * them), so every answer, and its cost, would count twice.
 */
function noteRecorded(message: LooseMessage, tracer: ModelCallHandle['tracer']): void {
  if (typeof message !== 'object' || message === null) return;
  if (recordedAnswers.get(message) !== tracer) {
    recordedAnswers.set(message, tracer);
    return;
  }
  if (doubleRecordingWarned) return;
  doubleRecordingWarned = true;
  process.emitWarning(
    'tracewarden: a model answer was recorded twice into one trace: TracewardenCallbackHandler and tracewardenAgentMiddleware both record this agent (each answer and its cost count twice). Use one of them: the middleware for createAgent (it also enforces), the handler elsewhere.',
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
 * @internal
 */
export function finishModelCall(
  handle: ModelCallHandle,
  message: LooseMessage,
  response: ModelCallResponse,
  recordRaw: boolean,
  linkedMessage: unknown,
): ModelCallOutcome {
  if (recordRaw) response.raw = rawResponseOf(message);
  noteRecorded(message, handle.tracer);
  linkResponse(handle.tracer, linkedMessage, response.toolCalls ?? []);
  const outcome = handle.finish(response);
  noteAnswer(handle.tracer, outcome.messageBlockId);
  linkRecordedIds(handle.tracer, outcome.messageBlockId, response.toolCalls ?? []);
  handOverVerdicts(outcome, handle.tracer);
  return outcome;
}
