// 10000-01-01T00:00:00.000Z: from here on toISOString writes six-digit years
const fastLimitMs = 253_402_300_800_000;
// The minute of the last timestamp formatted and its "YYYY-MM-DDTHH:MM:" text: consecutive
// timestamps nearly always share it, so only seconds and milliseconds are written per call.
let minuteStart = Number.NaN;
let minutePrefix = '';
// The last timestamp formatted: calls in the same millisecond get the very same string (no
// allocation, and validators that trust a string they checked compare it by identity).
let lastMs = Number.NaN;
let lastText = '';

/**
 * `new Date(ms).toISOString()`, without a Date or a native call per timestamp: the text of the
 * minute is cached and seconds and milliseconds are appended arithmetically. Anything other than
 * a whole millisecond in years 1970-9999 takes the Date path (and its RangeError for NaN).
 * @param ms - epoch milliseconds
 * @returns the ISO 8601 UTC text, exactly as `Date#toISOString` writes it
 * @internal
 */
export function formatIsoTimestamp(ms: number): string {
  if (ms === lastMs) return lastText;
  if (!(ms >= 0 && ms < fastLimitMs) || ms % 1 !== 0) return new Date(ms).toISOString();
  const rest = ms % 60_000;
  const minute = ms - rest;
  if (minute !== minuteStart) {
    minutePrefix = new Date(minute).toISOString().slice(0, 17);
    minuteStart = minute;
  }
  const seconds = (rest / 1000) | 0;
  const milliseconds = rest - seconds * 1000;
  lastText = `${minutePrefix}${seconds < 10 ? '0' : ''}${seconds}${milliseconds < 10 ? '.00' : milliseconds < 100 ? '.0' : '.'}${milliseconds}Z`;
  lastMs = ms;
  return lastText;
}
