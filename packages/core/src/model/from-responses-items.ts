/**
 * OpenAI's Responses API (and the OpenAI Agents SDK's `to_input_list()`) keeps a conversation as
 * a list of items: messages (`{ type: 'message', role, content: [{ type: 'input_text' }] }` or
 * the easy `{ role, content }`), and, beside them, `function_call` / `function_call_output`
 * items, `reasoning` items and the hosted tools' calls. The chat-event model (seed 000) reads
 * calls from an assistant message's `tool_calls` and outputs from `role: "tool"` events, so such
 * a list is rewritten into that shape before it is read.
 */

import { blockFieldsKey } from '../convert/block-fields.js';
import { TraceError } from '../errors/index.js';
import { openAIHostedToolCalls } from '../recording/openai-hosted-tool-calls.js';
import { isRecord } from '../validation/is-record.js';
import type { ChatEventConversion } from './from-anthropic-messages.js';
import {
  keepInBlockMetadata,
  keepReasoningItems,
  providerItemsMetadataKey,
} from './reasoning-items.js';

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

/**
 * The fields of an item its chat event does not hold in its own shape, to ride on that event
 * (and so in its block's `metadata.chat_event`): all but `type`, `call_id` and the `used` keys,
 * with the item's own `id` (`fc_...`, `ctc_...`, `cu_...`) as `item_id` unless it is the event's
 * call id already.
 */
