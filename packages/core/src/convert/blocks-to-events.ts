import type { Block, ChatEvent, Content, ToolResultBlock, Trace } from '../model/index.js';
import { assembleToolOutput } from '../stitching/assemble-tool-output.js';
import { compareBlocks, compareSequencedBlocks } from '../stitching/compare-blocks.js';
import { chatEventMetadataKey } from './events-to-blocks.js';

/** Options of {@link blocksToEvents}. */
export interface BlocksToEventsOptions {
  /**
   * The trace to convert; blocks of other traces are ignored.
   * @default the `trace_id` of the first block
   */
  traceId?: string;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectOr(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

function chatEventOf(block: Block): JsonObject {
  return objectOr(objectOr(block.metadata)[chatEventMetadataKey]);
}

function isContentPart(value: unknown): boolean {
  return isObject(value) && typeof value.type === 'string';
}

// A result output that is not chat content (an object, a number) is sent as its JSON text.
function toContent(output: unknown): Content {
  if (output === undefined || output === null) return null;
  if (typeof output === 'string') return output;
  if (Array.isArray(output) && output.every(isContentPart)) return output as Content;
  try {
    return JSON.stringify(output) ?? String(output);
  } catch {
    return String(output);
  }
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

function without(object: JsonObject, keys: readonly string[]): JsonObject {
  const rest: JsonObject = { ...object };
  for (const key of keys) delete rest[key];
  return rest;
}

interface Item {
  /** The block whose position (`created_at`, `id`) the event takes. */
  at: Block;
  event: JsonObject;
  calls?: Block[];
}

function toolEvent(result: Block, content: Content): JsonObject {
  const payload = objectOr(result.payload);
  const { tool_call_id: originalCallId, ...fields } = chatEventOf(result);
  const callId = typeof originalCallId === 'string' ? originalCallId : payload.call_id;
  return {
    ...fields,
    ...without(payload, ['call_id', 'output', 'delta', 'seq']),
    role: 'tool',
    content,
    ...(typeof callId === 'string' ? { tool_call_id: callId } : {}),
  };
}

function toolCall(block: Block): JsonObject {
  const payload = objectOr(block.payload);
  const { function: functionFields, type, id, ...callFields } = chatEventOf(block);
  return {
    ...callFields,
    ...without(payload, ['call_id', 'name', 'arguments']),
    id: typeof id === 'string' ? id : payload.call_id,
    type: typeof type === 'string' ? type : 'function',
    function: {
      ...objectOr(functionFields),
      name: payload.name,
      arguments: toArguments(payload.arguments),
    },
  };
}

/**
 * Converts blocks back to a trace of chat events (OpenAI chat shape), the inverse of
 * `eventsToBlocks`: `parseTrace(blocksToEvents(eventsToBlocks(trace)))` equals `trace`.
 *
 * Events are ordered by their block's `created_at`, then `id`. A MESSAGE becomes a message
 * (original role and fields restored from `metadata.chat_event`) with its TOOL_CALL blocks back
 * in `tool_calls` (by `seq`, `created_at`, `id`). Each TOOL_RESULT with an `output` becomes a
 * `role: 'tool'` event with `tool_call_id`; `delta` results of one call are assembled into one
 * event at the last piece's position. An output that is not chat content (an object, a number)
 * becomes its JSON text. A TOOL_CALL without a MESSAGE parent becomes an assistant message with
 * `content: null` holding it. THINK blocks have no chat-event form and are left out.
 *
 * @param blocks - blocks of one trace, in any order (others are ignored, see `options.traceId`)
 * @param options - which trace to convert
 * @returns the trace
 * @example
 * ```ts
 * const events = blocksToEvents(tracer.blocks());
 * await openai.chat.completions.create({ model, messages: events }); // replay
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
  const messageItems = new Map<string, Item>();
  const items: Item[] = [];
  const calls: Block[] = [];
  const deltasByCall = new Map<string, ToolResultBlock[]>();

  for (const block of blocks) {
    if (!isObject(block) || block.trace_id !== traceId) continue;
    if (block.sub_type === 'MESSAGE') {
      const payload = objectOr(block.payload);
      const originalRole = chatEventOf(block).role;
      const event: JsonObject = {
        ...payload,
        role: typeof originalRole === 'string' ? originalRole : payload.role,
      };
      const item: Item = { at: block, event, calls: [] };
      items.push(item);
      if (!messageItems.has(block.id)) messageItems.set(block.id, item);
    } else if (block.sub_type === 'TOOL_CALL') {
      calls.push(block);
    } else if (block.sub_type === 'TOOL_RESULT') {
      const payload = objectOr(block.payload);
      if (payload.output !== undefined || payload.delta === undefined) {
        items.push({ at: block, event: toolEvent(block, toContent(payload.output)) });
      } else {
        const key = `${String(block.parent_block_id)}\u0000${String(payload.call_id)}`;
        const group = deltasByCall.get(key);
        if (group === undefined) deltasByCall.set(key, [block]);
        else group.push(block);
      }
    }
  }

  for (const call of calls) {
    const parent = messageItems.get(call.parent_block_id as string);
    if (parent?.calls !== undefined) parent.calls.push(call);
    else items.push({ at: call, event: { role: 'assistant', content: null }, calls: [call] });
  }
  for (const group of deltasByCall.values()) {
    group.sort(compareSequencedBlocks);
    const last = group.reduce((latest, block) =>
      compareBlocks(block, latest) > 0 ? block : latest,
    );
    items.push({ at: last, event: toolEvent(last, toContent(assembleToolOutput(group))) });
  }

  items.sort((a, b) => compareBlocks(a.at, b.at));
  return items.map(({ at, event, calls: itemCalls }) => {
    if (itemCalls !== undefined && itemCalls.length > 0) {
      itemCalls.sort(compareSequencedBlocks);
      event.tool_calls = itemCalls.map(toolCall);
    } else if (itemCalls !== undefined && Array.isArray(chatEventOf(at).tool_calls)) {
      event.tool_calls = [];
    }
    return event as ChatEvent;
  });
}
