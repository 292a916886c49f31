import { formatIsoTimestamp } from '../model/format-iso-timestamp.js';
import type {
  Block,
  ChatEvent,
  IdGenerator,
  MessageBlock,
  ThinkBlock,
  ToolCall,
  ToolCallBlock,
  ToolResultBlock,
  Trace,
} from '../model/index.js';
import { createIdGenerator } from '../model/index.js';
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

/** Options of {@link eventsToBlocks}. */
export interface EventsToBlocksOptions {
  /**
   * The blocks' `trace_id`.
   * @default the one recorded under `tracewarden` (see `blocksToEvents`), else a new id from
   * `ids.traceId()`
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

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// What `blocksToEvents` recorded under `tracewarden`; fields of the wrong type are ignored.
function blockFieldsOf(value: unknown): EventBlockFields {
  if (!isObject(value)) return {};
  const fields: EventBlockFields = {};
  for (const key of ['id', 'trace_id', 'created_at', 'updated_at'] as const) {
    if (typeof value[key] === 'string' && value[key] !== '') fields[key] = value[key];
  }
  for (const key of ['payload', 'metadata', 'extra'] as const) {
    if (isObject(value[key])) fields[key] = value[key];
  }
  if (value.raw !== undefined) fields.raw = value.raw;
  if (Array.isArray(value.thinks)) {
    fields.thinks = value.thinks.map((think) => ({
      ...blockFieldsOf(think),
      length: isObject(think) && typeof think.length === 'number' ? think.length : -1,
    }));
  }
  if (Array.isArray(value.pieces)) {
    fields.pieces = value.pieces.map((piece) => {
      const out: PieceFields = blockFieldsOf(piece);
      if (isObject(piece) && typeof piece.length === 'number') out.length = piece.length;
      return out;
    });
  }
  return fields;
}

type MutableBlock = { -readonly [K in keyof Block]: Block[K] };

// A block from what the event gives, then what `tracewarden` recorded on top.
function makeBlock(
  base: Omit<MutableBlock, 'metadata' | 'raw' | 'extra' | 'updated_at'>,
  chatEvent: JsonObject,
  fields: BlockFields,
): MutableBlock {
  const block = {
    ...base,
    metadata: { ...fields.metadata, ...withChatEvent(chatEvent) },
    raw: fields.raw ?? null,
    extra: fields.extra ?? {},
    updated_at: fields.updated_at ?? base.created_at,
  } as MutableBlock;
  if (fields.id !== undefined) block.id = fields.id;
  if (fields.created_at !== undefined) {
    block.created_at = fields.created_at;
    block.updated_at = fields.updated_at ?? fields.created_at;
  }
  if (fields.payload !== undefined) block.payload = fields.payload as Block['payload'];
  return block;
}

// Splits `reasoning_content` back into its THINK texts when the recorded lengths fit it.
function splitReasoning(text: string, thinks: readonly ThinkFields[] | undefined): string[] {
  if (thinks === undefined || thinks.length === 0) return [text];
  const texts: string[] = [];
  let at = 0;
  for (let k = 0; k < thinks.length; k++) {
    const length = (thinks[k] as ThinkFields).length;
    if (length < 0 || at + length > text.length) return [text];
    texts.push(text.slice(at, at + length));
    at += length;
    if (k < thinks.length - 1) {
      if (!text.startsWith(reasoningSeparator, at)) return [text];
      at += reasoningSeparator.length;
    }
  }
  return at === text.length ? texts : [text];
}

// Splits an assembled tool output back into its delta pieces when the recorded lengths fit it.
function splitPieces(content: unknown, pieces: readonly PieceFields[]): unknown[] | undefined {
  const deltas: unknown[] = [];
  let at = 0;
  let sliced = false;
  for (const piece of pieces) {
    if (piece.length === undefined) {
      const payload = piece.payload;
      if (payload === undefined || !('delta' in payload)) return undefined;
      deltas.push(payload.delta);
      continue;
    }
    if (typeof content !== 'string' || at + piece.length > content.length) return undefined;
    deltas.push(content.slice(at, at + piece.length));
    at += piece.length;
    sliced = true;
  }
  return sliced && at !== (content as string).length ? undefined : deltas;
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
 *   payload `{ call_id, output: content }`, other fields in `metadata.chat_event`; when the
 *   message holds several calls with that id (servers that number the calls of each answer),
 *   their outputs are taken in the calls' order. A tool output
 *   answering no call cannot be a valid TOOL_RESULT: it becomes a MESSAGE block like any other
 *   unknown role (`user`, original role kept), so nothing is lost and every block is valid.
 * - A message's `reasoning_content` (a non-empty string) becomes THINK blocks under its MESSAGE,
 *   after it and before its tool calls: one, or those recorded under `tracewarden.thinks`.
 * - What `blocksToEvents` recorded under `tracewarden` (on an event or a tool call) is put back:
 *   ids, trace id and times (`fidelity: 'exact'`), payloads, metadata, `raw`, `extra`, and the
 *   `delta` pieces of an assembled tool output.
 *
 * See contributing/decisions/003-lossless-conversion.md; `blocksToEvents` is the way back.
 *
 * @param trace - a normalised trace
 * @param options - trace id, id generator and start time
 * @returns the blocks in event order (a message, its thinks, then its tool calls)
 * @example
 * ```ts
 * const blocks = eventsToBlocks(parseTrace(json), { traceId: 'tr_demo', startTime: 0 });
 * blocks.map((b) => b.sub_type); // ['MESSAGE', 'MESSAGE', 'TOOL_CALL', 'TOOL_RESULT', ...]
 * ```
 */
export function eventsToBlocks(trace: Trace, options: EventsToBlocksOptions = {}): Block[] {
  const ids = options.ids ?? createIdGenerator();
  const recordedTraceId =
    trace.length > 0 ? blockFieldsOf((trace[0] as JsonObject)[blockFieldsKey]).trace_id : undefined;
  const traceId = options.traceId ?? recordedTraceId ?? ids.traceId();
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
    const event = trace[i] as ChatEvent & JsonObject;
    eventBlockIds[i] = blockFieldsOf(event[blockFieldsKey]).id ?? ids.blockId();
    const calls = (event as { tool_calls?: ToolCall[] }).tool_calls ?? [];
    const made: { blockId: string; callId: string }[] = new Array(calls.length);
    for (let j = 0; j < calls.length; j++) {
      const original = (calls[j] as ToolCall).id;
      const callFields = blockFieldsOf((calls[j] as ToolCall & JsonObject)[blockFieldsKey]);
      const recordedCallId = callFields.payload?.call_id;
      let callId = original;
      if (typeof recordedCallId === 'string') {
        callId = recordedCallId;
      } else if (usedCallIds.has(callId)) {
        for (let k = 2; originalCallIds.has(callId) || usedCallIds.has(callId); k++) {
          callId = `${original}_${k}`;
        }
      }
      usedCallIds.add(callId);
      const call = { blockId: callFields.id ?? ids.blockId(), callId };
      made[j] = call;
      const seen = callsById.get(original);
      if (seen === undefined) callsById.set(original, [{ eventIndex: i, ...call }]);
      else seen.push({ eventIndex: i, ...call });
    }
    callBlocks[i] = made;
  }
  // block call ids that an output has answered so far
  const answered = new Set<string>();
  const answeredCall = (eventIndex: number, callId: unknown) => {
    if (typeof callId !== 'string') return undefined;
    const seen = callsById.get(callId);
    if (seen === undefined) return undefined;
    if (seen.length === 1) return seen[0];
    // the calls with this id of the latest message before the output (else of the first one):
    // parallel calls sharing an id are answered in their order, then the last one again
    let message = (seen[0] as { eventIndex: number }).eventIndex;
    for (const call of seen) if (call.eventIndex < eventIndex) message = call.eventIndex;
    let last: (typeof seen)[number] | undefined;
    for (const call of seen) {
      if (call.eventIndex !== message) continue;
      if (!answered.has(call.callId)) return call;
      last = call;
    }
    return last;
  };

