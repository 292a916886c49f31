import { GuardError, type GuardErrorOptions } from './guard-error.js';

const marker = Symbol.for('tracewarden.error.RateLimitedError');

/**
 * No rate-limit token was available (within `rateLimit.maxWaitMs`, if set), so the call was refused without running (status `rate_limited`).
 *
 * @example
 * ```ts
 * if (RateLimitedError.isInstance(e)) await backOff();
 * ```
 */
export class RateLimitedError extends GuardError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: 'RATE_LIMITED';

  /**
   * @param options - message, cause, the recorded entry and the tool name
   */
  constructor(options: GuardErrorOptions) {
    super('RATE_LIMITED', 'rate_limited', options);
  }

  /**
   * Whether `error` is a `RateLimitedError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (RateLimitedError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is RateLimitedError {
    return GuardError.hasMarker(error, marker);
  }
}
