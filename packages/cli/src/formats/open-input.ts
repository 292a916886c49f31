import { extname } from 'node:path';
import { checkInputFile } from './check-input-file.js';
import type { InputFormat } from './classify-value.js';
import type { InputItem } from './input-items.js';
import { openJsonLines } from './open-json-lines.js';
import { readJsonDocument } from './read-json-document.js';

/** Whether a file is one JSON document or JSON Lines. */
export type Container = 'json' | 'jsonl';

/** Options of {@link openInput}. */
export interface OpenInputOptions {
  /** Skip detection and read the file as this format. */
  format?: InputFormat | undefined;
  /** Longest JSONL line kept, in bytes. @default 67108864 */
  maxLineBytes?: number | undefined;
  /** Called with bytes read so far (JSONL) for progress display. */
  onBytes?: ((bytes: number) => void) | undefined;
  /**
   * Called with each line that held bytes that are not UTF-8 (each read as U+FFFD, as a UTF-8
   * decoder does), so that commands can say so rather than pass the replaced text in silence.
   */
  onInvalidUtf8?: ((line: number) => void) | undefined;
  /** Aborting it stops reading at once (the read stream is destroyed with an `AbortError`). */
  signal?: AbortSignal | undefined;
}

/** An opened input file: its detected shape, and its items as a stream. */
export interface Input {
  file: string;
  /** File size in bytes. */
  size: number;
  container: Container;
  /** The format read: given with `--format`, or detected from the first record. */
  format: InputFormat;
  /** The items in file order; JSONL files are read one line at a time. */
  items: AsyncIterable<InputItem>;
}

/**
 * Opens a trace file: tells JSON from JSONL (by extension, else by whether the first line is a
 * JSON value on its own), detects the format from the first record unless `format` is given,
 * and streams the file's traces, blocks or entries. JSONL is read one line at a time, so files
 * larger than memory work; a JSON document is read whole.
 *
 * @param file - path of the file
 * @param options - forced format, line limit, progress callback
 * @returns the opened input
 * @throws CliError `CLI_FILE_NOT_FOUND`, `CLI_FILE_UNREADABLE`, or `CLI_UNKNOWN_FORMAT` when the
 *   first record matches no format and none was given
 * @example
 * ```ts
 * const input = await openInput('run.jsonl');
 * for await (const item of input.items) if (item.type === 'block') console.log(item.line);
 * ```
 */
export async function openInput(file: string, options: OpenInputOptions = {}): Promise<Input> {
  const size = await checkInputFile(file);
  const extension = extname(file).toLowerCase();
  if (extension !== '.json') {
    const container = extension === '.jsonl' || extension === '.ndjson' ? 'jsonl' : undefined;
    const lines = await openJsonLines(file, size, container, options);
    if (lines !== undefined) return lines;
  }
  return readJsonDocument(file, size, options);
}
