import { formatIsoTimestamp } from '../model/format-iso-timestamp.js';
import type { IdGenerator, ToolCallBlock, ToolResultBlock, TraceEntry } from '../model/index.js';
import { createIdGenerator } from '../model/index.js';
import { utcTimestampMs } from '../text/is-entry-timestamp.js';
import { digitsAt } from '../text/is-iso-timestamp.js';

/** Options of {@link entryToBlocks}. */
export interface EntryToBlocksOptions {
  /** The blocks' `trace_id`. */
  traceId: string;
  /** The MESSAGE block the TOOL_CALL belongs to. */
  parentBlockId: string;
  /**
   * Source of the two block ids.
   * @default createIdGenerator()
   */
  ids?: IdGenerator;
}

/** TOOL_CALL metadata keys written by {@link entryToBlocks}; other keys are the call's metadata. @internal */
export const callMetadataKeys = ['timestamp', 'session_id', 'call_metadata'] as const;
/** TOOL_RESULT metadata keys written by {@link entryToBlocks}; other keys are the result's metadata. @internal */
export const resultMetadataKeys = [
  'status',
  'exception',
  'exception_type',
  'execution_time_ms',
  'retry_count',
  'validations',
  'hallucination',
  'cost',
  'timestamp',
  'tool_name',
  'output_source',
  'result_metadata',
] as const;

// Record metadata is spread flat (guard decisions read well next to status and timing) unless
// a key would collide with ours, or it is empty where empty differs from absent (a result's
// optional metadata); then it is nested whole under `nestedKey`. `undefined` means nothing to
// add; the caller spreads what is returned, so a flat record is returned as is, not copied.
function recordMetadata(
  metadata: Record<string, unknown> | undefined,
  reserved: readonly string[],
  nestedKey: string,
  emptyMeansAbsent: boolean,
): Record<string, unknown> | undefined {
  if (metadata === undefined) return undefined;
  let empty = true;
  for (const key in metadata) {
    if (!Object.hasOwn(metadata, key)) continue;
    empty = false;
    if (reserved.includes(key)) return { [nestedKey]: metadata };
  }
  if (!empty) return metadata;
  // no own enumerable string keys; symbol keys would still be spread, as before
  if (Object.getOwnPropertySymbols(metadata).length > 0) return metadata;
  return emptyMeansAbsent ? undefined : { [nestedKey]: metadata };
}

/**
 * Whether `text` is exactly what `Date#toISOString` writes for a real instant
 * (`YYYY-MM-DDTHH:MM:SS.sssZ`, year 0000-9999, a day that exists in its month). Such a string
 * is its own conversion, so the guards' timestamps skip a Date parse and format per record.
 */
function isCanonicalIso(text: string): boolean {
  if (text.length !== 24) return false;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  if (
    year < 0 ||
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    text.charCodeAt(10) !== 84 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(19) !== 46 ||
    text.charCodeAt(23) !== 90
  ) {
    return false;
  }
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return false;
  }
  if (digitsAt(text, 20, 3) < 0) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth =
    month === 2
      ? leap
        ? 29
        : 28
      : month === 4 || month === 6 || month === 9 || month === 11
        ? 30
        : 31;
  return day <= daysInMonth;
}

// The last two other timestamps converted (a call's and its result's), and their forms.
const cachedInput: (string | undefined)[] = [undefined, undefined];
const cachedOutput = ['', ''];
let cacheNext = 0;

// Seed 004 timestamps are UTC datetimes; Python's isoformat() may leave the zone out.
function toIso(timestamp: string): string {
  if (isCanonicalIso(timestamp)) return timestamp;
  if (timestamp === cachedInput[0]) return cachedOutput[0] as string;
  if (timestamp === cachedInput[1]) return cachedOutput[1] as string;
  const time = utcTimestampMs(timestamp);
  // an unreadable timestamp falls back to now, which is not cached
  if (Number.isNaN(time)) return new Date().toISOString();
  const iso = formatIsoTimestamp(time);
  cachedInput[cacheNext] = timestamp;
  cachedOutput[cacheNext] = iso;
  cacheNext = 1 - cacheNext;
  return iso;
}

