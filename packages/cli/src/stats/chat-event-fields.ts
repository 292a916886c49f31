import { isObject } from '../formats/is-object.js';
import type { PathOf } from './read-figures.js';

type JsonObject = Record<string, unknown>;

/**
 * @internal An event's metadata as stats reads it: its own `metadata`, with what `blocksToEvents` kept of
 * its block under `tracewarden.metadata` (usage, cost, status, latency, a policy's verdict), so a
 * recording converted to events (`convert --to events`) gives the figures its blocks give.
 */
export function eventMetadata(event: JsonObject): JsonObject {
  const own = isObject(event.metadata) ? event.metadata : undefined;
  const kept = isObject(event.tracewarden) ? event.tracewarden.metadata : undefined;
  if (!isObject(kept)) return own ?? {};
  return own === undefined ? kept : { ...own, ...kept };
}

/**
 * @internal Where a key of `{ ...event, ...eventMetadata(event) }` is in the event: what
 * `blocksToEvents` kept (`tracewarden.metadata`) wins over the event's own `metadata`, which wins
 * over the event's fields.
 */
export function eventPathOf(event: JsonObject): PathOf {
  const kept = isObject(event.tracewarden) ? event.tracewarden.metadata : undefined;
  const own = event.metadata;
  return (key) =>
    isObject(kept) && Object.hasOwn(kept, key)
      ? `tracewarden.metadata.${key}`
      : isObject(own) && Object.hasOwn(own, key)
        ? `metadata.${key}`
        : key;
}

/**
 * @internal For each assistant message id (an API message's `id`, `msg_...`) that several events of a trace
 * share, the position of the last of them: Claude Code's session files write one line per
 * content block of the same API message, each repeating its usage (the last one with the final
 * output tokens), so a message's usage and call are counted once, from its last event.
 * @param list - a trace's events
 * @returns the last position of each id that is repeated
 */
export function lastEventOfEachMessage(list: readonly unknown[]): Map<string, number> {
  const seen = new Map<string, number>();
  const repeated = new Set<string>();
  for (let index = 0; index < list.length; index++) {
    const event = list[index];
    if (!isObject(event) || event.role !== 'assistant') continue;
    if (typeof event.id !== 'string' || event.id === '') continue;
    if (seen.has(event.id)) repeated.add(event.id);
    seen.set(event.id, index);
  }
  for (const id of seen.keys()) if (!repeated.has(id)) seen.delete(id);
  return seen;
}
