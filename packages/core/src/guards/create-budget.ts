import { validateOptions } from '../errors/validate-options.js';
import type { Budget, BudgetOptions } from './budget.js';
import { budgetOptionsSchema } from './guard-options-schema.js';
import { MemoryBudget } from './memory-budget.js';

// The budget's types live in budget.ts; these are re-exported for modules that import them
// with createBudget (recording/create-model-call-guards.ts, guard-options-schema.ts and the
// property test guard-quiet-path.property.test.ts, kept unchanged).
export type { Budget, BudgetAlert, BudgetOptions, BudgetReservation } from './budget.js';

/**
 * Creates a {@link Budget}: integer micro-USD accounting, reserve-then-settle so concurrent calls
 * never overspend, and a once-per-session alert.
 * @param options - limits, costs and ledger (USD)
 * @returns the budget, to pass as `guard(fn, { budget })` (shared by every guard given it) or use directly
 * @example
 * ```ts
 * const budget = createBudget({ maxCostPerSession: 5, costPerCall: 0.01 });
 * const r = await budget.reserve();
 * if (r.ok) await budget.settle(r, 10_000);
 * ```
 */
export function createBudget<Result = unknown>(
  options: BudgetOptions<Result> = {},
): Budget<Result> {
  validateOptions(budgetOptionsSchema, options, { entryPoint: 'createBudget' });
  return new MemoryBudget(options);
}
