/**
 * OpenAI's Responses API (and the OpenAI Agents SDK's `to_input_list()`) keeps a conversation as
 * a list of items: messages (`{ type: 'message', role, content: [{ type: 'input_text' }] }` or
 * the easy `{ role, content }`), and, beside them, `function_call` / `function_call_output`
 * items, `reasoning` items and the hosted tools' calls. The chat-event model (seed 000) reads
 * calls from an assistant message's `tool_calls` and outputs from `role: "tool"` events, so such
 * a list is rewritten into that shape before it is read.
 */

import { TraceError } from '../errors/index.js';
import { openAIHostedToolCalls } from '../recording/openai-hosted-tool-calls.js';
import { isRecord } from '../validation/is-record.js';
import type { ChatEventConversion } from './from-anthropic-messages.js';

type JsonObject = Record<string, unknown>;

/** Items that hold a call or its output, or reasoning, and have no `role`. */
const itemTypes = new Set([
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
]);

/** Text parts of the Responses API, read as chat text parts. */
const textPartTypes = new Set(['input_text', 'output_text']);

/** A call id as the API writes it: a non-empty string. */
function callIdOf(item: JsonObject): string | undefined {
  return typeof item.call_id === 'string' && item.call_id !== '' ? item.call_id : undefined;
}

/** An item without a role that is one of the API's calls, outputs or reasoning. */
function isToolItem(item: JsonObject): boolean {
  if (item.role !== undefined || typeof item.type !== 'string') return false;
  const type = item.type;
  return (
    itemTypes.has(type) ||
    ((type.endsWith('_call') || type.endsWith('_call_output')) &&
      typeof item.call_id === 'string') ||
    openAIHostedToolCalls([item]).length > 0
  );
}

/**
 * A message item whose content parts are the API's (`input_text`, `output_text`). Not every
 * `type: 'message'`: Anthropic's `Message` objects (a response appended to a run) have one too.
 */
function isMessageItem(item: JsonObject): boolean {
  return (
    typeof item.role === 'string' &&
    Array.isArray(item.content) &&
    item.content.some((part) => isRecord(part) && textPartTypes.has(part.type as string))
  );
}

/**
 * Whether events are a Responses API item list: an item without a `role` that is a
 * `function_call`, `function_call_output`, `reasoning`, custom or hosted tool call, or a message
 * with `input_text` / `output_text` content parts.
 * @param events - a trace's events as read
 * @returns true when {@link fromResponsesItems} would rewrite any of them
 * @example
 * ```ts
 * hasResponsesItems([{ role: 'user', content: 'hi' }, { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' }]); // true
 * ```
 */
export function hasResponsesItems(events: readonly unknown[]): boolean {
  for (const event of events)
    if (isRecord(event) && (isToolItem(event) || isMessageItem(event))) return true;
  return false;
}

/** Content parts as chat text and image parts; other parts are kept as they are. */
function chatContent(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  return content.map((part) => {
    if (!isRecord(part)) return part;
    if (textPartTypes.has(part.type as string)) {
      const { type: _, ...rest } = part;
      return { ...rest, type: 'text' };
    }
    if (part.type === 'input_image' && typeof part.image_url === 'string') {
      const { type: _, ...rest } = part;
      return { ...rest, type: 'image' };
    }
    return part;
  });
}

/** The text of a reasoning item: its summary, else its content, joined by a blank line. */
function reasoningText(item: JsonObject): string {
  const pieces: string[] = [];
  for (const list of [item.summary, item.content]) {
    if (!Array.isArray(list)) continue;
    for (const part of list)
      if (isRecord(part) && typeof part.text === 'string' && part.text !== '')
        pieces.push(part.text);
    if (pieces.length > 0) break;
  }
  return pieces.join('\n\n');
}

/** The arguments of a client-run call other than a function's (`action`, `operation`, `input`). */
function otherCallArguments(item: JsonObject): unknown {
  for (const key of ['arguments', 'action', 'operation', 'input']) {
    const value = item[key];
    if (isRecord(value) || typeof value === 'string') return value;
  }
  return {};
}

/**
 * Rewrites a Responses API item list into chat events, as {@link fromResponsesItems} does, and
 * says which item each event came from (several items make one event when calls join the
 * assistant message before them).
 * @param items - the items as read
 * @returns the events and, for each, the position of the item it starts from
 * @example
 * ```ts
 * const { events, sources } = convertResponsesItems(items);
 * ```
 */
