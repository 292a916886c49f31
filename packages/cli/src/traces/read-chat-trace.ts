import {
  type ParseTraceOptions,
  parseTrace,
  type Trace,
  TraceError,
  traceEventKeys,
} from '@tracewarden/core';
import { isMetadataEvent } from '../formats/explorer-event-list.js';
import { type InvariantEntryKind, invariantEntryKind } from '../formats/invariant-entry.js';
import { isObject } from '../formats/is-object.js';

/**
 * A trace's events as given: the array itself, or an object's events array (the first of
 * `traceEventKeys` it has), as `parseTrace` reads it.
 */
function eventsOf(value: unknown): readonly unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (!isObject(value)) return undefined;
  const key = traceEventKeys.find((name) => Object.hasOwn(value, name));
  const list = key === undefined ? undefined : value[key];
  return Array.isArray(list) ? list : undefined;
}

/** The first Invariant entry the chat-event model has no place for, with its position. */
function firstInvariantEntry(
  events: readonly unknown[],
): { index: number; kind: InvariantEntryKind } | undefined {
  for (let index = 0; index < events.length; index++) {
    const kind = invariantEntryKind(events[index]);
    if (kind !== undefined) return { index, kind };
  }
  return undefined;
}

const entryNames: Record<InvariantEntryKind, string> = {
  'tool-list': 'an MCP tool list ({"tools": [...]})',
  'tool-call':
    'a bare tool call (a top-level {"type": "function", "function": {...}} without "role")',
};

/**
 * @internal Parses a chat-event trace with `parseTrace`, but refuses an Invariant trace entry the
 * chat-event model has no place for (an MCP tool list, a bare top-level tool call) with a message
 * that names it as unsupported, instead of `parseTrace`'s "needs a string role": such a trace is
 * valid Invariant input, which only `tracewarden check` reads (as its policy engine does).
 * @param value - the trace as read
 * @param options - as for `parseTrace`
 * @returns the parsed trace
 * @throws TraceError `VALIDATION` with `details.path` the entry's position
 * @example
 * ```ts
 * parseChatTrace([{ tools: [] }]); // throws: Event 0 is an MCP tool list ...
 * ```
 */
export function parseChatTrace(value: unknown, options?: ParseTraceOptions): Trace {
  const events = eventsOf(value);
  const found = events === undefined ? undefined : firstInvariantEntry(events);
  if (found === undefined) return parseTrace(value, options);
  throw new TraceError({
    code: 'VALIDATION',
    message: `Event ${found.index} is ${entryNames[found.kind]}: an Invariant event that only \`tracewarden check\` reads (as its policy engine does); chat-event traces and blocks have no place for it, so this command does not support it. Check such a trace with \`tracewarden check\`, or leave the entry out to use this command.`,
    details: { path: String(found.index) },
  });
}

/** Moves an error `parseTrace` gave for a stand-in message back onto the bare call it holds. */
function callError(error: unknown, index: number): unknown {
  if (!(error instanceof TraceError)) return error;
  const path = error.details.path;
  const standIn = `${index}.tool_calls.0`;
  if (typeof path !== 'string' || !(path === standIn || path.startsWith(`${standIn}.`)))
    return error;
  return new TraceError({
    code: error.code,
    message: error.message.replaceAll(standIn, String(index)),
    details: { ...error.details, path: `${index}${path.slice(standIn.length)}` },
    cause: error,
  });
}

/**
 * @internal A trace as Invariant's policy engine reads it, checked first: the trace must parse
 * (`parseTrace`, with the engine's other entries allowed: an MCP tool list `{ tools }`, a bare
 * top-level tool call, reference: invariant-policy-semantics.md, Events), but what is returned
 * is the file's events as written, so that `tracewarden check` answers as `Policy.check` does on
 * the same file: a rule sees no id `parseTrace` made up (`call_2_0` in a call without `id` or an
 * output without `tool_call_id`) and no field it filled in; the engine links outputs to calls
 * itself, by the same rule. Only a leading Explorer `{ metadata }` element, which is not an
 * event, is left out (as `parseTrace` leaves it out). Positions are those of the events, so
 * that violation addresses name the file's events.
 * @param value - the trace as read
 * @param options - as for `parseTrace`
 * @returns the entries to give `policy.check`
 * @throws TraceError as `parseTrace` does (a bare call's faults at its own position, `2.function`)
 * @example
 * ```ts
 * policy.check(readPolicyTrace([{ tools: [{ name: 'add', description: '...' }] }, { role: 'user', content: 'hi' }]));
 * ```
 */
export function readPolicyTrace(value: unknown, options?: ParseTraceOptions): unknown[] {
  const events = eventsOf(value);
  if (events === undefined) return parseTrace(value, options);
  // parseTrace reads chat messages only: each bare call stands in an assistant message of its
  // own (so that an output without an id links to it), each tool list a message with no call
  const kinds = events.map(invariantEntryKind);
  const standIns = kinds.some((kind) => kind !== undefined)
    ? events.map((event, index) => {
        const kind = kinds[index];
        if (kind === 'tool-call') return { role: 'assistant', content: null, tool_calls: [event] };
        if (kind === 'tool-list') return { role: 'system', content: null };
        return event;
      })
    : value;
  try {
    // read to check it; the policy is given the events as written
    parseTrace(standIns, options);
  } catch (error) {
    const path = error instanceof TraceError ? String(error.details.path) : '';
    const index = Number(/^(\d+)\.tool_calls\.0(?:\.|$)/.exec(path)?.[1]);
    throw Number.isInteger(index) && kinds[index] === 'tool-call' ? callError(error, index) : error;
  }
  // a leading Explorer `{ metadata }` element is not an event: parseTrace leaves it out (the
  // count of parsed events is no guide: a run in another API's shape is rewritten into more)
  return isMetadataEvent(events[0]) ? events.slice(1) : events.slice();
}
