import type {
  Block,
  ChatEvent,
  Content,
  ThinkBlock,
  ToolResultBlock,
  Trace,
} from '../model/index.js';
import { isContentPartList } from '../model/normalise-content.js';
import { assembleToolOutput } from '../stitching/assemble-tool-output.js';
import { compareBlocks, compareSequencedBlocks } from '../stitching/compare-blocks.js';
import { stitchBlocks } from '../stitching/stitch-blocks.js';
import type { StitchedToolCall } from '../stitching/types.js';
import { jsonTextOrNote } from '../text/json-text-or-note.js';
import {
  type BlockFields,
  blockFieldsKey,
  type EventBlockFields,
  type PieceFields,
  reasoningKey,
  reasoningSeparator,
  type ThinkFields,
} from './block-fields.js';
import { closestMessageRole } from './closest-message-role.js';
import { chatEventMetadataKey } from './events-to-blocks.js';

/** Options of {@link blocksToEvents}. */
export interface BlocksToEventsOptions {
  /**
   * The trace to convert; blocks of other traces are ignored.
   * @default the `trace_id` of the first block
   */
  traceId?: string;
  /**
   * How much of the blocks the events keep beyond the chat shape:
   * - `'lossless'`: THINK blocks as the message's `reasoning_content`, and under `tracewarden`
   *   (on the event or tool call) whatever else the chat shape cannot hold (block metadata,
   *   `raw`, `extra`, payload fields, non-text outputs, `delta` pieces, several thinks), so that
   *   `eventsToBlocks` gives back the same tree with fresh ids and times;
   * - `'exact'`: also each block's `id`, `trace_id`, `created_at`, `updated_at`, so that
   *   `eventsToBlocks` gives back the very blocks;
   * - `'chat'`: plain chat messages (no `reasoning_content`, no `tracewarden`), for replay to a
   *   provider that rejects unknown fields.
   * @default 'lossless'
   */
  fidelity?: 'chat' | 'lossless' | 'exact';
}

type JsonObject = Record<string, unknown>;
type Fidelity = NonNullable<BlocksToEventsOptions['fidelity']>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectOr(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

function chatEventOf(block: Block): JsonObject {
  return objectOr(objectOr(block.metadata)[chatEventMetadataKey]);
}

// A result output that is not chat content (an object, a number) is sent as its JSON text.
function toContent(output: unknown): Content {
  if (output === undefined || output === null) return null;
  if (typeof output === 'string') return output;
  // parts `parseTrace` reads back as content; any other list (the Assistants API's text parts
  // whose `text` is an object) as its JSON text, so what is written is read back
  if (isContentPartList(output)) return output as Content;
  return jsonTextOrNote(output);
}

function toArguments(value: unknown): JsonObject {
  if (isObject(value)) return value;
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      if (isObject(parsed)) return parsed;
    } catch {
      // not JSON: kept below as a value
    }
  }
  return value === undefined ? {} : { value };
}

function hasOnlyKeys(object: JsonObject, keys: readonly string[]): boolean {
  for (const key in object) if (!keys.includes(key)) return false;
  return true;
}

// The block's own fields that eventsToBlocks cannot rebuild; `payload` is set by the caller
// when the event cannot rebuild it either.
function fieldsOf(block: Block, fidelity: Fidelity): BlockFields {
  const fields: BlockFields = {};
  if (fidelity === 'exact') {
    fields.id = block.id;
    fields.created_at = block.created_at;
    fields.updated_at = block.updated_at;
  }
  if (isObject(block.metadata)) {
    const { [chatEventMetadataKey]: _chatEvent, ...metadata } = block.metadata;
    if (Object.keys(metadata).length > 0) fields.metadata = metadata;
  }
  if (block.raw !== null && block.raw !== undefined) fields.raw = block.raw;
  if (isObject(block.extra) && Object.keys(block.extra).length > 0) fields.extra = block.extra;
  return fields;
}

function isEmpty(fields: BlockFields): boolean {
  for (const _key in fields) return false;
  return true;
}

function withFields(event: JsonObject, fields: BlockFields, fidelity: Fidelity): JsonObject {
  if (fidelity !== 'chat' && !isEmpty(fields)) event[blockFieldsKey] = fields;
  return event;
}

interface Item {
  /** The block whose position (`created_at`, `id`) the event takes. */
  at: Block;
  event: JsonObject;
}

