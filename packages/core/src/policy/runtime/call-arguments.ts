// The arguments of a tool call, or of the call a tool output answers, as the store holds them
// (parsed once by `normalizeToolCall`): one helper for every detector that reads them.
import type { EventStore } from './event-store.js';
import { isRecord } from './is-record.js';
import type { PolicyEvent } from './policy-event.js';

/**
 * The arguments of a tool-call event: an object (parsed from the model's JSON text by the
 * store), or the text the model sent when it was not a JSON object; `undefined` when none.
 * @internal
 */
export function argumentsOfCall(call: PolicyEvent): unknown {
  const fn = call.data.function;
  return isRecord(fn) ? fn.arguments : call.data.arguments;
}

/**
 * The call an event stands for: a tool call itself, or the call a tool output answers (by its id,
 * else, for an output without one, the nearest earlier call of the same tool); `undefined` when
 * there is none.
 * @internal
 */
export function callOf(store: EventStore, event: PolicyEvent): PolicyEvent | undefined {
  if (event.kind === 'ToolCall') return event;
  if (event.kind !== 'ToolOutput') return undefined;
  if (event.callPosition >= 0) return store.probe(event.callPosition);
  const position = event.position;
  for (let at = position - 1; at >= 0 && at >= position - 8; at--) {
    const candidate = store.probe(at);
    if (candidate.kind === 'ToolCall' && candidate.toolName === event.toolName) return candidate;
  }
  return undefined;
}

/**
 * The arguments of a tool call, or of the call a tool output answers ({@link callOf}).
 * @internal
 */
export function callArgumentsOf(store: EventStore, event: PolicyEvent): unknown {
  const call = callOf(store, event);
  return call === undefined ? undefined : argumentsOfCall(call);
}

/** The top-level entries of a call's arguments (none when they are not an object). @internal */
export function argumentEntriesOf(args: unknown): [string, unknown][] {
  return isRecord(args) && !Array.isArray(args) ? Object.entries(args) : [];
}

const argumentTexts = new WeakMap<PolicyEvent, string>();
/**
 * The arguments of the call an event stands for ({@link callOf}) as text: the model's text when
 * it was not JSON, else their JSON; `''` when there is no call.
 * @internal
 */
export function callArgumentsText(store: EventStore, event: PolicyEvent): string {
  const call = callOf(store, event);
  if (call === undefined) return '';
  let text = argumentTexts.get(call);
  if (text === undefined) {
    const args = argumentsOfCall(call);
    text = typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args);
    argumentTexts.set(call, text);
  }
  return text;
}

/** Every string among a call's argument values, nested ones included, in order. @internal */
export function argumentStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) argumentStrings(v, out);
  else if (isRecord(value)) for (const v of Object.values(value)) argumentStrings(v, out);
  return out;
}
