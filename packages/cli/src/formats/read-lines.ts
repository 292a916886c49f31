import { isUtf8 } from 'node:buffer';

/** One line of a text stream, from {@link readLines}. */
export type TextLine =
  | {
      /** 1-based line number. */
      line: number;
      /** The line without its `\n` / `\r\n`. */
      text: string;
      tooLong?: undefined;
      /** The line held bytes that are not UTF-8, read as U+FFFD (a Latin-1 file, say). */
      invalidUtf8?: true | undefined;
    }
  | {
      line: number;
      text?: undefined;
      /** The line was longer than `maxLineBytes`; its bytes were skipped, not kept. */
      tooLong: { bytes: number };
    };

/** Options of {@link readLines}. */
export interface ReadLinesOptions {
  /**
   * Longest line kept, in bytes. A longer line is reported as `tooLong` and skipped, so one
   * runaway line cannot exhaust memory.
   * @default 67108864 (64 MiB)
   */
  maxLineBytes?: number;
  /** Called with the number of bytes consumed so far (for progress). */
  onBytes?: (bytes: number) => void;
}

/** Default longest line, in bytes (64 MiB). */
export const defaultMaxLineBytes = 64 * 1024 * 1024;

const newline = 0x0a;

/**
 * Splits a byte stream into UTF-8 lines, holding at most one line in memory.
 *
 * @param chunks - the stream (e.g. `createReadStream(path)`)
 * @param options - line length limit and a progress callback
 * @returns the lines, in order, numbered from 1
 * @example
 * ```ts
 * for await (const { line, text } of readLines(createReadStream('blocks.jsonl'))) console.log(line, text);
 * ```
 */
export async function* readLines(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadLinesOptions = {},
): AsyncGenerator<TextLine> {
  const maxLineBytes = options.maxLineBytes ?? defaultMaxLineBytes;
  const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
  let parts: Uint8Array[] = [];
  let partsBytes = 0;
  let skipping = false;
  let line = 0;
  let consumed = 0;

  const finish = (): TextLine => {
    line++;
    if (skipping) {
      const bytes = partsBytes;
      parts = [];
      partsBytes = 0;
      skipping = false;
      return { line, tooLong: { bytes } };
    }
    const joined = parts.length === 1 ? parts[0]! : Buffer.concat(parts, partsBytes);
    parts = [];
    partsBytes = 0;
    let text = decoder.decode(joined);
    // U+FFFD in the text is either written so or a byte that is not UTF-8: told apart only then
    const invalidUtf8 = text.includes('\ufffd') && !isUtf8(joined);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return invalidUtf8 ? { line, text, invalidUtf8 } : { line, text };
  };

  const add = (piece: Uint8Array) => {
    partsBytes += piece.length;
    if (skipping) return;
    if (partsBytes > maxLineBytes) {
      skipping = true;
      parts = [];
      return;
    }
    parts.push(piece);
  };

  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf(newline); end !== -1; end = chunk.indexOf(newline, start)) {
      add(chunk.subarray(start, end));
      yield finish();
      start = end + 1;
    }
    if (start < chunk.length) add(chunk.subarray(start));
    consumed += chunk.length;
    options.onBytes?.(consumed);
  }
  if (partsBytes > 0 || skipping) yield finish();
}
