import { GuardError, type GuardErrorOptions } from './guard-error.js';

const marker = Symbol.for('tracewarden.error.HallucinationError');

/**
 * The hallucination detector judged a call or its result not real (status `hallucinated`). The signals are in `entry.result.hallucination`.
 *
 * @example
 * ```ts
 * if (HallucinationError.isInstance(e)) console.log(e.entry?.result.hallucination?.signals);
 * ```
 */
export class HallucinationError extends GuardError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: 'HALLUCINATED';

  /**
   * @param options - message, cause, the recorded entry and the tool name
   */
  constructor(options: GuardErrorOptions) {
    super('HALLUCINATED', 'hallucinated', options);
  }

  /**
   * Whether `error` is a `HallucinationError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (HallucinationError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is HallucinationError {
    return GuardError.hasMarker(error, marker);
  }
}
