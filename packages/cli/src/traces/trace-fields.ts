import { type Block, traceEventKeys } from '@tracewarden/core';
import { isObject } from '../formats/is-object.js';

/**
 * Block metadata key, on a converted trace's first block, of what the trace object held besides
 * its events: its `metadata`, Invariant Explorer's `annotations`, an AgentDojo run's
 * `suite_name`, `user_task_id`, `utility`, `security`, ... (decision 003).
 */
export const chatTraceKey = 'chat_trace';

/**
 * Block metadata key, on the first block of each trace of a dataset, of the dataset's own fields
 * (seed 001: a dataset has its own metadata): its `name`, `metadata` and any other field but
 * `traces`.
 */
export const chatDatasetKey = 'chat_dataset';

type JsonObject = Record<string, unknown>;

/**
 * Whether a trace object's own fields give it this id, as `traceLabel` reads them
 * (`metadata.id`, `metadata.trace_id`, `id`, `trace_id`; a number as its text).
 * @param fields - the trace's fields besides its events
 * @param traceId - the trace id
 * @returns true when one of them is that id
 */
export function namesTrace(fields: JsonObject | undefined, traceId: string): boolean {
  if (fields === undefined) return false;
  const metadata = isObject(fields.metadata) ? fields.metadata : {};
  return [metadata.id, metadata.trace_id, fields.id, fields.trace_id].some(
    (value) =>
      (typeof value === 'string' || typeof value === 'number') && String(value) === traceId,
  );
}

/**
 * What a chat-event trace as read holds besides its events: every field of a trace object but
 * events (`traceEventKeys`; an event list's Explorer `{ metadata }` element is its `metadata` by
 * then). A `metadata.trace_id` naming the blocks' trace, when no other field names it, is left
 * out: `trace_id` keeps it, and `convert --to events` writes it back (as it names any trace
 * that nothing else names). Named by another field too, it is kept, since it would not be.
 * @param value - a trace as read
 * @param traceId - the trace id its blocks get
 * @returns the fields, or undefined when there are none
 */
export function traceFieldsOf(value: unknown, traceId: string): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const fields = { ...value };
  for (const key of traceEventKeys) delete fields[key];
  const metadata = fields.metadata;
  if (isObject(metadata) && metadata.trace_id === traceId) {
    const { trace_id: _traceId, ...rest } = metadata;
    const without: JsonObject = { ...fields, metadata: rest };
    if (Object.keys(rest).length === 0) delete without.metadata;
    if (!namesTrace(without, traceId))
      return Object.keys(without).length === 0 ? undefined : without;
  }
  return Object.keys(fields).length === 0 ? undefined : fields;
}

/**
 * A dataset's own fields as `convert` keeps them: all but `traces`, with a `metadata` object
 * (what makes a JSONL header line); undefined for nothing to keep.
 * @param value - a dataset item's value (the dataset without `traces`, or a header line)
 * @returns the fields, or undefined
 */
export function datasetFieldsOf(value: unknown): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const { traces: _traces, ...fields } = value;
  if (Object.keys(fields).length === 0) return undefined;
  return isObject(fields.metadata) ? fields : { ...fields, metadata: {} };
}

/**
 * The blocks with the trace's and the dataset's fields on the first block's metadata (a new
 * block; the others are the same objects).
 * @param blocks - one converted trace
 * @param trace - {@link traceFieldsOf} the trace
 * @param dataset - {@link datasetFieldsOf} its dataset
 * @returns the blocks
 */
export function withTraceFields(
  blocks: Block[],
  trace: JsonObject | undefined,
  dataset: JsonObject | undefined,
): Block[] {
  const first = blocks[0];
  if (first === undefined || (trace === undefined && dataset === undefined)) return blocks;
  const metadata: JsonObject = { ...first.metadata };
  if (trace !== undefined) metadata[chatTraceKey] = trace;
  if (dataset !== undefined) metadata[chatDatasetKey] = dataset;
  return [{ ...first, metadata } as Block, ...blocks.slice(1)];
}

/** What {@link liftTraceFields} found. */
export interface LiftedTraceFields {
  /** The blocks without them. */
  blocks: Block[];
  trace: JsonObject | undefined;
  dataset: JsonObject | undefined;
}

/**
 * Takes the trace's and the dataset's fields off the first block that carries them, for
 * `convert --to events` to write them where a trace object and a dataset keep them.
 * @param blocks - one trace's blocks
 * @returns the blocks without them, and the fields
 */
export function liftTraceFields(blocks: Block[]): LiftedTraceFields {
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i] as Block;
    const metadata = block.metadata;
    if (!isObject(metadata)) continue;
    const trace = isObject(metadata[chatTraceKey]) ? metadata[chatTraceKey] : undefined;
    const dataset = isObject(metadata[chatDatasetKey]) ? metadata[chatDatasetKey] : undefined;
    if (trace === undefined && dataset === undefined) continue;
    const rest = { ...metadata };
    if (trace !== undefined) delete rest[chatTraceKey];
    if (dataset !== undefined) delete rest[chatDatasetKey];
    const out = blocks.slice();
    out[i] = { ...block, metadata: rest } as Block;
    return { blocks: out, trace, dataset };
  }
  return { blocks, trace: undefined, dataset: undefined };
}
