import type { LanguageModelV4FinishReason } from '@ai-sdk/provider';
import {
  handOverVerdict,
  type ModelCallHandle,
  type ModelCallOutcome,
  PolicyViolationError,
} from '@tracewarden/core';
import type { ModelCallSetup } from './model-call.js';

const warnedTools = new Set<string>();

/**
 * Says once per tool that a refused call of a tool that cannot refuse it itself was removed: when
 * no other call is left in the response the AI SDK then ends the loop, which a user of
 * `'refuse'` does not expect (a model middleware never sees a tool's `execute`, so it cannot
 * answer the refusal as the tool's result); with other calls left, the loop goes on but the
 * model reads the refusal only in the text.
 */
function warnRemoved(toolName: string, endsLoop: boolean): void {
  const key = `${endsLoop ? 'ends' : 'text'}:${toolName}`;
  if (warnedTools.has(key)) return;
  warnedTools.add(key);
  process.emitWarning(
    `tracewarden: the policy blocked a call of tool '${toolName}', which is not wrapped by guardTools: ` +
      (endsLoop
        ? 'the call was removed and the refusal added to the text, so the AI SDK ends the loop here. '
        : "the call was removed and the refusal added to the text; the other calls of the answer run, but the model reads the refusal only in the text, not as the tool's result. ") +
      'Wrap the tools with guardTools(tools) (or register tracewardenTelemetry) so the tool answers ' +
      'the refusal as its result and the loop goes on.',
    { code: 'TRACEWARDEN_REFUSE_ENDS_LOOP' },
  );
}

/**
 * Hands each verdict to the tool that will run the call (a refusal to answer, or the reviewed
 * arguments and a re-check for arguments the SDK changes before running it); returns the ids of
 * calls removed from the response (refused calls no tool would refuse).
 */
export function applyOutcome(
  outcome: ModelCallOutcome,
  setup: ModelCallSetup,
  scope: object,
): Set<string> {
  const removed = new Set<string>();
  const removedNames: string[] = [];
  const recheck = outcome.recheck;
  for (const review of outcome.toolCalls) {
    const call = review.call;
    if (review.refusal !== undefined && review.refusedAtTool !== true) {
      removed.add(call.id);
      removedNames.push(call.name);
      continue;
    }
    if (setup.refusesAtTool(call.name)) handOverVerdict(review, recheck, scope);
  }
  // the loop ends only when no client call is left for the SDK to run
  const endsLoop = removed.size === outcome.toolCalls.length;
  for (const name of removedNames) warnRemoved(name, endsLoop);
  return removed;
}

/** Whether a content or stream part is a tool call the client (not the provider) runs. */
export function isClientToolCall(part: {
  type: string;
  providerExecuted?: boolean | undefined;
}): boolean {
  return part.type === 'tool-call' && part.providerExecuted !== true;
}

/** A finish reason without tool calls once every client tool call was removed. */
export function finishWithout(
  reason: LanguageModelV4FinishReason,
  callsLeft: boolean,
): LanguageModelV4FinishReason {
  return !callsLeft && reason.unified === 'tool-calls'
    ? { unified: 'stop', raw: reason.raw }
    : reason;
}

/**
 * Inside the telemetry integration: when an enforcing middleware inside rejected the answer
 * (`throw` mode), records the answer it rejected, as that middleware records it (a call that
 * succeeded, its calls blocked), not as a failed call. False for any other error.
 * @internal
 */
export function recordRejectedAnswer(
  handle: ModelCallHandle,
  setup: ModelCallSetup,
  error: unknown,
): boolean {
  if (!PolicyViolationError.isInstance(error)) return false;
  const answer = setup.adoptedReviews?.()?.answer;
  if (answer === undefined) return false;
  try {
    handle.finish(answer);
  } catch {
    // this recorder's own policy rejected it too: recorded all the same; the caller gets the
    // rejection that ended the call
  }
  return true;
}
