import { describe, expect, it } from 'vitest';
import type { TraceEntry } from '../model/tool-records.js';
import { BudgetExceededError } from './budget-exceeded-error.js';
import { createBudget } from './create-budget.js';
import { guard } from './guard.js';
import { InvalidCostError } from './invalid-cost-error.js';

describe('a cost that is not a finite amount >= 0', () => {
  it.each([
    ['NaN', Number.NaN],
    ['a string', '0.01'],
    ['negative', -0.5],
    ['Infinity', Number.POSITIVE_INFINITY],
  ])('(%s) fails the call with INVALID_COST and never reaches the ledger', async (_label, bad) => {
    let next: unknown = bad;
    const entries: TraceEntry[] = [];
    const fn = guard(async () => 'ok', {
      budget: { maxCostPerSession: 0.05, cost: () => next as number, estimateCost: 0.01 },
      onEntry: (entry) => entries.push(entry),
    });
    const error = await fn().catch((e: unknown) => e);
    expect(InvalidCostError.isInstance(error)).toBe(true);
    expect((error as InvalidCostError).code).toBe('INVALID_COST');
    expect((error as InvalidCostError).message).toContain('finite amount >= 0');
    // charged the reserved estimate, never the bad value: the budget still holds
    expect(await fn.budget!.spent()).toBe(10_000);
    expect(entries[0]?.result.status).toBe('failure');
    next = 0.02;
    await fn();
    await fn();
    expect(await fn.budget!.spent()).toBe(50_000);
    await expect(fn()).rejects.toBeInstanceOf(BudgetExceededError);
  });

  it('is refused by budget.settle and budget.reserve, which change nothing', async () => {
    const budget = createBudget({ maxCostPerSession: 1 });
    const reservation = await budget.reserve(1000);
    expect(() => budget.settle(reservation, Number.NaN)).toThrow(InvalidCostError);
    expect(() => budget.settle(reservation, -1)).toThrow(InvalidCostError);
    expect(() => budget.reserve(Number.NaN)).toThrow(InvalidCostError);
    expect(await budget.spent()).toBe(0);
    expect(await budget.remaining()).toBe(999_000);
    await budget.settle(reservation, 500);
    expect(await budget.remaining()).toBe(999_500);
  });
});
