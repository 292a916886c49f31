import { TraceError } from '../errors/index.js';
import { configurationError } from '../errors/validate-options.js';
import { nodeFs } from '../platform/node-builtins.js';
import { toDatasetError } from './dataset-error.js';

/** Where JSONL is read from: a file path, or any stream / async iterable of bytes or text. */
export type JsonlSource = string | AsyncIterable<Uint8Array | string>;

/** One parsed JSONL line. */
export interface JsonlLine {
  /** 1-based line number in the source (blank lines are counted, not yielded). */
  line: number;
  /** The line's parsed JSON value. */
  value: unknown;
}

/** Options of {@link readJsonlLines}. */
export interface ReadJsonlLinesOptions {
  /**
   * Longest line accepted, in UTF-8 bytes; a longer line is a `TraceError` `PAYLOAD_TOO_LARGE`
   * naming it. Bounds memory: a line is never held beyond this size.
   * @default defaultMaxJsonlLineBytes (64 MiB)
   */
  maxLineBytes?: number;
  /**
   * Receives each bad line's error (invalid JSON, too long) and skips the line. Without it, the
   * first bad line throws.
   */
  onError?: (error: TraceError) => void;
}

/** Default longest JSONL line: 64 MiB. */
export const defaultMaxJsonlLineBytes = 64 * 1024 * 1024;

const newline = 10;

function isIterable(value: unknown): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const iterable = value as { [Symbol.asyncIterator]?: unknown; [Symbol.iterator]?: unknown };
  return (
    typeof iterable[Symbol.asyncIterator] === 'function' ||
    typeof iterable[Symbol.iterator] === 'function'
  );
}

function sourceName(source: JsonlSource): string {
  return typeof source === 'string' ? source : 'stream';
}

/**
 * Reads JSON Lines one line at a time, in constant memory (one line plus one read chunk), from
 * a file or a stream. Lines may end in `\n` or `\r\n`; blank lines are skipped; a UTF-8 BOM is
 * ignored. Breaking out of the loop closes the file.
 *
 * Lines are split on the newline byte rather than with `node:readline`, so an over-long line
 * is detected and skipped without ever being held in memory.
 *
 * @param source - a file path, or a readable stream / async iterable of chunks
 * @param options - the line length limit and a skip-and-report callback
 * @returns an async iterable of `{ line, value }`
 * @throws ConfigurationError `INVALID_OPTIONS` when the source is not a path or an iterable, or
 *   yields a chunk that is neither bytes nor text
 * @throws TraceError `VALIDATION` for a line that is not JSON, `PAYLOAD_TOO_LARGE` for a line
 *   over `maxLineBytes` (both with `details.line`), unless `onError` is given;
 *   `DatasetError` `DATASET_READ_FAILED` when the file cannot be read
 * @example
 * ```ts
 * for await (const { line, value } of readJsonlLines('blocks.jsonl')) {
 *   console.log(line, value);
 * }
 * ```
 */
export async function* readJsonlLines(
  source: JsonlSource,
  options: ReadJsonlLinesOptions = {},
): AsyncGenerator<JsonlLine, void, undefined> {
  const maxLineBytes = options.maxLineBytes ?? defaultMaxJsonlLineBytes;
  const onError = options.onError;
  const name = sourceName(source);
  if (typeof source !== 'string' && !isIterable(source))
    throw configurationError(
      'readJsonlLines',
      'source',
      'a file path, or a stream / (async) iterable of Uint8Array or string chunks',
      source,
    );
  const stream = typeof source === 'string' ? nodeFs().createReadStream(source) : source;
  let chunkIndex = 0;

  let parts: Uint8Array[] = [];
  let partBytes = 0;
  // bytes of the current line once it is known to be too long (-1: not too long)
  let overflowBytes = -1;
  let line = 0;

  function fail(error: TraceError): void {
    if (onError === undefined) throw error;
    onError(error);
  }

  function finishLine(): JsonlLine | undefined {
    line++;
    if (overflowBytes >= 0) {
      const actual = overflowBytes;
      overflowBytes = -1;
      fail(
        new TraceError({
          code: 'PAYLOAD_TOO_LARGE',
          message: `line ${line} of ${name} is ${actual} bytes, over the ${maxLineBytes}-byte line limit; split the record or raise maxLineBytes`,
          details: { line, path: `line ${line}`, limit_bytes: maxLineBytes, actual_bytes: actual },
        }),
      );
      return undefined;
    }
    if (partBytes === 0) return undefined;
    const bytes = parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts, partBytes);
    parts = [];
    partBytes = 0;
    let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '') return undefined;
    try {
      return { line, value: JSON.parse(text) };
    } catch (cause) {
      fail(
        new TraceError({
          code: 'VALIDATION',
          message: `line ${line} of ${name} is not valid JSON (${(cause as Error).message}); fix or remove the line`,
          details: { line, path: `line ${line}` },
          cause,
        }),
      );
      return undefined;
    }
  }

  try {
    for await (const raw of stream) {
      // anything else would be split as if it were bytes, or yield nothing at all
      if (typeof raw !== 'string' && !(raw instanceof Uint8Array))
        throw configurationError(
          'readJsonlLines',
          `source chunk ${chunkIndex}`,
          'a Uint8Array (Buffer) or a string: the source must yield bytes or text',
          raw,
        );
      chunkIndex++;
      const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
      let start = 0;
      while (start <= chunk.length) {
        const end = chunk.indexOf(newline, start);
        const stop = end === -1 ? chunk.length : end;
        const size = stop - start;
        if (overflowBytes >= 0) {
          overflowBytes += size;
        } else if (partBytes + size > maxLineBytes) {
          overflowBytes = partBytes + size;
          parts = [];
          partBytes = 0;
        } else if (size > 0) {
          parts.push(chunk.subarray(start, stop));
          partBytes += size;
        }
        if (end === -1) break;
        const parsed = finishLine();
        if (parsed !== undefined) yield parsed;
        start = end + 1;
      }
    }
    if (partBytes > 0 || overflowBytes >= 0) {
      const parsed = finishLine();
      if (parsed !== undefined) yield parsed;
    }
  } catch (error) {
    throw toDatasetError(error, 'DATASET_READ_FAILED', name);
  }
}
