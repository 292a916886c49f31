import { entryToBlocks } from '../convert/entry-to-blocks.js';
import type { TraceEntry } from '../model/index.js';
import { recordToolResult } from '../recording/record-tool-result.js';
import type { Tracer } from '../tracing/types.js';
import type { ToolCallScope } from '../tracing/with-trace.js';

/** Block ids for the scratch conversion: only the result's payload and metadata are kept. */
const scratchIds = { blockId: () => 'tb_scratch', traceId: () => 'tr_scratch' };

/** The TOOL_RESULT block `recordEntry` would write for an entry (scratch ids). */
function resultBlockOf(entry: TraceEntry) {
  return entryToBlocks(entry, {
    traceId: 'tr_scratch',
    parentBlockId: 'tb_scratch',
    ids: scratchIds as never,
  })[1];
}

/**
 * The metadata of the TOOL_RESULT an adapter records for a tool call it ran in `scope`: its own
 * fields (`own`: the status, error and timing of what the model reads) over the record of the
 * guarded function that took the call, if one did (its decisions, attempts, retries, cost;
 * `guard.decisions` of both kept). A guard's exception is left out when the adapter's status
 * differs (the tool recovered from it, or failed after it).
 * @param scope - the scope the tool ran in
 * @param own - the adapter's metadata for the result
 * @returns `own` when no guard took the call, else the merged metadata
 * @example
 * ```ts
 * const scope = new ToolCallScope(callId, tracer);
 * const value = await scope.run(() => tool(args));
 * recordToolResult(tracer, { callId, output: value, metadata: scopedResultMetadata(scope, { status: 'success' }) });
 * ```
 */
export function scopedResultMetadata(
  scope: ToolCallScope,
  own: Record<string, unknown>,
): Record<string, unknown> {
  const entry = scope.entry;
  if (entry === undefined) return own;
  const guarded = { ...(resultBlockOf(entry).metadata as Record<string, unknown>) };
  if (own.status !== undefined && own.status !== guarded.status) {
    delete guarded.exception;
    delete guarded.exception_type;
  }
  const merged: Record<string, unknown> = { ...guarded, ...own };
  const inner = guarded.guard as { decisions?: unknown[] } | undefined;
  const outer = own.guard as { decisions?: unknown[] } | undefined;
  if (inner !== undefined && outer !== undefined)
    merged.guard = {
      ...inner,
      ...outer,
      decisions: [...(inner.decisions ?? []), ...(outer.decisions ?? [])],
    };
  return merged;
}

/**
 * Records a guarded call that ran for a model's tool call: when `tracer` holds the model's
 * TOOL_CALL with the entry's call id, the TOOL_RESULT (the same payload and metadata
 * `recordEntry` would write) goes under it and no second TOOL_CALL is made. With `scope` (the
 * tool ran in a {@link ToolCallScope}), the record of a guarded function the tool called is
 * added (see {@link scopedResultMetadata}). `extra` goes on the TOOL_RESULT as its `extra` (a
 * LangChain tool's artifact, kept beside the content the model reads).
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
export function recordResultUnderCall(
  tracer: Tracer,
  entry: TraceEntry,
  scope?: ToolCallScope,
  extra?: Record<string, unknown>,
): boolean {
  const callId = entry.call.call_id;
  // an absent id (`""`, as Gemini-backed agents send, decision 030) links by the order rule
  if (callId !== '' && tracer.findToolCall(callId) === undefined) return false;
  const result = resultBlockOf(entry);
  // the guard's tool name, which need not be the model's name for the call
  const metadata = {
    ...(result.metadata as Record<string, unknown>),
    tool_name: entry.result.tool_name,
  };
  const recorded = recordToolResult(tracer, {
    callId,
    // with the tool name, tells apart calls of two conversations that wait under one id
    arguments: entry.call.args.length === 0 ? entry.call.kwargs : undefined,
    output: result.payload.output,
    metadata: scope === undefined ? metadata : scopedResultMetadata(scope, metadata),
    ...(extra === undefined ? {} : { extra }),
  });
  // an absent id with no call waiting for a result: not this trace's call
  return recorded || callId !== '';
}
