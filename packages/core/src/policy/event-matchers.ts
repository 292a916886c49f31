import type { Message, ToolCall, ToolOutput } from '../model/chat-events.js';
import { loadPolicyEngine } from './load-policy-engine.js';
import type { PolicyEventType } from './policy-types.js';
import { isRecord } from './runtime/is-record.js';
import type { PolicyEvent } from './runtime/policy-event.js';

/**
 * A pattern over tool-call arguments for the typed API: a subset of keys; strings, numbers,
 * booleans and null compare by equality, a RegExp tests strings (JavaScript semantics, not
 * anchored), a nested object matches a nested subset, a function decides.
 * @example `{ to: /@evil\.com$/, cc: (v) => Array.isArray(v) && v.length > 3 }`
 */
export interface ArgumentPattern {
  [argument: string]:
    | string
    | number
    | boolean
    | null
    | RegExp
    | ArgumentPattern
    | ((value: unknown) => boolean);
}

/**
 * Selects events of one type for a typed rule variable; built by {@link toolCall},
 * {@link toolOutput}, {@link message} and {@link anyEvent}. `T` is the event's data type.
 */
export interface EventMatcher<T = unknown> {
  /** The event type the variable ranges over. */
  readonly type: PolicyEventType;
  /** The tool name (used as an index key when a plain string). */
  readonly tool: string | RegExp | undefined;
  /** @internal Type marker for the bound data. */
  readonly __data?: T;
  /** @internal Whether an event matches (the type is checked by the index). */
  readonly matches: (event: PolicyEvent) => boolean;
}

function matchValue(pattern: ArgumentPattern[string], value: unknown): boolean {
  if (pattern instanceof RegExp) {
    if (typeof value !== 'string') return false;
    pattern.lastIndex = 0;
    return pattern.test(value);
  }
  if (typeof pattern === 'function') return pattern(value) === true;
  if (isRecord(pattern)) return matchArguments(pattern as ArgumentPattern, value);
  return loadPolicyEngine().valuesEqual(value, pattern);
}

function matchArguments(pattern: ArgumentPattern, value: unknown): boolean {
  if (!isRecord(value)) return false;
  return Object.entries(pattern).every(
    ([key, p]) => Object.hasOwn(value, key) && matchValue(p, value[key]),
  );
}

function matchName(tool: string | RegExp | undefined, name: string | undefined): boolean {
  if (tool === undefined) return true;
  if (name === undefined) return false;
  if (typeof tool === 'string') return tool === name;
  tool.lastIndex = 0;
  return tool.test(name);
}

function contentMatches(where: RegExp, data: Record<string, unknown>): boolean {
  return loadPolicyEngine()
    .textsOf(data.content ?? null, undefined)
    .some((piece) => {
      where.lastIndex = 0;
      return where.test(piece.text);
    });
}

/**
 * Matches tool calls, optionally by tool name, argument pattern and a predicate.
 * @param tool - exact name, or a RegExp over the name
 * @param args - argument pattern (subset match)
 * @param where - extra predicate on the call
 * @returns a matcher binding {@link ToolCall} data
 * @example
 * ```ts
 * toolCall('send_email', { to: /@(?!corp\.com$)/ })
 * ```
 */
export function toolCall(
  tool?: string | RegExp,
  args?: ArgumentPattern,
  where?: (call: ToolCall) => boolean,
): EventMatcher<ToolCall> {
  return {
    type: 'ToolCall',
    tool,
    matches: (event) =>
      matchName(tool, event.toolName) &&
      (args === undefined ||
        matchArguments(
          args,
          (event.data.function as Record<string, unknown> | undefined)?.arguments,
        )) &&
      (where === undefined || where(event.data as ToolCall)),
  };
}

/**
 * Matches tool outputs, optionally by the name of the call they answer and by content.
 * @param tool - exact name, or a RegExp over the name of the answered call
 * @param where - a RegExp tested on each text chunk of the content, or a predicate on the output
 * @returns a matcher binding {@link ToolOutput} data
 * @example
 * ```ts
 * toolOutput('fetch_url', /ignore (all )?previous instructions/i)
 * ```
 */
export function toolOutput(
  tool?: string | RegExp,
  where?: RegExp | ((output: ToolOutput) => boolean),
): EventMatcher<ToolOutput> {
  return {
    type: 'ToolOutput',
    tool,
    matches: (event) =>
      matchName(tool, event.toolName) &&
      (where === undefined ||
        (where instanceof RegExp
          ? contentMatches(where, event.data)
          : where(event.data as ToolOutput))),
  };
}

/**
 * Matches messages (as in Invariant, tool outputs are messages too), optionally by role and content.
 * @param role - one role or several (`'user'`, `['assistant', 'system']`)
 * @param where - a RegExp tested on each text chunk of the content, or a predicate
 * @returns a matcher binding {@link Message} data
 * @example
 * ```ts
 * message('user', /password/i)
 * ```
 */
export function message(
  role?: string | readonly string[],
  where?: RegExp | ((message: Message) => boolean),
): EventMatcher<Message> {
  const roles = role === undefined ? undefined : typeof role === 'string' ? [role] : role;
  return {
    type: 'Message',
    tool: undefined,
    matches: (event) =>
      (roles === undefined || roles.includes(String(event.data.role))) &&
      (where === undefined ||
        (where instanceof RegExp
          ? contentMatches(where, event.data)
          : where(event.data as Message))),
  };
}

/**
 * Matches any event (messages, tool calls, tool outputs, tool lists).
 * @param where - optional predicate on the event data
 * @returns a matcher binding the event data
 * @example
 * ```ts
 * anyEvent((e) => JSON.stringify(e).includes('password'))
 * ```
 */
export function anyEvent(
  where?: (event: Record<string, unknown>) => boolean,
): EventMatcher<Record<string, unknown>> {
  return {
    type: 'Event',
    tool: undefined,
    matches: (event) => where === undefined || where(event.data),
  };
}
