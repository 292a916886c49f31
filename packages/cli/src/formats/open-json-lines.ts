import { createReadStream } from 'node:fs';
import { classifyValue, formatOfKind } from './classify-value.js';
import { jsonlItems } from './jsonl-items.js';
import type { Input, OpenInputOptions } from './open-input.js';
import { parseJson } from './parse-json.js';
import { defaultMaxLineBytes, readLines, type TextLine } from './read-lines.js';
import { unknownFormatError } from './unknown-format-error.js';

/**
 * @internal Opens a file as JSON Lines, streamed: reads lines until one tells the format (at most
 * 100), and replays them before the rest. When the file's extension did not say JSONL and its
 * first line alone is not JSON, it is a pretty-printed JSON document: returns undefined (the
 * stream is closed) so that it is read whole.
 * @param container - `'jsonl'` when the extension says so, else undefined (not known)
 * @throws CliError `CLI_UNKNOWN_FORMAT` when lines are JSON but match no format and none was given
 */
export async function openJsonLines(
  file: string,
  size: number,
  container: 'jsonl' | undefined,
  options: OpenInputOptions,
): Promise<Input | undefined> {
  const stream = createReadStream(
    file,
    options.signal === undefined ? {} : { signal: options.signal },
  );
  const lines = readLines(stream, {
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    ...(options.onBytes === undefined ? {} : { onBytes: options.onBytes }),
  })[Symbol.asyncIterator]();
  // Peek until the first line that tells the format, replaying what was read.
  const peeked: TextLine[] = [];
  let format = options.format;
  let firstParsed: boolean | undefined;
  for (;;) {
    const next = await lines.next();
    if (next.done === true) break;
    peeked.push(next.value);
    const text = next.value.text;
    if (text === undefined || text.trim() === '') continue;
    const parsed = parseJson(text);
    firstParsed ??= parsed.ok;
    if (parsed.ok) {
      const kind = classifyValue(parsed.value);
      if (kind !== undefined) format ??= formatOfKind(kind);
    }
    if (format !== undefined || peeked.length >= 100 || (container === undefined && !parsed.ok))
      break;
  }
  if (container === undefined && firstParsed === false) {
    // The first line alone is not JSON: a pretty-printed JSON document.
    stream.destroy();
    return undefined;
  }
  if (
    format === undefined &&
    peeked.some((line) => line.text !== undefined && line.text.trim() !== '')
  ) {
    const firstGood = peeked.find((line) => line.text !== undefined && parseJson(line.text).ok);
    if (firstGood !== undefined) {
      stream.destroy();
      const parsed = parseJson(firstGood.text ?? '');
      throw unknownFormatError(file, firstGood.line, parsed.ok ? parsed.value : undefined);
    }
  }
  const resolved = format ?? 'events';
  return {
    file,
    size,
    container: 'jsonl',
    format: resolved,
    items: jsonlItems(
      peeked,
      lines,
      resolved,
      options.format !== undefined,
      options.maxLineBytes ?? defaultMaxLineBytes,
      options.onInvalidUtf8,
    ),
  };
}
