import { convertToChatEvents, traceEventKeys } from '@tracewarden/core';
import { isObject } from './is-object.js';

/**
 * A trace as read, with a run in another API's shape rewritten into chat events as `parseTrace`
 * reads it (an Anthropic Messages API run, whose tool calls and outputs are `tool_use` /
 * `tool_result` content parts; an OpenAI Responses API item list, with `function_call` /
 * `function_call_output` items), so that every command sees its calls and outputs and reports
 * the file's lines: `sourceOf(event)` is the position in the file of the message or item an
 * event came from (`undefined` for the system message made from a top-level `system`). Other
 * values are returned as they are.
 * @param value - a trace as read (after `explorerEventList`)
 * @returns the trace, and the source of each event when it was rewritten
 */
export function foreignEventList(value: unknown): {
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
  if (!Array.isArray(events)) return { trace: value };
  const converted = convertToChatEvents(events, isObject(value) ? value.system : undefined);
  if (converted === undefined) return { trace: value };
  const sources = converted.sources;
  const sourceOf = (event: number) => {
    const source = sources[event];
    return source === undefined || source < 0 ? undefined : source;
  };
  if (Array.isArray(value)) return { trace: converted.events, sourceOf };
  const rest: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  // a top-level `system` became the first event
  if (sources[0] === -1) delete rest.system;
  return { trace: { ...rest, [key as string]: converted.events }, sourceOf };
}
