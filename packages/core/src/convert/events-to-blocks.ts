import type {
  Block,
  ChatEvent,
  IdGenerator,
  MessageBlock,
  ToolCall,
  ToolCallBlock,
  ToolResultBlock,
  Trace,
} from '../model/index.js';
import { createIdGenerator } from '../model/index.js';
import { closestMessageRole } from './closest-message-role.js';

/** Options of {@link eventsToBlocks}. */
export interface EventsToBlocksOptions {
  /**
   * The blocks' `trace_id`.
   * @default a new id from `ids.traceId()`
   */
  traceId?: string;
  /**
   * Source of block (and, by default, trace) ids.
   * @default createIdGenerator()
   */
  ids?: IdGenerator;
  /**
   * Time of the first block in milliseconds since the epoch; block `k` is created at
   * `startTime + k` ms so that `created_at` is strictly increasing in event order.
   * @default Date.now()
   */
  startTime?: number;
}

type JsonObject = Record<string, unknown>;

/** Key of block metadata holding what of the chat event the payload does not. */
export const chatEventMetadataKey = 'chat_event';

function withChatEvent(fields: JsonObject): Record<string, unknown> {
  return Object.keys(fields).length === 0 ? {} : { [chatEventMetadataKey]: fields };
}

/**
 * Converts a normalised trace (see `parseTrace`) to valid blocks, losslessly.
 *
 * - A message becomes a MESSAGE block whose payload is the event without `tool_calls`. A role
 *   other than `system`, `user`, `assistant` is replaced by {@link closestMessageRole} and the
 *   original kept as `metadata.chat_event.role`; an empty `tool_calls: []` is kept as
 *   `metadata.chat_event.tool_calls`.
 * - Each tool call becomes a TOOL_CALL block under its message, payload
 *   `{ call_id: id, name, arguments }`; its other fields (a `type` other than `'function'`,
 *   unknown keys, unknown `function` keys) go to `metadata.chat_event` in the call's own shape.
 *   A call id used again later in the trace gets a fresh `call_id` (`<id>_2`, ...) so that the
 *   blocks pass DUPLICATE_CALL_ID; the original is kept as `metadata.chat_event.id`.
 * - A tool output (`role: 'tool'`) whose `tool_call_id` names a call of the trace becomes a
 *   TOOL_RESULT block under that call (the most recent one before it when an id repeats),
 *   payload `{ call_id, output: content }`, other fields in `metadata.chat_event`. A tool output
 *   answering no call cannot be a valid TOOL_RESULT: it becomes a MESSAGE block like any other
 *   unknown role (`user`, original role kept), so nothing is lost and every block is valid.
 *
 * See contributing/decisions/003-lossless-conversion.md; `blocksToEvents` is the way back.
 *
 * @param trace - a normalised trace
 * @param options - trace id, id generator and start time
 * @returns the blocks in event order (a message, then its tool calls)
 * @example
 * ```ts
 * const blocks = eventsToBlocks(parseTrace(json), { traceId: 'tr_demo', startTime: 0 });
 * blocks.map((b) => b.sub_type); // ['MESSAGE', 'MESSAGE', 'TOOL_CALL', 'TOOL_RESULT', ...]
 * ```
 */
