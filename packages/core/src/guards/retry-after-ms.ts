/**
 * Reads a server's `Retry-After` from an error, in milliseconds. Looked up, in order:
 * - `error.retryAfterMs`: a number of milliseconds;
 * - `error.retryAfter`: a number of **seconds** (as the header), or a header-style string;
 * - `error.headers['retry-after']` (a plain object) or `error.headers.get('retry-after')` (a
 *   `Headers`, as the openai client's `APIError` has), and the same on `error.response.headers`:
 *   either delay-seconds (`"120"`, fractions allowed) or an HTTP date.
 * `retry-after-ms` (sent by some LLM APIs) wins over `retry-after` when both are present.
 *
 * @param error - any thrown value
 * @param now - current time in ms since the epoch, for HTTP-date values
 * @returns milliseconds to wait (0 for a date in the past), or `undefined` when there is none
 * @example
 * ```ts
 * retryAfterMs({ headers: { 'retry-after': '2' } }, Date.now()); // 2000
 * ```
 */
export function retryAfterMs(error: unknown, now: number): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  try {
    return readRetryAfter(error, now);
  } catch {
    // an error whose properties cannot be read (throwing getters, a hostile Proxy) says nothing
    return undefined;
  }
}

function readRetryAfter(error: object, now: number): number | undefined {
  const e = error as {
    retryAfterMs?: unknown;
    retryAfter?: unknown;
    headers?: unknown;
    response?: { headers?: unknown };
  };
  if (typeof e.retryAfterMs === 'number' && Number.isFinite(e.retryAfterMs))
    return Math.max(0, e.retryAfterMs);
  if (typeof e.retryAfter === 'number' && Number.isFinite(e.retryAfter))
    return Math.max(0, e.retryAfter * 1000);
  if (typeof e.retryAfter === 'string') {
    const parsed = parseRetryAfter(e.retryAfter, now);
    if (parsed !== undefined) return parsed;
  }
  return fromHeaders(e.headers, now) ?? fromHeaders(e.response?.headers, now);
}

function header(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') {
    const value: unknown = get.call(headers, name);
    return typeof value === 'string' ? value : undefined;
  }
  const record = headers as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() === name) {
      const value = record[key];
      if (typeof value === 'string') return value;
      if (typeof value === 'number') return String(value);
    }
  }
  return undefined;
}

function fromHeaders(headers: unknown, now: number): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined) {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const value = header(headers, 'retry-after');
  return value === undefined ? undefined : parseRetryAfter(value, now);
}

function parseRetryAfter(value: string, now: number): number | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  const seconds = Number(trimmed);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
