import { GuardError, type GuardErrorOptions } from './guard-error.js';

/**
 * No rate-limit token was available (within `rateLimit.maxWaitMs`, if set), so the call was refused without running (status `rate_limited`).
 *
 * @example
 * ```ts
 * if (e instanceof RateLimitedError) await backOff();
 * ```
 */
export class RateLimitedError extends GuardError {
  declare readonly code: 'RATE_LIMITED';

  /**
   * @param options - message, cause, the recorded entry and the tool name
   */
  constructor(options: GuardErrorOptions) {
    super('RATE_LIMITED', 'rate_limited', options);
  }
}
