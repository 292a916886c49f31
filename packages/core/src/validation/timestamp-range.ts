import { isIsoTimestamp } from '../text/is-iso-timestamp.js';

/**
 * Checks block timestamps as {@link isIsoTimestamp} does, remembering the second of the last
 * `Date#toISOString`-form timestamp that passed (`2025-01-31T12:00:00.` + `000Z` to `999Z`).
 * The blocks of a trace mostly share their second, and a timestamp of that second is then
 * proven by two native string comparisons and three characters: any 24-character string
 * between `low` and `high` starts with their common 20 characters (checked when they were
 * trusted) and a digit, so only the last two digits and the `Z` are left to read.
 *
 * Measured on small blocks (bench/validate.bench.ts lines, line-level CPU profile, decision
 * 070): the same-minute path of `isIsoTimestamp` cost ~0.10 of a `JSON.parse` of the line,
 * this ~0.02. Hold one per validator (and one per `validateBlocks` call): the blocks of
 * interleaved traces would otherwise keep replacing each other's second.
 * @internal
 */
export class TimestampRange {
  // an empty range until a timestamp is trusted
  low = '\uffff';
  high = '';

  /** Whether `value` is a strict ISO 8601 date-time with a zone ({@link isIsoTimestamp}). */
  accepts(value: string): boolean {
    if (value.length === 24 && value >= this.low && value <= this.high) {
      const tens = value.charCodeAt(21) - 48;
      const units = value.charCodeAt(22) - 48;
      return tens >= 0 && tens <= 9 && units >= 0 && units <= 9 && value.charCodeAt(23) === 90;
    }
    if (!isIsoTimestamp(value)) return false;
    // a valid timestamp of 24 characters with `.` at 19 and `Z` at 23 has three digits between
    if (value.length === 24 && value.charCodeAt(19) === 46 && value.charCodeAt(23) === 90) {
      const second = value.slice(0, 20);
      this.low = `${second}000Z`;
      this.high = `${second}999Z`;
    }
    return true;
  }
}