export function eventsToBlocks(trace: Trace, options: EventsToBlocksOptions = {}): Block[] {
  const ids = options.ids ?? createIdGenerator();
  const traceId = options.traceId ?? ids.traceId();
  const startTime = options.startTime ?? Date.now();

  // Ids first, so that an output may answer a call that appears after it. A call id repeated
  // in the trace would be a DUPLICATE_CALL_ID among blocks: later repeats get a fresh block
  // call id and keep the original in metadata.
  const originalCallIds = new Set<string>();
  for (const event of trace) {
    for (const call of (event as { tool_calls?: ToolCall[] }).tool_calls ?? []) {
      originalCallIds.add(call.id);
    }
  }
  const usedCallIds = new Set<string>();
  const eventBlockIds: string[] = new Array(trace.length);
  const callBlocks: { blockId: string; callId: string }[][] = new Array(trace.length);
  const callsById = new Map<string, { eventIndex: number; blockId: string; callId: string }[]>();
  for (let i = 0; i < trace.length; i++) {
    const event = trace[i] as ChatEvent;
    eventBlockIds[i] = ids.blockId();
    const calls = (event as { tool_calls?: ToolCall[] }).tool_calls ?? [];
    const made: { blockId: string; callId: string }[] = new Array(calls.length);
    for (let j = 0; j < calls.length; j++) {
      const original = (calls[j] as ToolCall).id;
      let callId = original;
      if (usedCallIds.has(callId)) {
        for (let k = 2; originalCallIds.has(callId) || usedCallIds.has(callId); k++) {
          callId = `${original}_${k}`;
        }
      }
      usedCallIds.add(callId);
      const call = { blockId: ids.blockId(), callId };
      made[j] = call;
      const seen = callsById.get(original);
      if (seen === undefined) callsById.set(original, [{ eventIndex: i, ...call }]);
      else seen.push({ eventIndex: i, ...call });
    }
    callBlocks[i] = made;
  }
  const answeredCall = (eventIndex: number, callId: unknown) => {
    if (typeof callId !== 'string') return undefined;
    const seen = callsById.get(callId);
    if (seen === undefined) return undefined;
    let found = seen[0];
    for (const call of seen) if (call.eventIndex < eventIndex) found = call;
    return found;
  };

  const blocks: Block[] = [];
  let tick = 0;
  const nextTime = () => new Date(startTime + tick++).toISOString();

  for (let i = 0; i < trace.length; i++) {
    const event = trace[i] as ChatEvent & JsonObject;
    const id = eventBlockIds[i] as string;
    const { role, tool_calls: rawToolCalls, ...rest } = event;
    const toolCalls = rawToolCalls as ToolCall[] | undefined;
    const parentCall =
      role === 'tool' && toolCalls === undefined ? answeredCall(i, event.tool_call_id) : undefined;
    const createdAt = nextTime();
    if (parentCall !== undefined) {
      const { content, tool_call_id: callId, ...fields } = rest;
      if (parentCall.callId !== callId) fields.tool_call_id = callId;
      const result: ToolResultBlock = {
        id,
        trace_id: traceId,
        block_type: 'OBSERVE',
        sub_type: 'TOOL_RESULT',
        payload: { call_id: parentCall.callId, output: content },
        parent_block_id: parentCall.blockId,
        metadata: withChatEvent(fields),
        raw: null,
        extra: {},
        created_at: createdAt,
        updated_at: createdAt,
      };
      blocks.push(result);
      continue;
    }
    const blockRole = closestMessageRole(role);
    const chatEvent: JsonObject = {};
    if (blockRole !== role) chatEvent.role = role;
    if (toolCalls !== undefined && toolCalls.length === 0) chatEvent.tool_calls = [];
    const message: MessageBlock = {
      id,
      trace_id: traceId,
      block_type: 'MESSAGE',
      sub_type: 'MESSAGE',
      payload: { ...rest, role: blockRole } as MessageBlock['payload'],
      parent_block_id: null,
      metadata: withChatEvent(chatEvent),
      raw: null,
      extra: {},
      created_at: createdAt,
      updated_at: createdAt,
    };
    blocks.push(message);
    const calls = toolCalls ?? [];
    for (let j = 0; j < calls.length; j++) {
      const call = calls[j] as ToolCall;
      const { id: callId, type, function: fn, ...callFields } = call;
      const { name, arguments: args, ...functionFields } = fn;
      const made = callBlocks[i]?.[j] as { blockId: string; callId: string };
      const fields: JsonObject = { ...callFields };
      if (made.callId !== callId) fields.id = callId;
      if (type !== 'function') fields.type = type;
      if (Object.keys(functionFields).length > 0) fields.function = functionFields;
      const callCreatedAt = nextTime();
      const block: ToolCallBlock = {
        id: made.blockId,
        trace_id: traceId,
        block_type: 'ACT',
        sub_type: 'TOOL_CALL',
        payload: { call_id: made.callId, name, arguments: args },
        parent_block_id: id,
        metadata: withChatEvent(fields),
        raw: null,
        extra: {},
        created_at: callCreatedAt,
        updated_at: callCreatedAt,
      };
      blocks.push(block);
    }
  }
  return blocks;
}
