import type { IdGenerator, ToolCallBlock, ToolResultBlock, TraceEntry } from '../model/index.js';
import { createIdGenerator } from '../model/index.js';

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
// optional metadata); then it is nested whole under `nestedKey`.
function recordMetadata(
  metadata: Record<string, unknown> | undefined,
  reserved: readonly string[],
  nestedKey: string,
  emptyMeansAbsent: boolean,
): Record<string, unknown> {
  if (metadata === undefined) return {};
  const keys = Object.keys(metadata);
  if (keys.length === 0 && emptyMeansAbsent) return {};
  if (keys.length > 0 && !keys.some((key) => reserved.includes(key))) return { ...metadata };
  return { [nestedKey]: metadata };
}

const zoneSuffix = /(?:Z|[+-]\d\d:?\d\d)$/i;

// Seed 004 timestamps are UTC datetimes; Python's isoformat() may leave the zone out.
function toIso(timestamp: string, fallback: number): string {
  const time = Date.parse(zoneSuffix.test(timestamp) ? timestamp : `${timestamp}Z`);
  return new Date(Number.isNaN(time) ? fallback : time).toISOString();
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
  const now = Date.now();
  const callCreatedAt = toIso(call.timestamp, now);
  const resultCreatedAt = toIso(result.timestamp, now);
  const callBlock: ToolCallBlock = {
    id: ids.blockId(),
    trace_id: options.traceId,
    block_type: 'ACT',
    sub_type: 'TOOL_CALL',
    payload: {
      call_id: call.call_id,
      name: call.tool_name,
      arguments: call.kwargs,
      ...(call.args.length > 0 ? { args: call.args } : {}),
    },
    parent_block_id: options.parentBlockId,
    metadata: {
      timestamp: call.timestamp,
      session_id: call.session_id,
      ...recordMetadata(call.metadata, callMetadataKeys, 'call_metadata', true),
    },
    raw: null,
    extra: {},
    created_at: callCreatedAt,
    updated_at: callCreatedAt,
  };
  const failedWithoutValue =
    (result.return_value === null || result.return_value === undefined) &&
    result.exception !== null;
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
    metadata: {
      status: result.status,
      exception: result.exception,
      exception_type: result.exception_type,
      execution_time_ms: result.execution_time_ms,
      retry_count: result.retry_count,
      validations: result.validations,
      hallucination: result.hallucination,
      cost: result.cost,
      timestamp: result.timestamp,
      ...(result.tool_name === call.tool_name ? {} : { tool_name: result.tool_name }),
      ...(failedWithoutValue ? { output_source: 'exception' } : {}),
      ...recordMetadata(result.metadata, resultMetadataKeys, 'result_metadata', false),
    },
    raw: null,
    extra: {},
    created_at: resultCreatedAt,
    updated_at: resultCreatedAt,
  };
  return [callBlock, resultBlock];
}
