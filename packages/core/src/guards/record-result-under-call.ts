import { entryToBlocks } from '../convert/entry-to-blocks.js';
import type { TraceEntry } from '../model/index.js';
import { recordToolResult } from '../recording/record-tool-result.js';
import type { Tracer } from '../tracing/types.js';

/** Block ids for the scratch conversion: only the result's payload and metadata are kept. */
const scratchIds = { blockId: () => 'tb_scratch', traceId: () => 'tr_scratch' };

/**
 * Records a guarded call that ran for a model's tool call: when `tracer` holds the model's
 * TOOL_CALL with the entry's call id, the TOOL_RESULT (the same payload and metadata
 * `recordEntry` would write) goes under it and no second TOOL_CALL is made.
 * @returns false when the trace has no such TOOL_CALL; true when it has (its result recorded now,
 *   or already recorded by an inner guard or an adapter, which is kept)
 * @example
 * ```ts
 * const guarded = guard(sendEmail, { name: 'send_email' });
 * await guarded.invoke({ callId: 'call_1', tracer: null, onEntry: (entry) => {
 *   recordResultUnderCall(tracer, entry); // under the model's TOOL_CALL call_1
 * } }, args);
 * ```
 */
export function recordResultUnderCall(tracer: Tracer, entry: TraceEntry): boolean {
  if (tracer.findToolCall(entry.call.call_id) === undefined) return false;
  const [, result] = entryToBlocks(entry, {
    traceId: 'tr_scratch',
    parentBlockId: 'tb_scratch',
    ids: scratchIds as never,
  });
  recordToolResult(tracer, {
    callId: entry.call.call_id,
    output: result.payload.output,
    // the guard's tool name, which need not be the model's name for the call
    metadata: {
      ...(result.metadata as Record<string, unknown>),
      tool_name: entry.result.tool_name,
    },
  });
  return true;
}
