import type { Warning } from './format-warning.js';

/** Tallies the lines of each file that held bytes that are not UTF-8. */
export interface InvalidUtf8Tally {
  /** One such line of a file. */
  add(file: string, line: number): void;
  /** One `INVALID_UTF8` warning per file, at its first such line. */
  warnings(): Warning[];
}

/**
 * @internal A tally of lines with bytes that are not UTF-8 (a file saved as Latin-1 or
 * Windows-1252): a UTF-8 decoder reads each such byte as U+FFFD, which `validate` would pass and
 * `convert` write in silence; said once per file instead, as `LONE_SURROGATE` is per trace.
 * @param done - what the command did with the text: `read` (validate, check, view, stats) or
 *   `written` (convert)
 * @returns an empty tally
 * @example
 * ```ts
 * const tally = createInvalidUtf8Tally('read');
 * tally.add('run.jsonl', 3);
 * tally.warnings()[0]?.code; // 'INVALID_UTF8'
 * ```
 */
export function createInvalidUtf8Tally(done: 'read' | 'written'): InvalidUtf8Tally {
  const files = new Map<string, { line: number; count: number }>();
  return {
    add(file, line) {
      const entry = files.get(file);
      if (entry === undefined) files.set(file, { line, count: 1 });
      else entry.count++;
    },
    warnings() {
      return [...files].map(([file, { line, count }]) => ({
        code: 'INVALID_UTF8' as const,
        value: file,
        count,
        file,
        line,
        message: `${count === 1 ? '1 line holds' : `${count.toLocaleString('en-US')} lines hold`} bytes that are not UTF-8 (a file saved as Latin-1 or Windows-1252?), ${done} as U+FFFD (\ufffd); re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8) to keep those characters`,
      }));
    },
  };
}