  const blocks: Block[] = [];
  let tick = 0;
  const nextTime = () => formatIsoTimestamp(startTime + tick++);

  for (let i = 0; i < trace.length; i++) {
    const event = trace[i] as ChatEvent & JsonObject;
    const id = eventBlockIds[i] as string;
    const {
      role,
      tool_calls: rawToolCalls,
      [blockFieldsKey]: recorded,
      ...rest
    } = event as JsonObject & { role: string };
    const fields = blockFieldsOf(recorded);
    const toolCalls = rawToolCalls as ToolCall[] | undefined;
    // a tool message with an empty `tool_calls` (some exporters write it on every message) is
    // still a tool output; the empty list rides with its other fields
    const noCalls = toolCalls === undefined || (Array.isArray(toolCalls) && toolCalls.length === 0);
    const parentCall = role === 'tool' && noCalls ? answeredCall(i, event.tool_call_id) : undefined;
    const createdAt = nextTime();
    if (parentCall !== undefined) {
      answered.add(parentCall.callId);
      const { content, tool_call_id: callId, ...chatEvent } = rest;
      if (parentCall.callId !== callId) chatEvent.tool_call_id = callId;
      if (toolCalls !== undefined) chatEvent.tool_calls = [];
      const base = {
        trace_id: traceId,
        block_type: 'OBSERVE',
        sub_type: 'TOOL_RESULT',
        parent_block_id: parentCall.blockId,
      } as const;
      const deltas = fields.pieces === undefined ? undefined : splitPieces(content, fields.pieces);
      if (fields.pieces === undefined || deltas === undefined) {
        const result = makeBlock(
          {
            ...base,
            id,
            payload: { call_id: parentCall.callId, output: content },
            created_at: createdAt,
          },
          chatEvent,
          fields,
        );
        blocks.push(result as ToolResultBlock);
        continue;
      }
      // Delta pieces: the event's own fields (chat_event) belong to the last one.
      for (let k = 0; k < fields.pieces.length; k++) {
        const piece = fields.pieces[k] as PieceFields;
        const last = k === fields.pieces.length - 1;
        const payload = { ...piece.payload, call_id: parentCall.callId, delta: deltas[k] };
        if (piece.payload !== undefined && typeof piece.payload.call_id === 'string') {
          payload.call_id = piece.payload.call_id;
        }
        const { length: _length, payload: _payload, ...pieceFields } = piece;
        const result = makeBlock(
          {
            ...base,
            id: piece.id ?? (last ? id : ids.blockId()),
            payload,
            created_at: k === 0 ? createdAt : nextTime(),
          },
          last ? chatEvent : {},
          pieceFields,
        );
        blocks.push(result as ToolResultBlock);
      }
      continue;
    }
    const blockRole = closestMessageRole(role);
    const chatEvent: JsonObject = {};
    if (blockRole !== role) chatEvent.role = role;
    if (toolCalls !== undefined && toolCalls.length === 0) chatEvent.tool_calls = [];
    const reasoning = rest[reasoningKey];
    const thinkTexts =
      typeof reasoning === 'string' && reasoning !== ''
        ? splitReasoning(reasoning, fields.thinks)
        : undefined;
    if (thinkTexts !== undefined) delete rest[reasoningKey];
    const message = makeBlock(
      {
        id,
        trace_id: traceId,
        block_type: 'MESSAGE',
        sub_type: 'MESSAGE',
        payload: { ...rest, role: blockRole } as MessageBlock['payload'],
        parent_block_id: null,
        created_at: createdAt,
      },
      chatEvent,
      fields,
    );
    blocks.push(message as MessageBlock);
    if (thinkTexts !== undefined) {
      const recordedThinks =
        thinkTexts.length === fields.thinks?.length ? fields.thinks : undefined;
      for (let k = 0; k < thinkTexts.length; k++) {
        const { length: _length, ...thinkFields } = recordedThinks?.[k] ?? { length: 0 };
        const think = makeBlock(
          {
            id: thinkFields.id ?? ids.blockId(),
            trace_id: message.trace_id,
            block_type: 'ACT',
            sub_type: 'THINK',
            payload: { text: thinkTexts[k] as string },
            parent_block_id: message.id,
            created_at: nextTime(),
          },
          {},
          thinkFields,
        );
        blocks.push(think as ThinkBlock);
      }
    }
    const calls = toolCalls ?? [];
    for (let j = 0; j < calls.length; j++) {
      const call = calls[j] as ToolCall & JsonObject;
      const {
        id: callId,
        type,
        function: fn,
        [blockFieldsKey]: recordedCall,
        ...callFields
      } = call;
      const { name, arguments: args, ...functionFields } = fn;
      const made = callBlocks[i]?.[j] as { blockId: string; callId: string };
      const chatCall: JsonObject = { ...callFields };
      if (made.callId !== callId) chatCall.id = callId;
      if (type !== 'function') chatCall.type = type;
      if (Object.keys(functionFields).length > 0) chatCall.function = functionFields;
      const block = makeBlock(
        {
          id: made.blockId,
          trace_id: message.trace_id,
          block_type: 'ACT',
          sub_type: 'TOOL_CALL',
          payload: { call_id: made.callId, name, arguments: args },
          parent_block_id: message.id,
          created_at: nextTime(),
        },
        chatCall,
        blockFieldsOf(recordedCall),
      );
      blocks.push(block as ToolCallBlock);
    }
  }
  return blocks;
}
