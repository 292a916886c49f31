import { GuardError, type GuardErrorOptions } from './guard-error.js';

const marker = Symbol.for('tracewarden.error.BudgetExceededError');

/**
 * A call would exceed (or, for a cost known only afterwards, exceeded) a budget limit: per call, per session cost, or per session calls (status `budget_exceeded`).
 *
 * @example
 * ```ts
 * if (BudgetExceededError.isInstance(e)) console.log(e.entry?.result.metadata);
 * ```
 */
export class BudgetExceededError extends GuardError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: 'BUDGET_EXCEEDED';

  /**
   * @param options - message, cause, the recorded entry and the tool name
   */
  constructor(options: GuardErrorOptions) {
    super('BUDGET_EXCEEDED', 'budget_exceeded', options);
  }

  /**
   * Whether `error` is a `BudgetExceededError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (BudgetExceededError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is BudgetExceededError {
    return GuardError.hasMarker(error, marker);
  }
}
