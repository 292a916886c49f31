import type { ValueLocation } from './create-unknown-value-tally.js';
import type { Warning } from './format-warning.js';

/** Distinct fields remembered; figures of further fields are counted under the last warning. */
const maxFields = 50;

/** Tallies token counts and costs that `stats` cannot count. */
export interface InvalidFigureTally {
  /** One such figure: its path in the record (`usage.input_tokens`), its value, where it is. */
  add(path: string, value: unknown, at: ValueLocation): void;
  /** Figures counted so far. */
  readonly count: number;
  /** One `INVALID_FIGURE` warning per field, at its first such value. */
  warnings(): Warning[];
}

/** What is wrong with a value that is not a non-negative JSON number, and how to write it. */
function describe(value: unknown): string {
  if (typeof value === 'number')
    return value < 0 ? 'a negative number' : 'a number too large for a double';
  if (typeof value === 'string') {
    const trimmed = value.trim();
    const number = Number(trimmed);
    return trimmed !== '' && Number.isFinite(number) && number >= 0
      ? `a string: write it as the number ${trimmed}`
      : 'a string, not a number';
  }
  return `${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}, not a number`;
}

/** The value as written, cut short. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/**
 * @internal A tally of token counts and costs that are not non-negative JSON numbers (`-5`, a
 * numeric string `"12"` a hand-written export holds): `stats` leaves each out of its totals, so
 * a negative count never lowers them and a string is never counted as 0 in silence; said once
 * per field, with the first record that holds one.
 * @returns an empty tally
 * @example
 * ```ts
 * const tally = createInvalidFigureTally();
 * tally.add('usage.input_tokens', -5, { file: 'run.jsonl', line: 3, address: '#0/1' });
 * tally.warnings()[0]?.message; // 'usage.input_tokens is -5 (a negative number): ...'
 * ```
 */
export function createInvalidFigureTally(): InvalidFigureTally {
  const seen = new Map<string, { count: number; value: unknown; at: ValueLocation }>();
  let count = 0;
  return {
    add(path, value, at) {
      count++;
      const entry = seen.get(path);
      if (entry !== undefined) entry.count++;
      else if (seen.size < maxFields) seen.set(path, { count: 1, value, at });
    },
    get count() {
      return count;
    },
    warnings() {
      return [...seen].map(([path, { count: times, value, at }]) => ({
        code: 'INVALID_FIGURE' as const,
        value: path,
        count: times,
        file: at.file,
        line: at.line,
        address: at.address === undefined ? path : `${at.address}.${path}`,
        message: `${path} is ${shown(value)} (${describe(value)}): a token count or cost must be a non-negative number; ${times === 1 ? '1 value' : `${times.toLocaleString('en-US')} values`} of this field left out of the totals`,
      }));
    },
  };
}