export function convertResponsesItems(items: readonly unknown[]): ChatEventConversion {
  const out: ChatEventConversion = { events: [], sources: [] };
  // the assistant message calls join while no other event came after it
  let assistant: JsonObject | undefined;
  let reasoning: string[] = [];
  // the item of the first reasoning not yet on a message
  let reasoningSource = -1;
  const push = (event: JsonObject, source: number) => {
    out.events.push(event);
    out.sources.push(source);
  };
  const openAssistant = (source: number): JsonObject => {
    if (assistant !== undefined) return assistant;
    const message: JsonObject = { role: 'assistant', content: null };
    push(message, source);
    assistant = message;
    takeReasoning(message);
    return message;
  };
  const takeReasoning = (message: JsonObject) => {
    if (reasoning.length === 0 || message.reasoning_content !== undefined) return;
    message.reasoning_content = reasoning.join('\n\n');
    reasoning = [];
    reasoningSource = -1;
  };
  const addCall = (call: JsonObject, source: number) => {
    const message = openAssistant(source);
    const calls = message.tool_calls;
    message.tool_calls = Array.isArray(calls) ? [...calls, call] : [call];
  };
  const addOutput = (output: JsonObject, source: number) => {
    push(output, source);
    assistant = undefined;
  };

  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!isRecord(item)) {
      push(item as JsonObject, i);
      assistant = undefined;
      continue;
    }
    const type = item.type;
    if (typeof item.role === 'string') {
      let event: JsonObject = item;
      if (type === 'message' || isMessageItem(item)) {
        const { type: _, ...rest } = item;
        event = { ...rest, content: chatContent(item.content) };
      } else if (item.role === 'assistant') {
        // calls and reasoning may join it: a copy, never the caller's object
        event = { ...item };
      }
      push(event, i);
      assistant = item.role === 'assistant' ? event : undefined;
      if (assistant !== undefined) takeReasoning(assistant);
      continue;
    }
    if (type === 'reasoning') {
      const text = reasoningText(item);
      if (text !== '') {
        if (reasoning.length === 0) reasoningSource = i;
        reasoning.push(text);
      }
      continue;
    }
    if (type === 'function_call' || type === 'custom_tool_call') {
      const id = callIdOf(item) ?? (typeof item.id === 'string' ? item.id : undefined);
      addCall(
        type === 'function_call'
          ? {
              id,
              type: 'function',
              function: { name: item.name, arguments: item.arguments ?? {} },
            }
          : { id, type: 'custom', custom: { name: item.name, input: item.input ?? '' } },
        i,
      );
      continue;
    }
    const hosted = openAIHostedToolCalls([item]);
    if (hosted.length > 0) {
      for (const call of hosted) {
        addCall(
          {
            id: call.id,
            type: type,
            function: { name: call.name, arguments: call.arguments ?? {} },
            provider_executed: true,
          },
          i,
        );
        const output: JsonObject = {
          role: 'tool',
          tool_call_id: call.id,
          content: call.output === undefined ? null : call.output,
          provider_executed: true,
        };
        if (call.isError === true) output.error = true;
        addOutput(output, i);
      }
      continue;
    }
    if (typeof type === 'string' && type.endsWith('_call_output')) {
      const output: JsonObject = {
        role: 'tool',
        tool_call_id: callIdOf(item),
        content: chatContent(item.output === undefined ? null : item.output),
      };
      if (item.status === 'failed' || item.status === 'incomplete') output.error = true;
      addOutput(output, i);
      continue;
    }
    if (typeof type === 'string' && type.endsWith('_call') && callIdOf(item) !== undefined) {
      // client-run tools other than functions: computer, local_shell, shell, apply_patch
      addCall(
        {
          id: callIdOf(item),
          type,
          function: { name: type.slice(0, -'_call'.length), arguments: otherCallArguments(item) },
        },
        i,
      );
      continue;
    }
    // anything else (an `item_reference`, an MCP tool list) is kept for the reader to report
    push(item, i);
    assistant = undefined;
  }
  // reasoning that no message followed (a run cut short) is an answer of its own
  if (reasoning.length > 0) {
    assistant = undefined;
    openAssistant(reasoningSource);
  }
  return out;
}

/**
 * Rewrites an OpenAI Responses API item list (a request's `input`, the OpenAI Agents SDK's
 * `to_input_list()`, or a response's `output` appended to them) into chat events that
 * {@link parseTrace}, the converters and policies read:
 * - message items (`{ type: 'message', role, content }` or `{ role, content }`) become events
 *   of their role, `input_text` / `output_text` parts text parts, `input_image` parts images;
 * - `function_call` items become tool calls (`id` the item's `call_id`, `function: { name,
 *   arguments }`) of the assistant message right before them, or of a new one (`content:
 *   null`); `custom_tool_call` items custom calls (`custom: { name, input }`); `computer_call`,
 *   `local_shell_call`, `shell_call`, `apply_patch_call` calls named `computer`, ...;
 * - `*_call_output` items (`function_call_output`, ...) become `role: 'tool'` outputs
 *   (`tool_call_id` their `call_id`, `content` their `output`);
 * - `reasoning` items become the `reasoning_content` (their summary texts, else their content,
 *   joined by a blank line) of the next assistant message (one of its own, `content: null`,
 *   when none follows);
 * - the hosted tools' items (`web_search_call`, `file_search_call`, `code_interpreter_call`,
 *   `image_generation_call`, `mcp_call`, ...) become a call and its output, both marked
 *   `provider_executed: true`, as the adapters record them.
 *
 * Other items are kept as they are (a reader then reports them). `parseTrace` applies this
 * itself to such a list, as `policy.check` does.
 *
 * @param input - the items, or an object with `input` (a request) or `output` (a response)
 * @returns the events
 * @throws TraceError `VALIDATION` when `input` is neither an array nor such an object
 * @example
 * ```ts
 * fromResponsesItems([
 *   { role: 'user', content: 'Inbox?' },
 *   { type: 'function_call', call_id: 'call_1', name: 'get_inbox', arguments: '{}' },
 *   { type: 'function_call_output', call_id: 'call_1', output: '2 emails' },
 * ]);
 * // [{ role: 'user', ... }, { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', ... }] },
 * //  { role: 'tool', tool_call_id: 'call_1', content: '2 emails' }]
 * ```
 */
export function fromResponsesItems(input: unknown): Record<string, unknown>[] {
  if (Array.isArray(input)) return convertResponsesItems(input).events;
  if (isRecord(input)) {
    const list = Array.isArray(input.input) ? input.input : input.output;
    if (Array.isArray(list)) return convertResponsesItems(list).events;
  }
  throw new TraceError({
    code: 'VALIDATION',
    message: `fromResponsesItems: pass the items array, or an object with an "input" or "output" array, got ${input === null ? 'null' : typeof input === 'object' ? 'an object without one' : `a ${typeof input}`}`,
    details: { path: '' },
  });
}
