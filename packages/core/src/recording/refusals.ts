/**
 * Refusals handed from the place that decides (a model call's policy review) to the place that
 * executes (a guarded tool), keyed by the model's tool call id: a framework whose loop runs the
 * tools itself keeps a refused call in the response, and the guarded tool refuses it instead of
 * running. Bounded: the oldest entries go first past {@link maxPendingRefusals}, so refusals that
 * no tool ever claims cannot grow without limit.
 */
const pending = new Map<string, string>();

/** Most refusals kept waiting for their tool at once (oldest dropped first). */
export const maxPendingRefusals = 10_000;

/**
 * Records that the tool call `callId` was refused, with the text its tool must answer.
 * @param callId - the model's tool call id
 * @param refusal - what the model reads instead of the tool's result
 * @example
 * ```ts
 * registerRefusal('call_1', 'Tool call send_email was blocked by policy.');
 * takeRefusal('call_1'); // 'Tool call send_email was blocked by policy.'
 * ```
 */
export function registerRefusal(callId: string, refusal: string): void {
  pending.delete(callId);
  pending.set(callId, refusal);
  if (pending.size > maxPendingRefusals) {
    const oldest = pending.keys().next();
    if (oldest.done !== true) pending.delete(oldest.value);
  }
}

/**
 * Takes the refusal of a tool call, if it was refused (once: a second take finds nothing).
 * @param callId - the model's tool call id
 * @returns the refusal text, or `undefined` when the call was not refused
 * @example
 * ```ts
 * const refusal = takeRefusal(toolCallId);
 * if (refusal !== undefined) throw new Error(refusal);
 * ```
 */
export function takeRefusal(callId: string): string | undefined {
  const refusal = pending.get(callId);
  if (refusal !== undefined) pending.delete(callId);
  return refusal;
}
