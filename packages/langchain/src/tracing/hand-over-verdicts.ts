import { canonicalJson, handOverVerdict, type ModelCallOutcome } from '@tracewarden/core';

/**
 * Hands each verdict of a model call to the tool run that will execute the call (by the model's
 * call id): a refusal to answer instead of running, or — with a policy — the reviewed arguments
 * and a re-check, so a call whose arguments change before it runs (another middleware, a
 * human-in-the-loop edit) is judged on what really runs. Tool runs ask `refusalFor(callId,
 * toolName, args)` before running.
 * @param scope - the model call's tracer (see `handOverVerdict`)
 * @returns the calls refused, with their name and canonical arguments
 * @internal
 */
export function handOverVerdicts(
  outcome: ModelCallOutcome,
  scope: object,
): { callId: string; name: string; arguments: string | undefined }[] {
  const refused: { callId: string; name: string; arguments: string | undefined }[] = [];
  for (const review of outcome.toolCalls) {
    handOverVerdict(review, outcome.recheck, scope);
    if (review.refusal !== undefined)
      refused.push({
        callId: review.call.id,
        name: review.call.name,
        arguments: canonicalJson(review.call.arguments),
      });
  }
  return refused;
}

/** Tool input as LangChain hands it to `handleToolStart` (JSON text) as arguments. @internal */
export function toolArguments(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return { input };
  }
}
