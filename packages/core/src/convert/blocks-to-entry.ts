import { TraceError } from '../errors/index.js';
import type {
  HallucinationResult,
  ToolCallBlock,
  ToolCallStatus,
  ToolResultBlock,
  TraceEntry,
  ValidationResult,
} from '../model/index.js';
import { callMetadataKeys, resultMetadataKeys } from './entry-to-blocks.js';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectOr(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

function recordMetadata(
  metadata: JsonObject,
  reserved: readonly string[],
  nestedKey: string,
): JsonObject | undefined {
  if (isObject(metadata[nestedKey])) return metadata[nestedKey];
  const rest: JsonObject = {};
  let any = false;
  for (const key of Object.keys(metadata)) {
    if (reserved.includes(key)) continue;
    Object.defineProperty(rest, key, {
      value: metadata[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
    any = true;
  }
  return any ? rest : undefined;
}

function stringOr<T>(value: unknown, fallback: T): string | T {
  return typeof value === 'string' ? value : fallback;
}

function numberOr<T>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' ? value : fallback;
}

/**
 * Converts a TOOL_CALL block and its TOOL_RESULT block back to a seed 004 `TraceEntry`, the
 * inverse of `entryToBlocks` (`blocksToEntry(entryToBlocks(entry, o))` equals `entry`). Blocks
 * not made by `entryToBlocks` get the defaults of a successful call: no args, `session_id`
 * null, `status` `'success'`, zero timing and retries, timestamps from `created_at`.
 *
 * @param blocks - `[toolCallBlock, toolResultBlock]`
 * @returns the trace entry
 * @throws TraceError `VALIDATION` when the blocks are not a TOOL_CALL and a TOOL_RESULT
 * @example
 * ```ts
 * const entry = blocksToEntry([callBlock, resultBlock]);
 * entry.result.status; // 'success'
 * ```
 */
export function blocksToEntry(blocks: readonly [ToolCallBlock, ToolResultBlock]): TraceEntry {
  const [callBlock, resultBlock] = blocks;
  if (callBlock?.sub_type !== 'TOOL_CALL' || resultBlock?.sub_type !== 'TOOL_RESULT') {
    throw new TraceError({
      code: 'VALIDATION',
      message: `blocksToEntry needs [TOOL_CALL, TOOL_RESULT] blocks, got [${callBlock?.sub_type}, ${resultBlock?.sub_type}].`,
      details: { field: 'sub_type' },
    });
  }
  const callPayload = objectOr(callBlock.payload);
  const callMetadata = objectOr(callBlock.metadata);
  const resultPayload = objectOr(resultBlock.payload);
  const resultMetadata = objectOr(resultBlock.metadata);
  const toolName = stringOr(callPayload.name, '');
  const output = resultPayload.output !== undefined ? resultPayload.output : resultPayload.delta;
  const exception = stringOr(resultMetadata.exception, null);
  const metadata = recordMetadata(resultMetadata, resultMetadataKeys, 'result_metadata');
  return {
    call: {
      call_id: stringOr(callPayload.call_id, ''),
      tool_name: toolName,
      args: Array.isArray(callPayload.args) ? callPayload.args : [],
      kwargs: objectOr(callPayload.arguments),
      timestamp: stringOr(callMetadata.timestamp, callBlock.created_at),
      session_id: stringOr(callMetadata.session_id, null),
      metadata: recordMetadata(callMetadata, callMetadataKeys, 'call_metadata') ?? {},
    },
    result: {
      call_id: stringOr(resultPayload.call_id, ''),
      tool_name: stringOr(resultMetadata.tool_name, toolName),
      status: stringOr(resultMetadata.status, 'success') as ToolCallStatus,
      return_value: resultMetadata.output_source === 'exception' ? null : (output ?? null),
      exception,
      exception_type: stringOr(resultMetadata.exception_type, null),
      execution_time_ms: numberOr(resultMetadata.execution_time_ms, 0),
      retry_count: numberOr(resultMetadata.retry_count, 0),
      validations: (Array.isArray(resultMetadata.validations)
        ? resultMetadata.validations
        : []) as ValidationResult[],
      hallucination: (isObject(resultMetadata.hallucination)
        ? resultMetadata.hallucination
        : null) as HallucinationResult | null,
      cost: numberOr(resultMetadata.cost, null),
      timestamp: stringOr(resultMetadata.timestamp, resultBlock.created_at),
      ...(metadata === undefined ? {} : { metadata }),
    },
  };
}
