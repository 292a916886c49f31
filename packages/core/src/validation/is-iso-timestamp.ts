/**
 * The number written by the `count` ASCII digits of `text` from `start`: -1 when one of them is
 * not a digit, NaN when they run past the end (both fail every range check).
 * @internal
 */
export function digitsAt(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** Whether `text` starts with a valid `YYYY-MM-DDTHH:MM` (16 characters). */
function hasIsoPrefix(text: string): boolean {
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  return (
    digitsAt(text, 0, 4) >= 0 &&
    text.charCodeAt(4) === 45 &&
    month >= 1 &&
    month <= 12 &&
    text.charCodeAt(7) === 45 &&
    day >= 1 &&
    day <= 31 &&
    text.charCodeAt(10) === 84 &&
    hour >= 0 &&
    hour <= 23 &&
    text.charCodeAt(13) === 58 &&
    minute >= 0 &&
    minute <= 59
  );
}

/** Whether `text` continues after its 16-character prefix with `:SS[.fraction](Z|+HH:MM)`. */
function hasIsoTail(text: string): boolean {
  const length = text.length;
  const second = digitsAt(text, 17, 2);
  if (text.charCodeAt(16) !== 58 || second < 0 || second > 60) return false;
  let at = 19;
  if (text.charCodeAt(at) === 46) {
    const start = ++at;
    while (at < length && at - start < 9) {
      const code = text.charCodeAt(at);
      if (code < 48 || code > 57) break;
      at++;
    }
    if (at === start) return false;
  }
  const zone = text.charCodeAt(at);
  if (zone === 90) return at + 1 === length;
  if (zone !== 43 && zone !== 45) return false;
  const zoneHour = digitsAt(text, at + 1, 2);
  const zoneMinute = digitsAt(text, at + 4, 2);
  return (
    at + 6 === length &&
    zoneHour >= 0 &&
    zoneHour <= 23 &&
    text.charCodeAt(at + 3) === 58 &&
    zoneMinute >= 0 &&
    zoneMinute <= 59
  );
}

// The date-hour-minute prefix of the last valid timestamp. Consecutive blocks nearly always share
// it, so a native startsWith replaces most of the per-character work. Only a cache: any value
// it holds was fully checked.
let trustedPrefix = '\u0000';
// The last timestamp that passed in full: the tracer stamps every block of a millisecond with
// the same string, and a JSONL file often repeats one. Only a cache: it was fully checked.
let trustedTimestamp: string | undefined;

/**
 * Whether `text` is a strict ISO 8601 date-time with a zone (`2025-01-31T12:00:00.000Z`,
 * `...+02:00`), as `Date#toISOString` and providers write it. Hand-written: a regex costs
 * several times more on this per-block path.
 * @internal
 */
export function isIsoTimestamp(text: string): boolean {
  if (text === trustedTimestamp) return true;
  const length = text.length;
  if (length < 20 || length > 35) return false;
  if (!text.startsWith(trustedPrefix)) {
    if (!hasIsoPrefix(text)) return false;
    trustedPrefix = text.slice(0, 16);
  }
  if (!hasIsoTail(text)) return false;
  trustedTimestamp = text;
  return true;
}
