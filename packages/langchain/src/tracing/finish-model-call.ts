import type { ModelCallHandle, ModelCallOutcome, ModelCallResponse } from '@tracewarden/core';
import type { LooseMessage } from '../messages/messages-to-neutral.js';
import { rawResponseOf } from '../messages/model-call-info.js';
import { linkResponse, noteAnswer } from './conversation-links.js';
import { handOverVerdicts } from './hand-over-verdicts.js';

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
  linkResponse(handle.tracer, linkedMessage, response.toolCalls);
  const outcome = handle.finish(response);
  noteAnswer(handle.tracer, outcome.messageBlockId);
  handOverVerdicts(outcome);
  return outcome;
}
