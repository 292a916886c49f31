import { scanJson } from './scan-json.js';

/** Outcome of {@link parseJson}. */
export type JsonParseResult =
  | { ok: true; value: unknown }
  | { ok: false; reason: string; offset: number; line: number; column: number };

/**
 * Parses JSON and, on failure, locates the error: 1-based line and column (columns count UTF-16
 * code units) and a short reason that never repeats the input.
 *
 * @param text - JSON text
 * @returns the value, or where and why it is not JSON
 * @example
 * ```ts
 * parseJson('{"a":1,}'); // { ok: false, line: 1, column: 8, reason: 'expected a double-quoted property name', ... }
 * ```
 */
export function parseJson(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const scan = scanJson(text, 0);
    const offset = scan.error?.offset ?? positionFromMessage(error) ?? 0;
    const reason = scan.error?.reason ?? (error instanceof Error ? error.message : String(error));
    const { line, column } = lineColumnAt(text, offset);
    return { ok: false, reason, offset, line, column };
  }
}

function positionFromMessage(error: unknown): number | undefined {
  const match = error instanceof Error ? /position (\d+)/.exec(error.message) : null;
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * The 1-based line and column of an offset in `text`.
 * @param text - the text
 * @param offset - a 0-based UTF-16 offset
 * @returns line and column, both 1-based
 */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
