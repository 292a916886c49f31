/** The backoff part of retry options, in seconds as in the seed's `RetryConfig`. */
export interface BackoffOptions {
  /** Delay before the first retry, in seconds. @default 1 */
  initialDelay?: number;
  /** Upper bound of any delay, in seconds. @default 60 */
  maxDelay?: number;
  /** Each delay is the previous one times this factor. @default 2 */
  backoffFactor?: number;
  /** Randomise each delay within [delay / 2, delay] ("equal jitter"). @default true */
  jitter?: boolean;
}

/**
 * The backoff before retry number `retry` (1 for the first retry):
 * `min(maxDelay, initialDelay × backoffFactor^(retry − 1))`, then, with jitter, drawn uniformly
 * from `[delay / 2, delay]` so that concurrent callers spread out but never wait less than half.
 * @param retry - 1-based retry number
 * @param options - the retry options (seconds)
 * @param random - uniform random source in [0, 1)
 * @returns the delay in milliseconds
 * @example
 * ```ts
 * backoffDelay(3, { jitter: false }); // 4000 (1 s × 2²)
 * ```
 */
export function backoffDelay(
  retry: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const initial = (options.initialDelay ?? 1) * 1000;
  const max = (options.maxDelay ?? 60) * 1000;
  const factor = options.backoffFactor ?? 2;
  const delay = Math.min(max, initial * factor ** Math.max(0, retry - 1));
  if (options.jitter === false) return delay;
  // a `random` option that breaks its contract (NaN, out of [0, 1)) jitters to the middle, never
  // to a NaN or negative delay (which `setTimeout` warns about and fires at once)
  const unit = random();
  return delay / 2 + (unit >= 0 && unit < 1 ? unit : 0.5) * (delay / 2);
}
