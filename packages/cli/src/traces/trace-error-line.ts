import { traceEventKeys } from '@tracewarden/core';
import type { TraceItem } from '../formats/index.js';
import { isObject } from '../formats/is-object.js';

// an event's index in an error's path: `3...`, or under a trace object's key (`messages.3...`)
const eventPath = new RegExp(`^(?:(?:${traceEventKeys.join('|')})\\.)?(\\d+)`);

/**
 * @internal The line to report a chat-event trace that `parseTrace` refused at: the line of the
 * event its error's `details.path` names (`2.tool_calls.0.function.arguments`, or
 * `messages.2...` in a `{ messages }` object), else the trace's own line; so that `validate`,
 * `check`, `view` and `convert` name the same line for the same fault.
 * @param item - the trace as read
 * @param error - what `parseTrace` threw
 * @returns the 1-based line, when known
 * @example
 * ```ts
 * skip(traceErrorLine(item, error), error.message);
 * ```
 */
export function traceErrorLine(item: TraceItem, error: unknown): number | undefined {
  const details = isObject(error) && isObject(error.details) ? error.details : undefined;
  const path = typeof details?.path === 'string' ? details.path : '';
  const event = eventPath.exec(path)?.[1];
  return (event === undefined ? undefined : item.lineOfEvent(Number(event))) ?? item.line;
}
