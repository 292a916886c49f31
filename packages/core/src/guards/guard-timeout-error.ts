import { GuardError, type GuardErrorOptions } from './guard-error.js';

const marker = Symbol.for('tracewarden.error.GuardTimeoutError');

/**
 * A guarded call did not finish within `timeout.timeoutSeconds` (status `timeout`). Its `cause` is the last attempt's error, if any.
 *
 * @example
 * ```ts
 * if (GuardTimeoutError.isInstance(e)) console.log(e.entry?.result.execution_time_ms);
 * ```
 */
export class GuardTimeoutError extends GuardError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: 'TIMEOUT';

  /**
   * @param options - message, cause, the recorded entry and the tool name
   */
  constructor(options: GuardErrorOptions) {
    super('TIMEOUT', 'timeout', options);
  }

  /**
   * Whether `error` is a `GuardTimeoutError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (GuardTimeoutError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is GuardTimeoutError {
    return GuardError.hasMarker(error, marker);
  }
}
