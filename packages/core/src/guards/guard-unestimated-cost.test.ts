import { describe, expect, it } from 'vitest';
import { BudgetExceededError } from './budget-exceeded-error.js';
import { createBudget } from './create-budget.js';
import { guard } from './guard.js';

/** Runs `count` calls at once; returns how many succeeded and how many the budget refused. */
async function burst(fn: () => Promise<unknown>, count: number) {
  const outcomes = await Promise.allSettled(Array.from({ length: count }, () => fn()));
  return {
    ran: outcomes.filter((o) => o.status === 'fulfilled').length,
    refused: outcomes.filter(
      (o) => o.status === 'rejected' && BudgetExceededError.isGuardError(o.reason),
    ).length,
  };
}

describe('a cost known only after the call, under concurrency', () => {
  it("with unestimatedCalls: 'one-at-a-time', 1,000 concurrent $0.01 calls stay within $1", async () => {
    let runs = 0;
    const fn = guard(
      async () => {
        runs++;
        return 'ok';
      },
      {
        budget: { maxCostPerSession: 1, cost: () => 0.01, unestimatedCalls: 'one-at-a-time' },
      },
    );
    const { ran, refused } = await burst(fn, 1000);
    expect(ran).toBe(100);
    expect(runs).toBe(100);
    expect(refused).toBe(900);
    expect(await fn.budget!.spent()).toBe(1_000_000);
  });

  it('one-at-a-time serialises per session and frees the turn of a failed or refused call', async () => {
    const budget = createBudget({
      maxCostPerSession: 1,
      cost: () => 0.5,
      unestimatedCalls: 'one-at-a-time',
    });
    let inFlight = 0;
    let most = 0;
    const fn = guard(
      async (fail: boolean) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight--;
        if (fail) throw new Error('tool failed');
        return 'ok';
      },
      { budget },
    );
    const results = await Promise.allSettled([fn(true), fn(false), fn(false), fn(false)]);
    expect(most).toBe(1);
    expect(results.map((r) => r.status)).toEqual([
      'rejected',
      'fulfilled',
      'fulfilled',
      'rejected',
    ]);
    expect(await budget.spent()).toBe(1_000_000);
    // another session has its own turn and its own spend
    await expect(fn.invoke({ sessionId: 'other' }, false)).resolves.toBe('ok');
  });

  it('an estimate keeps concurrent calls within budget without serialising them', async () => {
    const fn = guard(async () => 'ok', {
      budget: { maxCostPerSession: 1, cost: () => 0.01, estimateCost: 0.01 },
    });
    const { ran, refused } = await burst(fn, 1000);
    expect(ran).toBe(100);
    expect(refused).toBe(900);
    expect(await fn.budget!.spent()).toBe(1_000_000);
  });
});