function toolEvent(result: Block, content: Content): JsonObject {
  const payload = objectOr(result.payload);
  const { tool_call_id: originalCallId, ...fields } = chatEventOf(result);
  const callId = typeof originalCallId === 'string' ? originalCallId : payload.call_id;
  return {
    ...fields,
    role: 'tool',
    content,
    ...(typeof callId === 'string' ? { tool_call_id: callId } : {}),
  };
}

function resultEvent(result: ToolResultBlock, fidelity: Fidelity): JsonObject {
  const payload = objectOr(result.payload);
  const content = toContent(payload.output);
  const fields = fieldsOf(result, fidelity);
  // eventsToBlocks rebuilds `{ call_id, output: content }`.
  if (
    !hasOnlyKeys(payload, ['call_id', 'output']) ||
    !('output' in payload) ||
    content !== payload.output ||
    typeof payload.call_id !== 'string'
  ) {
    fields.payload = payload;
  }
  return withFields(toolEvent(result, content), fields, fidelity);
}

// Delta pieces of one call, in order, become one tool output at the last piece's position.
function piecesItem(pieces: ToolResultBlock[], fidelity: Fidelity): Item {
  const last = pieces.reduce((latest, block) =>
    compareBlocks(block, latest) > 0 ? block : latest,
  );
  const output = assembleToolOutput(pieces);
  const event = toolEvent(last, toContent(output));
  if (fidelity !== 'chat') {
    const strings = typeof output === 'string';
    const recorded: PieceFields[] = pieces.map((piece) => {
      const payload = objectOr(piece.payload);
      const fields: PieceFields = fieldsOf(piece, fidelity);
      if (strings) {
        const { delta, ...rest } = payload;
        fields.length = (delta as string).length;
        fields.payload = rest;
      } else {
        fields.payload = payload;
      }
      return fields;
    });
    const fields: EventBlockFields = { pieces: recorded };
    event[blockFieldsKey] = fields;
  }
  return { at: last, event };
}

function toolCall(node: StitchedToolCall, fidelity: Fidelity): JsonObject {
  const block = node.block;
  const payload = objectOr(block.payload);
  const { function: functionFields, type, id, ...callFields } = chatEventOf(block);
  const call: JsonObject = {
    ...callFields,
    id: typeof id === 'string' ? id : payload.call_id,
    type: typeof type === 'string' ? type : 'function',
    function: {
      ...objectOr(functionFields),
      name: payload.name,
      arguments: toArguments(payload.arguments),
    },
  };
  const fields = fieldsOf(block, fidelity);
  // eventsToBlocks rebuilds `{ call_id, name, arguments }` from an object `arguments`.
  if (
    !hasOnlyKeys(payload, ['call_id', 'name', 'arguments']) ||
    typeof payload.call_id !== 'string' ||
    typeof payload.name !== 'string' ||
    !isObject(payload.arguments)
  ) {
    fields.payload = payload;
  }
  return withFields(call, fields, fidelity);
}

// THINK blocks as `reasoning_content`; their fields when the text alone cannot rebuild them.
function addThinks(
  event: JsonObject,
  fields: EventBlockFields,
  thinks: readonly ThinkBlock[],
  fidelity: Fidelity,
): void {
  if (thinks.length === 0 || fidelity === 'chat') return;
  const texts: string[] = [];
  const recorded: ThinkFields[] = [];
  let plain = thinks.length === 1;
  for (const think of thinks) {
    const payload = objectOr(think.payload);
    const text = typeof payload.text === 'string' ? payload.text : '';
    texts.push(text);
    const thinkFields: ThinkFields = { ...fieldsOf(think, fidelity), length: text.length };
    if (text === '' || !hasOnlyKeys(payload, ['text'])) thinkFields.payload = payload;
    if (Object.keys(thinkFields).length > 1) plain = false;
    recorded.push(thinkFields);
  }
  event[reasoningKey] = texts.join(reasoningSeparator);
  if (!plain) fields.thinks = recorded;
}

