import { convertAnthropicMessages, hasAnthropicToolParts, traceEventKeys } from '@tracewarden/core';
import { isObject } from './is-object.js';

/**
 * A trace as read, with a run in Anthropic's Messages API shape (tool calls and outputs as
 * `tool_use` / `tool_result` content parts) rewritten into chat events, as `parseTrace` reads
 * it, so that every command sees its calls and outputs and reports the file's lines:
 * `sourceOf(event)` is the position in the file of the message an event came from (`undefined`
 * for the system message made from a top-level `system`). Other values are returned as they are.
 * @param value - a trace as read (after `explorerEventList`)
 * @returns the trace, and the source of each event when it was rewritten
 */
export function anthropicEventList(value: unknown): {
  trace: unknown;
  sourceOf?: (event: number) => number | undefined;
} {
  const key = isObject(value)
    ? traceEventKeys.find((name) => Object.hasOwn(value, name))
    : undefined;
  const events = Array.isArray(value)
    ? value
    : key === undefined
      ? undefined
      : (value as Record<string, unknown>)[key];
  if (!Array.isArray(events) || !hasAnthropicToolParts(events)) return { trace: value };
  const system = isObject(value) ? value.system : undefined;
  const converted = convertAnthropicMessages(events, system);
  const sources = converted.sources;
  const sourceOf = (event: number) => {
    const source = sources[event];
    return source === undefined || source < 0 ? undefined : source;
  };
  if (Array.isArray(value)) return { trace: converted.events, sourceOf };
  const { system: _, ...rest } = value as Record<string, unknown>;
  return { trace: { ...rest, [key as string]: converted.events }, sourceOf };
}
