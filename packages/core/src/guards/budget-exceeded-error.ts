import { GuardError, type GuardErrorOptions } from './guard-error.js';

/**
 * A call would exceed (or, for a cost known only afterwards, exceeded) a budget limit: per call, per session cost, or per session calls (status `budget_exceeded`).
 *
 * @example
 * ```ts
 * if (e instanceof BudgetExceededError) console.log(e.entry?.result.metadata);
 * ```
 */
export class BudgetExceededError extends GuardError {
  declare readonly code: 'BUDGET_EXCEEDED';

  /**
   * @param options - message, cause, the recorded entry and the tool name
   */
  constructor(options: GuardErrorOptions) {
    super('BUDGET_EXCEEDED', 'budget_exceeded', options);
  }
}
