import { isObject } from './is-object.js';

/**
 * Whether a value is the `{ "metadata": { ... } }` first element with which Invariant Explorer's
 * raw event lists carry a trace's metadata (no role, no other field).
 * @param value - a trace's first element
 * @returns true for such a metadata element
 */
export function isMetadataEvent(value: unknown): value is { metadata: Record<string, unknown> } {
  return isObject(value) && isObject(value.metadata) && Object.keys(value).length === 1;
}

/**
 * A trace as read, with an Invariant Explorer raw event list `[{ metadata }, ...events]` turned
 * into `{ messages: events, metadata }` (and such a `messages` list of a trace object likewise),
 * so reports name it by its metadata id and count its events from the first real one, as
 * `parseTrace` does; other values are returned as they are.
 * @param value - a trace as read
 * @returns the trace, and how many leading elements were taken as metadata (0 or 1)
 */
export function explorerEventList(value: unknown): { trace: unknown; skipped: 0 | 1 } {
  if (Array.isArray(value)) {
    if (!isMetadataEvent(value[0])) return { trace: value, skipped: 0 };
    return { trace: { messages: value.slice(1), metadata: value[0].metadata }, skipped: 1 };
  }
  // `{ messages: [{ metadata }, ...] }`: the object's own metadata wins, as in parseDataset
  if (!isObject(value) || !Array.isArray(value.messages) || !isMetadataEvent(value.messages[0]))
    return { trace: value, skipped: 0 };
  const metadata = isObject(value.metadata)
    ? { ...value.messages[0].metadata, ...value.metadata }
    : value.messages[0].metadata;
  return { trace: { ...value, messages: value.messages.slice(1), metadata }, skipped: 1 };
}
