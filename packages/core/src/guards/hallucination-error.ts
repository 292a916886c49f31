import { GuardError, type GuardErrorOptions } from './guard-error.js';

/**
 * The hallucination detector judged a call or its result not real (status `hallucinated`). The signals are in `entry.result.hallucination`.
 *
 * @example
 * ```ts
 * if (e instanceof HallucinationError) console.log(e.entry?.result.hallucination?.signals);
 * ```
 */
export class HallucinationError extends GuardError {
  declare readonly code: 'HALLUCINATED';

  /**
   * @param options - message, cause, the recorded entry and the tool name
   */
  constructor(options: GuardErrorOptions) {
    super('HALLUCINATED', 'hallucinated', options);
  }
}
