import {
  type Block,
  blocksToEvents,
  eventsToBlocks,
  type IdGenerator,
  parseDataset,
  parseTrace,
  TraceError,
} from '@tracewarden/core';
import { ServerError } from '../errors/index.js';
import { refuseUnsafeInteger } from '../http/index.js';
import type { DatasetEntry, ImportedTrace } from '../storage/index.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The same trace error, saying which trace (and JSONL line) it is about. */
function inTrace(error: unknown, index: number, line?: number): unknown {
  if (!(error instanceof TraceError)) return error;
  return new TraceError({
    code: error.code,
    message: `${line === undefined ? `trace ${index}` : `line ${line}`}: ${error.message}`,
    details: { ...error.details, trace_index: index, ...(line === undefined ? {} : { line }) },
    cause: error,
  });
}

/** A dataset read from the Invariant Explorer JSONL format. */
export interface ParsedDatasetFile {
  /** The first line's `metadata`, when the file has that header. */
  metadata: Record<string, unknown> | undefined;
  traces: ImportedTrace[];
}

/**
 * Reads a dataset in Invariant Explorer's JSONL format: an optional first line
 * `{ "metadata": {...} }`, then one trace per line, either a raw event list `[...]` or an
 * annotated one `{ "messages": [...], "annotations": [...], "metadata": {...} }`. Events are
 * normalised by core's `parseDataset` and turned into blocks by `eventsToBlocks`.
 *
 * @param text - the file's text
 * @param ids - id generator for the blocks
 * @returns the dataset metadata and the traces as blocks
 * @throws {@link ServerError} `INVALID_JSON` naming the line that is not JSON; core's
 *   `TraceError` `VALIDATION` naming the line of an invalid trace, or of an integer beyond
 *   ±(2^53 - 1) (with its path)
 * @internal
 */
export function parseDatasetJsonl(text: string, ids: IdGenerator): ParsedDatasetFile {
  const values: unknown[] = [];
  const lines: number[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      throw new ServerError({
        code: 'INVALID_JSON',
        message: `line ${index + 1} is not valid JSON (${(error as Error).message}); send one JSON value per line`,
        details: { field: 'body', line: index + 1 },
      });
    }
    refuseUnsafeInteger(line, index + 1);
    lines.push(index + 1);
  });
  let metadata: Record<string, unknown> | undefined;
  const first = values[0];
  if (isRecord(first) && first.messages === undefined && first.events === undefined) {
    if (!isRecord(first.metadata)) {
      throw new TraceError({
        code: 'VALIDATION',
        message: `line ${lines[0]}: a header line holds { "metadata": { ... } }; a trace line is an event list or { "messages": [...] }`,
        details: { line: lines[0], field: 'metadata' },
      });
    }
    metadata = first.metadata;
    values.shift();
    lines.shift();
  }
  const traces = values.map((value, index) => {
    try {
      const [trace] = parseDataset({ traces: [value] }).traces;
      const annotations =
        isRecord(value) && Array.isArray(value.annotations) ? value.annotations : undefined;
      return {
        blocks: eventsToBlocks(trace?.messages ?? [], { ids }),
        metadata: trace?.metadata,
        annotations,
      };
    } catch (error) {
      throw inTrace(error, index, lines[index]);
    }
  });
  return { metadata, traces };
}

/** The body of Invariant Explorer's push API, `POST /api/v1/push/trace`. */
export interface PushTraceBody {
  messages: unknown[][];
  annotations?: unknown[][] | undefined;
  metadata?: Record<string, unknown>[] | undefined;
  dataset?: string | undefined;
}

/**
 * Reads an Explorer push body `{ messages: [[event, ...], ...], annotations, metadata, dataset }`
 * (metadata and annotations per trace, by position) into traces of blocks, with core's
 * `parseTrace` and `eventsToBlocks`.
 *
 * @param body - the parsed request body
 * @param ids - id generator for the blocks
 * @returns the traces and the dataset name, if any
 * @throws core's `TraceError` `VALIDATION` for a body or trace of the wrong shape, or for
 *   metadata or annotations given without a dataset to keep them in (`details.field`)
 * @internal
 */
export function parsePushBody(
  body: unknown,
  ids: IdGenerator,
): { traces: ImportedTrace[]; dataset: string | undefined } {
  const fail = (field: string, message: string) =>
    new TraceError({ code: 'VALIDATION', message, details: { field } });
  if (!isRecord(body) || !Array.isArray(body.messages) || !body.messages.every(Array.isArray)) {
    throw fail(
      'messages',
      'the body must be { "messages": [[event, ...], ...] }: a list of traces, each a list of events',
    );
  }
  const { annotations, metadata, dataset } = body;
  if (annotations !== undefined && annotations !== null && !Array.isArray(annotations)) {
    throw fail('annotations', 'annotations must be a list (one list per trace), when given');
  }
  if (
    metadata !== undefined &&
    metadata !== null &&
    !Array.isArray(metadata) &&
    !isRecord(metadata)
  ) {
    throw fail(
      'metadata',
      'metadata must be a list of objects (one per trace) or one object, when given',
    );
  }
  if (dataset !== undefined && dataset !== null && typeof dataset !== 'string') {
    throw fail('dataset', 'dataset must be the name of a dataset, when given');
  }
  if (typeof dataset !== 'string') {
    // per-trace metadata and annotations live in a dataset's entries: without one they would
    // be dropped while the push succeeds
    const holds = (value: unknown) =>
      isRecord(value) ? Object.keys(value).length > 0 : Array.isArray(value) && value.length > 0;
    const kept = (Array.isArray(metadata) ? metadata : [metadata]).some(holds)
      ? 'metadata'
      : Array.isArray(annotations) && annotations.some(holds)
        ? 'annotations'
        : undefined;
    if (kept !== undefined) {
      throw fail(
        kept,
        `${kept} is kept per trace in a dataset, and this push names none: add "dataset": "<name>" (created when missing), or leave ${kept} out`,
      );
    }
  }
  const traces = (body.messages as unknown[][]).map((events, index) => {
    const own = Array.isArray(metadata) ? metadata[index] : metadata;
    const annotated = Array.isArray(annotations) ? annotations[index] : undefined;
    try {
      return {
        blocks: eventsToBlocks(parseTrace(events), { ids }),
        metadata: isRecord(own) ? own : undefined,
        annotations: Array.isArray(annotated) ? annotated : undefined,
      };
    } catch (error) {
      throw inTrace(error, index);
    }
  });
  return { traces, dataset: typeof dataset === 'string' ? dataset : undefined };
}

/**
 * One line of an Explorer JSONL export: the raw event list, or the annotated form when the
 * trace has metadata or annotations in the dataset.
 * @internal
 */
export function exportLine(
  entry: DatasetEntry,
  blocks: readonly Block[],
  fidelity: 'chat' | 'lossless' | 'exact',
): string {
  const messages = blocksToEvents(blocks, { traceId: entry.trace_id, fidelity });
  const annotated = Object.keys(entry.metadata).length > 0 || entry.annotations.length > 0;
  return `${JSON.stringify(
    annotated ? { messages, annotations: entry.annotations, metadata: entry.metadata } : messages,
  )}\n`;
}