/** The result record's own fields, as every TOOL_RESULT block's metadata holds them. */
function resultMetadata(result: TraceEntry['result']) {
  return {
    status: result.status,
    exception: result.exception,
    exception_type: result.exception_type,
    execution_time_ms: result.execution_time_ms,
    retry_count: result.retry_count,
    validations: result.validations,
    hallucination: result.hallucination,
    cost: result.cost,
    timestamp: result.timestamp,
  };
}

/**
 * Converts a guarded tool call record (seed 004 `TraceEntry`) to a TOOL_CALL block and a
 * TOOL_RESULT block under it, losslessly (`blocksToEntry` is the way back).
 *
 * TOOL_CALL: payload `{ call_id, name: tool_name, arguments: kwargs }` plus `args` when
 * non-empty; metadata `{ timestamp, session_id, ...call.metadata }`. TOOL_RESULT: payload
 * `{ call_id, output }` where `output` is `return_value`, or the exception message when the
 * call failed with no return value (marked `output_source: 'exception'`); metadata
 * `{ status, exception, exception_type, execution_time_ms, retry_count, validations,
 * hallucination, cost, timestamp, ...result.metadata }`. A record's own metadata that uses one
 * of those keys (or a result's empty metadata) is nested whole (`call_metadata`, `result_metadata`) instead of
 * spread. `created_at` is the record's timestamp (UTC when it names no zone).
 *
 * @param entry - the call and its result
 * @param options - trace id, parent MESSAGE block id and id generator
 * @returns `[toolCallBlock, toolResultBlock]`
 * @example
 * ```ts
 * const [call, result] = entryToBlocks(entry, { traceId: tracer.traceId, parentBlockId: message.id });
 * result.metadata.status; // 'success'
 * ```
 */
export function entryToBlocks(
  entry: TraceEntry,
  options: EntryToBlocksOptions,
): [ToolCallBlock, ToolResultBlock] {
  const ids = options.ids ?? createIdGenerator();
  const { call, result } = entry;
  const callCreatedAt = toIso(call.timestamp);
  const resultCreatedAt = toIso(result.timestamp);
  // Literals with spreads only where something is spread: a spread of nothing still costs.
  const callPayload: ToolCallBlock['payload'] =
    call.args.length > 0
      ? { call_id: call.call_id, name: call.tool_name, arguments: call.kwargs, args: call.args }
      : { call_id: call.call_id, name: call.tool_name, arguments: call.kwargs };
  const callExtra = recordMetadata(call.metadata, callMetadataKeys, 'call_metadata', true);
  const callBlock: ToolCallBlock = {
    id: ids.blockId(),
    trace_id: options.traceId,
    block_type: 'ACT',
    sub_type: 'TOOL_CALL',
    payload: callPayload,
    parent_block_id: options.parentBlockId,
    metadata:
      callExtra === undefined
        ? { timestamp: call.timestamp, session_id: call.session_id }
        : { timestamp: call.timestamp, session_id: call.session_id, ...callExtra },
    raw: null,
    extra: {},
    created_at: callCreatedAt,
    updated_at: callCreatedAt,
  };
  const failedWithoutValue =
    (result.return_value === null || result.return_value === undefined) &&
    result.exception !== null;
  const resultExtra = recordMetadata(result.metadata, resultMetadataKeys, 'result_metadata', false);
  const plain = result.tool_name === call.tool_name && !failedWithoutValue;
  const resultBlock: ToolResultBlock = {
    id: ids.blockId(),
    trace_id: options.traceId,
    block_type: 'OBSERVE',
    sub_type: 'TOOL_RESULT',
    payload: {
      call_id: result.call_id,
      output: failedWithoutValue ? result.exception : (result.return_value ?? null),
    },
    parent_block_id: callBlock.id,
    metadata:
      plain && resultExtra === undefined
        ? resultMetadata(result)
        : // rare: extra metadata, or a record that differs from its call
          {
            ...resultMetadata(result),
            ...(result.tool_name === call.tool_name ? {} : { tool_name: result.tool_name }),
            ...(failedWithoutValue ? { output_source: 'exception' } : {}),
            ...resultExtra,
          },
    raw: null,
    extra: {},
    created_at: resultCreatedAt,
    updated_at: resultCreatedAt,
  };
  return [callBlock, resultBlock];
}

