/**
 * Anthropic's Messages API keeps tool calls and their outputs inside message content: an
 * assistant message's `tool_use` parts are its calls, and the next user message's `tool_result`
 * parts are their outputs (reference: the Messages API's content blocks). The chat-event model
 * (seed 000) reads calls from `tool_calls` and outputs from `role: "tool"` events, so such a run
 * is rewritten into that shape before it is read.
 */

import { TraceError } from '../errors/index.js';
import { isRecord } from '../validation/is-record.js';
import { withReasoningParts } from './reasoning-parts.js';

type JsonObject = Record<string, unknown>;

/** A part that calls a tool: `tool_use`, and the provider-run `server_tool_use`, `mcp_tool_use`. */

/**
 * The calls of `tool_use` parts a message's `tool_calls` does not hold already (by id): a
 * LangChain Anthropic message keeps each call in both.
 */
function notIn(earlier: readonly unknown[], calls: readonly JsonObject[]): JsonObject[] {
  const ids = new Set<unknown>();
  for (const call of earlier)
    if (typeof call === 'object' && call !== null) ids.add((call as { id?: unknown }).id);
  return calls.filter((call) => typeof call.id !== 'string' || call.id === '' || !ids.has(call.id));
}

function isCallPart(part: JsonObject): boolean {
  return (
    (part.type === 'tool_use' || part.type === 'server_tool_use' || part.type === 'mcp_tool_use') &&
    typeof part.name === 'string'
  );
}

/** A part that answers one: `tool_result`, `mcp_tool_result`, `web_search_tool_result`, ... */
function isResultPart(part: JsonObject): boolean {
  const type = part.type;
  return (
    typeof type === 'string' &&
    (type === 'tool_result' || type.endsWith('_tool_result')) &&
    (typeof part.tool_use_id === 'string' || Number.isSafeInteger(part.tool_use_id))
  );
}

function isToolPart(part: unknown): boolean {
  return isRecord(part) && (isCallPart(part) || isResultPart(part));
}

/**
 * Whether events hold tool calls or outputs as Anthropic Messages API content parts
 * (`tool_use` with a `name`, `tool_result` with a `tool_use_id`, and their provider-run kin).
 * @param events - a trace's events as read
 * @returns true when {@link fromAnthropicMessages} would move any part
 * @example
 * ```ts
 * hasAnthropicToolParts([{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] }]); // true
 * ```
 */
export function hasAnthropicToolParts(events: readonly unknown[]): boolean {
  for (const event of events) {
    if (!isRecord(event) || !Array.isArray(event.content)) continue;
    if (event.content.some(isToolPart)) return true;
  }
  return false;
}

/** Chat events rewritten from another API's shape, and where each came from. */
export interface ChatEventConversion {
  /** The events in the chat-event shape. */
  events: JsonObject[];
  /**
   * For each event, the position in the input of the message or item it came from (several
   * events come from one message that answers several calls); `-1` for the system message made
   * from a top-level `system`.
   */
  sources: number[];
}

/** A tool output event for a result part; `providerRun` for results the provider's tools made. */
function toolOutput(part: JsonObject, providerRun: boolean): JsonObject {
  // the part's other fields (`cache_control`, ...) are kept on the output, as a call part's are
  const { type: _type, tool_use_id, content, is_error: _isError, ...rest } = part;
  const output: JsonObject = {
    ...rest,
    role: 'tool',
    tool_call_id: tool_use_id,
    content: content === undefined ? '' : content,
  };
  // the output's text is the error's (tau2-bench's `error: true`, as the commands read it)
  if (part.is_error === true) output.error = true;
  if (providerRun || part.type !== 'tool_result') output.provider_executed = true;
  return output;
}

/** The chat-event tool call of a call part; the part's other fields are kept on the call. */
function toolCall(part: JsonObject): JsonObject {
  const { type, id, name, input, ...rest } = part;
  const call: JsonObject = {
    ...rest,
    id,
    type: type === 'tool_use' ? 'function' : type,
    function: { name, arguments: input ?? {} },
  };
  if (type !== 'tool_use') call.provider_executed = true;
  return call;
}

/**
 * Rewrites one message whose content holds tool parts; pushes its events, in the parts' order.
 * A message that calls tools (an assistant's) becomes an assistant event with its calls, its
 * text and its reasoning; where a provider-run tool's result comes in the middle of it (a web
 * search, then the call it led to), the message is cut there: the part before it, the result,
 * then the rest, so that what the model read comes before what it did next. A message that only
 * answers calls (a user's) becomes its outputs, with any other content as messages in between.
 * The message's other fields (its id, usage) stay on its first event.
 */
