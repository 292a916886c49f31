import { GuardError, type GuardErrorOptions } from './guard-error.js';

const marker = Symbol.for('tracewarden.error.ValidationFailedError');

/**
 * An input or output validator rejected a call (status `validation_failed`). The failing results are in `entry.result.validations`.
 *
 * @example
 * ```ts
 * if (ValidationFailedError.isInstance(e)) console.log(e.entry?.result.validations);
 * ```
 */
export class ValidationFailedError extends GuardError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: 'VALIDATION_FAILED';

  /**
   * @param options - message, cause, the recorded entry and the tool name
   */
  constructor(options: GuardErrorOptions) {
    super('VALIDATION_FAILED', 'validation_failed', options);
  }

  /**
   * Whether `error` is a `ValidationFailedError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (ValidationFailedError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is ValidationFailedError {
    return GuardError.hasMarker(error, marker);
  }
}