/**
 * A guarded call in the common case, flat: no call metadata, a result whose metadata is
 * `{ guard }`, the same tool name on both sides and no exception. {@link guardedCallToBlocks}
 * makes from it the blocks {@link entryToBlocks} makes from the equivalent `TraceEntry`, without
 * the entry's five objects. Timestamps are `Date#toISOString` strings (their own conversion).
 * @internal
 */
export interface GuardedCallRecord {
  callId: string;
  /** May be a getter (a guard's record reads it from what the guard shares). */
  readonly toolName: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
  callTimestamp: string;
  sessionId: string | null;
  status: string;
  returnValue: unknown;
  executionTimeMs: number;
  retryCount: number;
  validations: unknown[];
  hallucination: unknown;
  /** May be a getter (a guard's record computes it): read, never written. */
  readonly cost: number | null;
  resultTimestamp: string;
  /** May be a getter building a new object per read (a guard's record): read it once. */
  readonly guard: Record<string, unknown>;
  /**
   * The call id comes from the process-wide `nextCallId` sequence and no user code saw it before
   * the call was recorded (so nothing can have logged a TOOL_CALL under it): no other call has it.
   */
  uniqueCallId: boolean;
  /** Set by a tracer that defers the blocks: the parent MESSAGE and the two block ids drawn. */
  parentBlockId: string;
  callBlockId: string;
  resultBlockId: string;
}

/**
 * The TOOL_CALL and TOOL_RESULT blocks of a guarded call, equal to what {@link entryToBlocks}
 * makes of the equivalent entry `{ call: { ..., metadata: {} }, result: { ..., exception: null,
 * exception_type: null, metadata: { guard } } }`, except that `extra` is the shared frozen empty
 * object (the tracer's blocks are frozen anyway). For the tracer's guarded-call path.
 * @internal
 */
export function guardedCallToBlocks(
  record: GuardedCallRecord,
  traceId: string,
  parentBlockId: string,
  callBlockId: string,
  resultBlockId: string,
  extra: Record<string, unknown>,
): [ToolCallBlock, ToolResultBlock] {
  const callId = record.callId;
  const callAt = record.callTimestamp;
  const args = record.args;
  const callBlock: ToolCallBlock = {
    id: callBlockId,
    trace_id: traceId,
    block_type: 'ACT',
    sub_type: 'TOOL_CALL',
    payload:
      args.length > 0
        ? { call_id: callId, name: record.toolName, arguments: record.kwargs, args }
        : { call_id: callId, name: record.toolName, arguments: record.kwargs },
    parent_block_id: parentBlockId,
    metadata: { timestamp: callAt, session_id: record.sessionId },
    raw: null,
    extra,
    created_at: callAt,
    updated_at: callAt,
  };
  const resultAt = record.resultTimestamp;
  const resultBlock: ToolResultBlock = {
    id: resultBlockId,
    trace_id: traceId,
    block_type: 'OBSERVE',
    sub_type: 'TOOL_RESULT',
    payload: { call_id: callId, output: record.returnValue ?? null },
    parent_block_id: callBlockId,
    metadata: {
      status: record.status,
      exception: null,
      exception_type: null,
      execution_time_ms: record.executionTimeMs,
      retry_count: record.retryCount,
      validations: record.validations,
      hallucination: record.hallucination,
      cost: record.cost,
      timestamp: resultAt,
      guard: record.guard,
    },
    raw: null,
    extra,
    created_at: resultAt,
    updated_at: resultAt,
  };
  return [callBlock, resultBlock];
}
