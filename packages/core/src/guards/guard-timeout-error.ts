import { GuardError, type GuardErrorOptions } from './guard-error.js';

/**
 * A guarded call did not finish within `timeout.timeoutSeconds` (status `timeout`). Its `cause` is the last attempt's error, if any.
 *
 * @example
 * ```ts
 * if (e instanceof GuardTimeoutError) console.log(e.entry?.result.execution_time_ms);
 * ```
 */
export class GuardTimeoutError extends GuardError {
  declare readonly code: 'TIMEOUT';

  /**
   * @param options - message, cause, the recorded entry and the tool name
   */
  constructor(options: GuardErrorOptions) {
    super('TIMEOUT', 'timeout', options);
  }
}
