import { GuardError, type GuardErrorOptions } from './guard-error.js';

/**
 * An input or output validator rejected a call (status `validation_failed`). The failing results are in `entry.result.validations`.
 *
 * @example
 * ```ts
 * if (e instanceof ValidationFailedError) console.log(e.entry?.result.validations);
 * ```
 */
export class ValidationFailedError extends GuardError {
  declare readonly code: 'VALIDATION_FAILED';

  /**
   * @param options - message, cause, the recorded entry and the tool name
   */
  constructor(options: GuardErrorOptions) {
    super('VALIDATION_FAILED', 'validation_failed', options);
  }
}
