/**
 * When the HTTP sink retries a batch, and how long it waits: exponential backoff with full
 * jitter, never less than the server's `Retry-After`.
 * @internal
 */

/**
 * The longest `Retry-After` honoured: a larger (or malformed far-future) value waits this long,
 * so one bad header cannot stall a sink for hours.
 * @internal
 */
export const maxRetryAfterMs = 5 * 60 * 1000;

/**
 * Whether an HTTP status means "try the same request again later": 408 (request timeout),
 * 429 (too many requests) and every 5xx. Other 4xx answers are final.
 * @internal
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Milliseconds a `Retry-After` header asks to wait: delay-seconds or an HTTP date, capped at
 * {@link maxRetryAfterMs}; `undefined` when absent or unreadable.
 * @internal
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, maxRetryAfterMs);
  // an HTTP date names its day and month; anything else (a negative number) is unreadable
  if (!/^[A-Za-z]{3},/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), maxRetryAfterMs);
}

/**
 * The wait before retry number `attempt` (0 for the first retry): a random time between half
 * and all of `min(maxDelayMs, baseDelayMs * 2^attempt)` (jitter, so clients that failed together
 * do not retry together; the fixed half keeps the backoff growing), and at least `retryAfterMs`
 * when the server gave one.
 * @internal
 */
export function retryDelayMs(
  attempt: number,
  baseDelayMs: number,
  maxDelayMs: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(attempt, 30));
  const jittered = Math.floor(ceiling / 2 + (random() * ceiling) / 2);
  return retryAfterMs === undefined ? jittered : Math.max(jittered, retryAfterMs);
}
