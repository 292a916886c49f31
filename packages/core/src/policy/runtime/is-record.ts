/** @internal Marks trace events, which are objects but never plain data to rules. */
export const EVENT_MARK: unique symbol = Symbol('tracewarden.policy-event');

/**
 * @internal Whether a value is a JSON-like object (not null, not an array, not a trace event):
 * the one test every part of the policy engine uses for "an object of named values".
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(EVENT_MARK in value)
  );
}