function itemExtras(item: JsonObject, used: readonly string[], callId: unknown): JsonObject {
  const extras: JsonObject = {};
  for (const key of Object.keys(item)) {
    if (key === 'type' || key === 'id' || key === 'call_id' || used.includes(key)) continue;
    extras[key] = item[key];
  }
  if (item.id !== undefined && item.id !== callId) extras.item_id = item.id;
  return extras;
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

/**
 * A reasoning item read: its text (its summary's, else its content's, joined by a blank line)
 * and the item without `type` and the list that text came from (nor an empty list), or
 * `undefined` when nothing else is left.
 */
function readReasoning(item: JsonObject): { text: string; kept: JsonObject | undefined } {
  const pieces: string[] = [];
  let source: string | undefined;
  for (const key of ['summary', 'content']) {
    const list = item[key];
    if (!Array.isArray(list)) continue;
    for (const part of list)
      if (isRecord(part) && typeof part.text === 'string' && part.text !== '')
        pieces.push(part.text);
    if (pieces.length > 0) {
      source = key;
      break;
    }
  }
  const kept: JsonObject = {};
  for (const key of Object.keys(item)) {
    const value = item[key];
    if (key === 'type' || key === source) continue;
    if ((key === 'summary' || key === 'content') && Array.isArray(value) && value.length === 0)
      continue;
    kept[key] = value;
  }
  return {
    text: pieces.join('\n\n'),
    kept: Object.keys(kept).length === 0 ? undefined : kept,
  };
}

/**
 * The arguments of a client-run call other than a function's (`action`, `operation`, `input`),
 * and the key they were read from.
 */
function otherCallArguments(item: JsonObject): { key: string | undefined; value: unknown } {
  for (const key of ['arguments', 'action', 'operation', 'input']) {
    const value = item[key];
    if (isRecord(value) || typeof value === 'string') return { key, value };
  }
  return { key: undefined, value: {} };
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
  // the reasoning items (without their text) not yet on a message: their ids, encrypted content
  let reasoningItems: JsonObject[] = [];
  // the item of the first reasoning not yet on a message
  let reasoningSource = -1;
  // items no event holds (`item_reference`, MCP approvals), kept on the next event
  let providerItems: JsonObject[] = [];
  const push = (event: JsonObject, source: number) => {
    out.events.push(event);
    out.sources.push(source);
    if (
      providerItems.length > 0 &&
      isRecord(event) &&
      keepInBlockMetadata(event, providerItemsMetadataKey, providerItems)
    )
      providerItems = [];
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
    if (reasoningSource < 0 || message.reasoning_content !== undefined) return;
    // a field of ours that is no object (a user's) is not overwritten: the next message takes it
    const fields = message[blockFieldsKey];
    if (reasoningItems.length > 0 && fields !== undefined && !isRecord(fields)) return;
    if (reasoning.length > 0) message.reasoning_content = reasoning.join('\n\n');
    if (reasoningItems.length > 0) keepReasoningItems(message, reasoningItems);
    reasoning = [];
    reasoningItems = [];
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
    if (
      type === 'item_reference' ||
      type === 'mcp_approval_request' ||
      type === 'mcp_approval_response'
    ) {
      providerItems.push(item);
      continue;
    }
    if (type === 'reasoning') {
      const { text, kept } = readReasoning(item);
      if (text === '' && kept === undefined) continue;
      if (reasoningSource < 0) reasoningSource = i;
      if (text !== '') reasoning.push(text);
      if (kept !== undefined) reasoningItems.push(kept);
      continue;
    }
    if (type === 'function_call' || type === 'custom_tool_call') {
      const id = callIdOf(item) ?? (typeof item.id === 'string' ? item.id : undefined);
      addCall(
        type === 'function_call'
          ? {
              ...itemExtras(item, ['name', 'arguments'], id),
              id,
              type: 'function',
              function: { name: item.name, arguments: item.arguments ?? {} },
            }
          : {
              ...itemExtras(item, ['name', 'input'], id),
              id,
              type: 'custom',
              custom: { name: item.name, input: item.input ?? '' },
            },
        i,
      );
      continue;
    }
    const hosted = openAIHostedToolCalls([item]);
    if (hosted.length > 0) {
      for (const call of hosted) {
        // the item's id when the call goes by another (a hosted shell call's `call_id`), and an
        // MCP call's fields that are neither its input nor its output (`server_label`, ...)
        const extras: JsonObject =
          type === 'mcp_call'
            ? itemExtras(item, ['name', 'arguments', 'output', 'error'], call.id)
            : item.id !== undefined && item.id !== call.id
              ? { item_id: item.id }
              : {};
        addCall(
          {
            ...extras,
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
      const callId = callIdOf(item);
      const output: JsonObject = {
        ...itemExtras(item, ['output'], callId),
        role: 'tool',
        tool_call_id: callId,
        content: chatContent(item.output === undefined ? null : item.output),
      };
      if (item.status === 'failed' || item.status === 'incomplete') output.error = true;
      addOutput(output, i);
      continue;
    }
    if (typeof type === 'string' && type.endsWith('_call') && callIdOf(item) !== undefined) {
      // client-run tools other than functions: computer, local_shell, shell, apply_patch
      const id = callIdOf(item);
      const args = otherCallArguments(item);
      addCall(
        {
          ...itemExtras(item, args.key === undefined ? [] : [args.key], id),
          id,
          type,
          function: { name: type.slice(0, -'_call'.length), arguments: args.value },
        },
        i,
      );
      continue;
    }
    // anything else (an MCP tool list, an item type not known here) is kept for the reader
    push(item, i);
    assistant = undefined;
  }
  // reasoning that no message followed (a run cut short) is an answer of its own
  if (reasoningSource >= 0) {
    assistant = undefined;
    openAssistant(reasoningSource);
  }
  // items no event followed: on the last event
  const last = out.events[out.events.length - 1];
  if (providerItems.length > 0 && isRecord(last))
    keepInBlockMetadata(last, providerItemsMetadataKey, providerItems);
  return out;
}

/**
 * Rewrites an OpenAI Responses API item list (a request's `input`, the OpenAI Agents SDK's
 * `to_input_list()`, or a response's `output` appended to them) into chat events that
 * {@link parseTrace}, the converters and policies read:
 * - message items (`{ type: 'message', role, content }` or `{ role, content }`) become events
 *   of their role, `input_text` / `output_text` parts text parts, `input_image` parts images;
 *   their other fields (`id: 'msg_...'`, `status`) stay on the event, as on any chat event;
 * - `function_call` items become tool calls (`id` the item's `call_id`, `function: { name,
 *   arguments }`) of the assistant message right before them, or of a new one (`content:
 *   null`); `custom_tool_call` items custom calls (`custom: { name, input }`); `computer_call`,
 *   `local_shell_call`, `shell_call`, `apply_patch_call` calls named `computer`, ...;
 * - `*_call_output` items (`function_call_output`, ...) become `role: 'tool'` outputs
 *   (`tool_call_id` their `call_id`, `content` their `output`);
 * - a call or output item's own `id` (`fc_...`) becomes `item_id` on its call or output (unless
 *   it is the call id already), and its other fields (`status`, ...) stay on it too: blocks keep
 *   them in `metadata.chat_event`, as they keep an Anthropic call part's other fields;
 * - `reasoning` items become the `reasoning_content` (their summary texts, else their content,
 *   joined by a blank line) of the next assistant message (one of its own, `content: null`,
 *   when none follows); what else they hold (`id: 'rs_...'`, `encrypted_content`, a reasoning
 *   item with no text) is kept, in order and without the text, in that message's block metadata:
 *   the event's `tracewarden.metadata.reasoning_items`, which `eventsToBlocks` makes the
 *   MESSAGE block's `metadata.reasoning_items`;
 * - the hosted tools' items (`web_search_call`, `file_search_call`, `code_interpreter_call`,
 *   `image_generation_call`, `mcp_call`, ...) become a call (`id` the item's) and its output,
 *   both marked `provider_executed: true`, as the adapters record them.
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
