/** An ISO 8601 date-time as Python writes one: `T` or a space, seconds and fraction optional. */
const dateTime = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;
const zoneSuffix = /(?:Z|[+-]\d\d:?\d\d)$/i;

/**
 * The instant a seed-004 record's `timestamp` (a Python `datetime`, UTC) names, in epoch
 * milliseconds, or `NaN` when it is not an ISO 8601 date-time (`"yesterday"`). A timestamp
 * without a zone is UTC, as the seed says.
 * @internal
 */
export function entryTimestampMs(timestamp: string): number {
  return dateTime.test(timestamp) ? utcTimestampMs(timestamp) : Number.NaN;
}

/**
 * `Date.parse` of a timestamp, read as UTC when it names no zone (`Date.parse` would read it in
 * the local zone): `NaN` when `Date` cannot read it.
 * @internal
 */
export function utcTimestampMs(timestamp: string): number {
  return Date.parse(zoneSuffix.test(timestamp) ? timestamp : `${timestamp}Z`);
}
