import { isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { CliError } from '../errors/index.js';
import { classifyValue, formatOfKind } from './classify-value.js';
import { documentItems } from './document-items.js';
import type { InputItem, ReadProblem } from './input-items.js';
import type { Input, OpenInputOptions } from './open-input.js';
import { parseJson } from './parse-json.js';
import { scanJson } from './scan-json.js';
import { unknownFormatError } from './unknown-format-error.js';

/** Calls `found` with each line of `bytes` that is not UTF-8. */
function invalidUtf8Lines(bytes: Buffer, found: (line: number) => void): void {
  let line = 1;
  let start = 0;
  for (;;) {
    const end = bytes.indexOf(0x0a, start);
    if (!isUtf8(bytes.subarray(start, end === -1 ? bytes.length : end))) found(line);
    if (end === -1) return;
    start = end + 1;
    line++;
  }
}

async function* singleItem(item?: InputItem): AsyncGenerator<InputItem> {
  if (item !== undefined) yield item;
}

/**
 * A JSON path's line in `text`, computed on first use: the offsets of paths (four levels deep)
 * and of newlines are found once, when a report first asks for a line.
 */
function lineLocator(text: string): (path: string) => number | undefined {
  let offsets: Map<string, number> | undefined;
  let newlines: number[] | undefined;
  return (path) => {
    offsets ??= scanJson(text, 4).offsets;
    const offset = offsets.get(path);
    if (offset === undefined) return undefined;
    if (newlines === undefined) {
      newlines = [];
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines.push(i);
    }
    let low = 0;
    let high = newlines.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((newlines[middle] ?? 0) < offset) low = middle + 1;
      else high = middle;
    }
    return low + 1;
  };
}

/**
 * @internal Reads a file as one JSON document, whole. Invalid JSON is a single problem item; an
 * empty document has no items.
 * @throws CliError `CLI_FILE_UNREADABLE` when the file cannot be read (too large for one string,
 *   say), `CLI_UNKNOWN_FORMAT` when the document matches no format and none was given
 */
export async function readJsonDocument(
  file: string,
  size: number,
  options: OpenInputOptions,
): Promise<Input> {
  const text = await readFile(file, options.signal === undefined ? {} : { signal: options.signal })
    .then((bytes) => {
      const decoded = bytes.toString('utf8');
      if (options.onInvalidUtf8 !== undefined && decoded.includes('\ufffd') && !isUtf8(bytes))
        invalidUtf8Lines(bytes, options.onInvalidUtf8);
      return decoded;
    })
    .catch((error: unknown) => {
      if (options.signal?.aborted === true) throw error;
      throw new CliError({
        code: 'CLI_FILE_UNREADABLE',
        file,
        message: `${file}: cannot read it as one JSON document (${error instanceof Error ? error.message : String(error)}); a file this large should be JSONL, one record per line`,
        cause: error,
      });
    });
  options.onBytes?.(size);
  const parsed = parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!parsed.ok) {
    const problem: ReadProblem = {
      type: 'problem',
      line: parsed.line,
      column: parsed.column,
      code: 'VALIDATION',
      message: `invalid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}; fix the file (or, for JSONL, keep one record per line)`,
    };
    return {
      file,
      size,
      container: 'json',
      format: options.format ?? 'events',
      items: singleItem(problem),
    };
  }
  const kind = classifyValue(parsed.value);
  if (kind === undefined && options.format === undefined) {
    if (text.trim() === '')
      return { file, size, container: 'json', format: 'events', items: singleItem() };
    throw unknownFormatError(file, undefined, parsed.value);
  }
  const format = options.format ?? formatOfKind(kind ?? 'trace');
  return {
    file,
    size,
    container: 'json',
    format,
    items: documentItems(parsed.value, kind, format, lineLocator(text)),
  };
}