/**
 * Converts blocks back to a trace of chat events (OpenAI chat shape), the inverse of
 * `eventsToBlocks` both ways: `parseTrace(blocksToEvents(eventsToBlocks(t)))` equals `t`, and
 * `stitchBlocks(eventsToBlocks(blocksToEvents(blocks)))` has the tree of `stitchBlocks(blocks)`
 * (the very blocks with `fidelity: 'exact'`).
 *
 * Events are ordered by their block's `created_at`, then `id`. A MESSAGE becomes a message
 * (original role and fields restored from `metadata.chat_event`) with its TOOL_CALL blocks back
 * in `tool_calls` (by `seq`, `created_at`, `id`) and its THINK blocks as `reasoning_content`
 * (texts in order, joined by a blank line). Each TOOL_RESULT with an `output` becomes a
 * `role: 'tool'` event with `tool_call_id`; `delta` results of one call are assembled into one
 * event at the last piece's position. An output that is not chat content (an object, a number)
 * becomes its JSON text. A TOOL_CALL without a MESSAGE parent becomes an assistant message with
 * `content: null` holding it, a THINK without one an assistant message holding its reasoning.
 * What the chat shape cannot hold goes under `tracewarden` (see `options.fidelity`).
 *
 * @param blocks - blocks of one trace, in any order (others are ignored, see `options.traceId`)
 * @param options - which trace to convert, and how much to keep
 * @returns the trace
 * @example
 * ```ts
 * const events = blocksToEvents(tracer.blocks(), { fidelity: 'chat' });
 * await openai.chat.completions.create({ model, messages: events }); // replay
 * const same = eventsToBlocks(blocksToEvents(tracer.blocks(), { fidelity: 'exact' }));
 * ```
 */
export function blocksToEvents(
  blocks: readonly Block[],
  options: BlocksToEventsOptions = {},
): Trace {
  let traceId = options.traceId;
  if (traceId === undefined) {
    const first = blocks.find((block) => isObject(block));
    traceId = typeof first?.trace_id === 'string' ? first.trace_id : '';
  }
  const fidelity = options.fidelity ?? 'lossless';
  const tree = stitchBlocks(blocks, { traceId });
  const items: Item[] = [];

  const addResults = (results: readonly ToolResultBlock[]) => {
    const deltas = new Map<string, ToolResultBlock[]>();
    for (const result of results) {
      const payload = objectOr(result.payload);
      if (payload.output !== undefined || payload.delta === undefined) {
        items.push({ at: result, event: resultEvent(result, fidelity) });
        continue;
      }
      const key = `${String(result.parent_block_id)}\u0000${String(payload.call_id)}`;
      const group = deltas.get(key);
      if (group === undefined) deltas.set(key, [result]);
      else group.push(result);
    }
    for (const group of deltas.values()) {
      group.sort(compareSequencedBlocks);
      items.push(piecesItem(group, fidelity));
    }
  };
  const addCalls = (calls: readonly StitchedToolCall[]) => {
    for (const call of calls) addResults(call.results);
  };

  for (const message of tree.messages) {
    const block = message.block;
    const payload = objectOr(block.payload);
    const originalRole = chatEventOf(block).role;
    const role = typeof originalRole === 'string' ? originalRole : payload.role;
    const event: JsonObject = { ...payload, role };
    delete event[blockFieldsKey];
    const fields: EventBlockFields = fieldsOf(block, fidelity);
    // eventsToBlocks rebuilds the payload from the event, except for the fields it reads.
    const ownReasoning = payload[reasoningKey];
    if (
      blockFieldsKey in payload ||
      'tool_calls' in payload ||
      (reasoningKey in payload &&
        (message.thinks.length > 0 || (typeof ownReasoning === 'string' && ownReasoning !== ''))) ||
      typeof role !== 'string' ||
      closestMessageRole(role) !== payload.role
    ) {
      fields.payload = payload;
    }
    addThinks(event, fields, message.thinks, fidelity);
    if (message.tool_calls.length > 0) {
      event.tool_calls = message.tool_calls.map((call) => toolCall(call, fidelity));
    } else if (Array.isArray(chatEventOf(block).tool_calls)) {
      event.tool_calls = [];
    } else {
      delete event.tool_calls;
    }
    items.push({ at: block, event: withFields(event, fields, fidelity) });
    addCalls(message.tool_calls);
  }
  for (const call of tree.orphans.tool_calls) {
    items.push({
      at: call.block,
      event: { role: 'assistant', content: null, tool_calls: [toolCall(call, fidelity)] },
    });
    addCalls([call]);
  }
  addResults(tree.orphans.tool_results);
  for (const think of tree.orphans.thinks ?? []) {
    const event: JsonObject = { role: 'assistant', content: null };
    const fields: EventBlockFields = {};
    addThinks(event, fields, [think], fidelity);
    if (fidelity !== 'chat') items.push({ at: think, event: withFields(event, fields, fidelity) });
  }

  items.sort((a, b) => compareBlocks(a.at, b.at));
  return items.map(({ event }) => {
    if (fidelity === 'exact') {
      const fields = objectOr(event[blockFieldsKey]);
      event[blockFieldsKey] = { ...fields, trace_id: traceId };
    }
    return event as ChatEvent;
  });
}
