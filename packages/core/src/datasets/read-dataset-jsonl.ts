import { basename, extname } from 'node:path';
import type { TraceError } from '../errors/index.js';
import type { LoneSurrogatesFound } from '../model/index.js';
import type { DatasetTrace } from './dataset.js';
import { parseDatasetTrace, prefixTraceError } from './parse-dataset.js';
import { type JsonlSource, readJsonlLines } from './read-jsonl-lines.js';

/** Options of {@link readDatasetJsonl}. */
export interface ReadDatasetJsonlOptions {
  /** Dataset name. @default the header line's `name`, else the file's base name, else 'dataset' */
  name?: string;
  /** Longest line accepted, in UTF-8 bytes. @default 64 MiB */
  maxLineBytes?: number;
  /** Receives each bad line's error and skips the line. Without it, the first bad line throws. */
  onError?: (error: TraceError) => void;
  /**
   * Called once per event in which `parseTrace` replaced lone UTF-16 surrogates by U+FFFD, with
   * the event's position in its line's trace and the line.
   */
  onLoneSurrogates?: ((found: LoneSurrogatesFound & { line: number }) => void) | undefined;
}

/**
 * A streaming dataset: iterate it for the traces; `name` and `metadata` are known once
 * iteration has started (the header line, if any, is read first).
 */
export interface DatasetJsonlReader extends AsyncIterable<DatasetTrace> {
  /** The dataset name: the option, the header's `name`, the file's base name, or 'dataset'. */
  readonly name: string;
  /** The header line's metadata; `{}` until read, or when the file has no header. */
  readonly metadata: Record<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isHeader(value: unknown): value is { metadata: Record<string, unknown>; name?: unknown } {
  return (
    isObject(value) &&
    isObject(value.metadata) &&
    !Object.hasOwn(value, 'messages') &&
    !Object.hasOwn(value, 'events')
  );
}

function defaultName(source: JsonlSource): string {
  if (typeof source !== 'string') return 'dataset';
  const base = basename(source);
  return base.slice(0, base.length - extname(base).length) || 'dataset';
}

/**
 * Streams a JSONL dataset one trace per line, in constant memory, so a file larger than memory
 * works. A line is an array of events (a first `{ metadata }` element is its metadata, as in
 * Invariant Explorer's raw event lists) or `{ messages, metadata?, annotations? }` (its annotated
 * event lists). An optional first line
 * `{ "metadata": {...} }` (with an optional `name`, and no `messages`) carries the dataset's
 * metadata. Each trace is normalised with `parseTrace`.
 *
 * @param source - a file path, or a readable stream / async iterable of chunks
 * @param options - name, line limit and a skip-and-report callback
 * @returns a {@link DatasetJsonlReader}: an async iterable of {@link DatasetTrace} with `name` and `metadata`
 * @throws TraceError `VALIDATION` (or `PAYLOAD_TOO_LARGE`) with `details.line` for a bad line,
 *   unless `onError` is given; `DatasetError` when the file cannot be read
 * @example
 * ```ts
 * const dataset = readDatasetJsonl('runs.jsonl', { onError: (e) => console.warn(e.message) });
 * for await (const trace of dataset) console.log(trace.messages.length);
 * console.log(dataset.name, dataset.metadata);
 * ```
 */
export function readDatasetJsonl(
  source: JsonlSource,
  options: ReadDatasetJsonlOptions = {},
): DatasetJsonlReader {
  let name = options.name ?? defaultName(source);
  let metadata: Record<string, unknown> = {};
  const onError = options.onError;
  const sourceLabel = typeof source === 'string' ? source : 'stream';
  const lineOptions = {
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    ...(onError === undefined ? {} : { onError }),
  };

  async function* traces(): AsyncGenerator<DatasetTrace, void, undefined> {
    let first = true;
    for await (const { line, value } of readJsonlLines(source, lineOptions)) {
      if (first) {
        first = false;
        if (isHeader(value)) {
          metadata = value.metadata;
          if (options.name === undefined && typeof value.name === 'string') name = value.name;
          continue;
        }
      }
      let trace: DatasetTrace;
      try {
        const onLoneSurrogates = options.onLoneSurrogates;
        trace = parseDatasetTrace(
          value,
          '',
          onLoneSurrogates === undefined
            ? undefined
            : (found) => onLoneSurrogates({ ...found, line }),
        );
      } catch (error) {
        const wrapped = prefixTraceError(error, '', `line ${line} of ${sourceLabel}`, { line });
        if (onError === undefined || wrapped === error) throw wrapped;
        onError(wrapped as TraceError);
        continue;
      }
      yield trace;
    }
  }

  return {
    get name() {
      return name;
    },
    get metadata() {
      return metadata;
    },
    [Symbol.asyncIterator]: traces,
  };
}
