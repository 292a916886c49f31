import type { LanguageModelV4FinishReason } from '@ai-sdk/provider';
import { handOverVerdict, type ModelCallOutcome } from '@tracewarden/core';
import type { ModelCallSetup } from './model-call.js';

const warnedTools = new Set<string>();

/**
 * Says once per tool that a refused call of a tool that cannot refuse it itself was removed: the
 * AI SDK then ends the loop, which a user of `'refuse'` does not expect (a model middleware never
 * sees a tool's `execute`, so it cannot answer the refusal as the tool's result).
 */
function warnRemoved(toolName: string): void {
  if (warnedTools.has(toolName)) return;
  warnedTools.add(toolName);
  process.emitWarning(
    `tracewarden: the policy blocked a call of tool '${toolName}', which is not wrapped by guardTools: ` +
      'the call was removed and the refusal added to the text, so the AI SDK ends the loop here. ' +
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
  const recheck = outcome.recheck;
  for (const review of outcome.toolCalls) {
    const call = review.call;
    if (review.refusal !== undefined && review.refusedAtTool !== true) {
      removed.add(call.id);
      warnRemoved(call.name);
      continue;
    }
    if (setup.refusesAtTool(call.name)) handOverVerdict(review, recheck, scope);
  }
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