function convertMessage(
  event: JsonObject,
  content: readonly unknown[],
  source: number,
  out: ChatEventConversion,
): void {
  const calling = content.some((part) => isRecord(part) && isCallPart(part));
  let kept: unknown[] = [];
  let calls: JsonObject[] = [];
  let first = true;
  const push = (pushed: JsonObject) => {
    out.events.push(pushed);
    out.sources.push(source);
  };
  // the message's content (and calls) so far, as one event
  const flush = () => {
    if (kept.length === 0 && calls.length === 0) return;
    const fields: JsonObject = first ? { ...event } : { role: event.role };
    first = false;
    if (!calling) {
      push({ ...fields, content: kept });
    } else {
      // its thinking parts are its reasoning
      const message: JsonObject = withReasoningParts<JsonObject>({
        ...fields,
        content: kept.length === 0 ? null : kept,
      });
      const earlier = fields.tool_calls;
      if (calls.length > 0)
        message.tool_calls = Array.isArray(earlier)
          ? [...earlier, ...notIn(earlier, calls)]
          : calls;
      push(message);
    }
    kept = [];
    calls = [];
  };
  for (const part of content) {
    if (isRecord(part) && isCallPart(part)) {
      calls.push(toolCall(part));
    } else if (isRecord(part) && isResultPart(part)) {
      flush();
      push(toolOutput(part, calling));
    } else {
      kept.push(part);
    }
  }
  flush();
}

/**
 * Rewrites events in Anthropic's Messages API shape into chat events, as
 * {@link fromAnthropicMessages} does, and says which input message each event came from: for
 * tools that point back into the file they read (the command line's line numbers).
 * Events without tool parts are kept as they are (the same objects).
 * @param events - the messages as read
 * @param system - a top-level `system` (a string or text parts), made the first event
 * @returns the events and their sources
 * @example
 * ```ts
 * const { events, sources } = convertAnthropicMessages(messages, request.system);
 * sources[events.length - 1]; // the position in `messages` of the last event's message
 * ```
 */
export function convertAnthropicMessages(
  events: readonly unknown[],
  system: unknown,
): ChatEventConversion {
  const out: ChatEventConversion = { events: [], sources: [] };
  if (typeof system === 'string' || Array.isArray(system)) {
    out.events.push({ role: 'system', content: system });
    out.sources.push(-1);
  }
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    if (isRecord(event) && Array.isArray(event.content) && event.content.some(isToolPart)) {
      convertMessage(event, event.content, i, out);
    } else {
      out.events.push(event as JsonObject);
      out.sources.push(i);
    }
  }
  return out;
}

/**
 * Rewrites a conversation in the shape of Anthropic's Messages API (a request's `{ system,
 * messages }`, or its `messages` array, with the assistant's answers appended) into chat events
 * that {@link parseTrace}, the converters and policies read:
 * - an assistant message's `tool_use` parts become its `tool_calls` (`{ id, type: 'function',
 *   function: { name, arguments: input } }`, the part's other fields kept on the call), its
 *   `thinking` parts its `reasoning_content` (joined by a blank line), and its other parts stay
 *   its content (`null` when none is left);
 * - a message's `tool_result` parts become `role: 'tool'` events (`tool_call_id` the part's
 *   `tool_use_id`, `content` its content, `error: true` when `is_error`), in the parts' order,
 *   with the message's other parts as messages between them (a user's text after the results
 *   stays a user message after them);
 * - the provider-run tools' parts (`server_tool_use`, `mcp_tool_use` and their
 *   `*_tool_result`s, such as `web_search_tool_result`) become calls and outputs the same way,
 *   marked `provider_executed: true`, in the parts' order: an answer with a result in the
 *   middle is cut there (the parts before it, the result, then the rest), so that a call the
 *   model made after reading a result comes after it;
 * - a top-level `system` (a string or text parts) becomes the first event, `role: 'system'`.
 *
 * Messages without such parts are kept as they are. `parseTrace` applies this itself to a trace
 * whose content holds `tool_use` or `tool_result` parts; call it directly to give a policy
 * (`policy.check`) such a run.
 *
 * @param input - the messages, or an object with `messages` (and `system`)
 * @returns the events, new objects where a message was rewritten
 * @throws TraceError `VALIDATION` when `input` is neither an array nor an object with `messages`
 * @example
 * ```ts
 * const events = fromAnthropicMessages({
 *   system: 'You read email.',
 *   messages: [
 *     { role: 'user', content: 'Inbox?' },
 *     { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_inbox', input: {} }] },
 *     { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '2 emails' }] },
 *   ],
 * });
 * events[2]?.tool_calls; // [{ id: 'toolu_1', type: 'function', function: { name: 'get_inbox', arguments: {} } }]
 * events[3]; // { role: 'tool', tool_call_id: 'toolu_1', content: '2 emails' }
 * ```
 */
export function fromAnthropicMessages(input: unknown): Record<string, unknown>[] {
  if (Array.isArray(input)) return convertAnthropicMessages(input, undefined).events;
  if (isRecord(input) && Array.isArray(input.messages))
    return convertAnthropicMessages(input.messages, input.system).events;
  throw new TraceError({
    code: 'VALIDATION',
    message: `fromAnthropicMessages: pass the messages array or an object with a "messages" array (and "system"), got ${input === null ? 'null' : typeof input === 'object' ? 'an object without a "messages" array' : `a ${typeof input}`}`,
    details: { path: '' },
  });
}
