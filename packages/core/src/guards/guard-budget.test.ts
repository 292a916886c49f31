import { describe, expect, it } from 'vitest';
import type { TraceEntry } from '../model/tool-records.js';
import { fakeTime, memoryLogger } from './__fixtures__/fake-time.js';
import type { BudgetAlert } from './budget.js';
import { BudgetExceededError } from './budget-exceeded-error.js';
import { createMemoryCostLedger } from './cost-ledger.js';
import { createBudget } from './create-budget.js';
import { guard } from './guard.js';
import { usdToMicro } from './usd-to-micro.js';

function decisionsOf(entry: TraceEntry) {
  return (entry.result.metadata!.guard as { decisions: Record<string, unknown>[] }).decisions;
}

describe('budget', () => {
  it('counts integer micro-USD without float drift', async () => {
    expect(usdToMicro(0.1 + 0.2)).toBe(300_000);
    const budget = createBudget({ costPerCall: 0.1 });
    for (let i = 0; i < 10; i++) {
      const r = await budget.reserve();
      if (r.ok) await budget.settle(r, budget.limits.costPerCallMicroUsd!);
    }
    expect(await budget.spent()).toBe(1_000_000);
  });

  it('allows a call while spent + its cost ≤ max, then refuses', async () => {
    const entries: TraceEntry[] = [];
    const fn = guard(async () => 'ok', {
      budget: { maxCostPerSession: 0.3, costPerCall: 0.1 },
      onEntry: (e) => entries.push(e),
    });
    await fn();
    await fn();
    await fn();
    const error = await fn().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ code: 'BUDGET_EXCEEDED', status: 'budget_exceeded' });
    expect(await fn.budget!.spent()).toBe(300_000);
    expect(await fn.budget!.remaining()).toBe(0);
    expect(entries.map((e) => e.result.cost)).toEqual([0.1, 0.1, 0.1, null]);
    expect(decisionsOf(entries[2]!)).toContainEqual(
      expect.objectContaining({
        guard: 'budget',
        event: 'settled',
        spent_micro_usd: 300_000,
        remaining_micro_usd: 0,
      }),
    );
    expect(decisionsOf(entries[3]!)).toContainEqual(
      expect.objectContaining({ guard: 'budget', event: 'refused', limit: 'session_cost' }),
    );
  });

  it('1,000 concurrent calls never overspend (reserve before, settle after)', async () => {
    const releases: (() => void)[] = [];
    const fn = guard(() => new Promise<string>((resolve) => releases.push(() => resolve('ok'))), {
      budget: { maxCostPerSession: 0.05, costPerCall: 0.001 },
    });
    const calls = Array.from({ length: 1000 }, () =>
      fn().then(
        () => 'ok',
        (e: unknown) => e,
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(releases).toHaveLength(50);
    for (const release of releases) release();
    const results = await Promise.all(calls);
    expect(results.filter((r) => r === 'ok')).toHaveLength(50);
    expect(results.filter((r) => r instanceof BudgetExceededError)).toHaveLength(950);
    expect(await fn.budget!.spent()).toBe(50_000);
  });

  it('maxCallsPerSession per session; calls without a session share the default one', async () => {
    const fn = guard(async () => 'ok', { budget: { maxCallsPerSession: 1 } });
    await fn();
    await expect(fn()).rejects.toBeInstanceOf(BudgetExceededError);
    await expect(fn.invoke({ sessionId: 'other' })).resolves.toBe('ok');
    await expect(fn.invoke({ sessionId: 'default' })).rejects.toBeInstanceOf(BudgetExceededError);
  });

  it('fires the alert once when crossing alertThreshold, with a recorded decision', async () => {
    const alerts: BudgetAlert[] = [];
    const entries: TraceEntry[] = [];
    const fn = guard(async () => 'ok', {
      budget: {
        maxCostPerSession: 1,
        costPerCall: 0.25,
        alertThreshold: 0.5,
        onAlert: (a) => alerts.push(a),
      },
      onEntry: (e) => entries.push(e),
    });
    for (let i = 0; i < 4; i++) await fn();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      kind: 'cost',
      session_id: 'default',
      spent_micro_usd: 500_000,
      limit_micro_usd: 1_000_000,
    });
    const alertDecisions = entries.map(
      (e) => decisionsOf(e).filter((d) => d.event === 'alert').length,
    );
    expect(alertDecisions).toEqual([0, 1, 0, 0]);
  });

  it('a cost function of the result, and maxCostPerCall checked after the call', async () => {
    const entries: TraceEntry[] = [];
    const fn = guard(async (n: number) => ({ n }), {
      budget: { maxCostPerCall: 0.5, estimateCost: 0.1, cost: (r) => r.n },
      onEntry: (e) => entries.push(e),
    });
    await expect(fn(0.2)).resolves.toEqual({ n: 0.2 });
    const error = await fn(0.7).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    // the spend was recorded, and the entry keeps the result
    expect(await fn.budget!.spent()).toBe(900_000);
    expect(entries[1]!.result).toMatchObject({
      status: 'budget_exceeded',
      return_value: { n: 0.7 },
      cost: 0.7,
    });
  });

  it('an estimate over maxCostPerCall is refused before the call', async () => {
    let ran = false;
    const fn = guard(
      async () => {
        ran = true;
      },
      { budget: { maxCostPerCall: 0.1, costPerCall: 0.2 } },
    );
    await expect(fn()).rejects.toBeInstanceOf(BudgetExceededError);
    expect(ran).toBe(false);
  });

  it('onExceed warn and log let the call run and record the spend', async () => {
    for (const onExceed of ['warn', 'log'] as const) {
      const logger = memoryLogger();
      const fn = guard(async () => 'ok', {
        logger,
        budget: { maxCallsPerSession: 1, costPerCall: 0.01, onExceed },
      });
      await fn();
      await expect(fn()).resolves.toBe('ok');
      expect(await fn.budget!.spent()).toBe(20_000);
      expect(logger.warnings).toHaveLength(onExceed === 'warn' ? 1 : 0);
    }
  });

  it('LLM spend from token usage × model price, with the cost record in the entry', async () => {
    const entries: TraceEntry[] = [];
    const fn = guard(
      async () => ({ model: 'my-model', usage: { prompt_tokens: 1000, completion_tokens: 500 } }),
      {
        budget: {
          llmUsage: (r) => ({
            model: r.model,
            usage: { inputTokens: r.usage.prompt_tokens, outputTokens: r.usage.completion_tokens },
          }),
          modelPricingOverrides: { 'my-model': [2, 8] },
        },
        onEntry: (e) => entries.push(e),
      },
    );
    await fn();
    // 1000 × 2 + 500 × 8 micro-USD
    expect(await fn.budget!.spent()).toBe(6000);
    expect(entries[0]!.result.cost).toBe(0.006);
    expect(
      (entries[0]!.result.metadata!.guard as { cost_record: unknown }).cost_record,
    ).toMatchObject({
      pricing_source: 'override',
      priced_model: 'my-model',
      cost_micro_usd: 6000,
    });
  });

  it('recordLlmSpend: false counts the spend but keeps the spend record out of the trace', async () => {
    const entries: TraceEntry[] = [];
    const fn = guard(async () => ({ model: 'my-model' }), {
      budget: {
        llmUsage: (r) => ({ model: r.model, usage: { inputTokens: 1000, outputTokens: 0 } }),
        modelPricingOverrides: { 'my-model': [2, 8] },
        recordLlmSpend: false,
      },
      onEntry: (e) => entries.push(e),
    });
    await fn();
    expect(await fn.budget!.spent()).toBe(2000);
    expect(entries[0]!.result.cost).toBe(0.002);
    expect(entries[0]!.result.metadata!.guard).not.toHaveProperty('cost_record');
  });

  it('costPerCall may be a function of the result, and maxCostPerCall still holds', async () => {
    const fn = guard(async (price: number) => ({ price }), {
      budget: { costPerCall: (r) => r.price, maxCostPerCall: 0.4 },
    });
    await expect(fn(0.25)).resolves.toEqual({ price: 0.25 });
    expect(await fn.budget!.spent()).toBe(250_000);
    await expect(fn(0.5)).rejects.toBeInstanceOf(BudgetExceededError);
  });

  it('an unpriced model under refuse charges the estimate and reports it', async () => {
    const logger = memoryLogger();
    const fn = guard(async () => ({ model: 'no-such-model-xyz' }), {
      logger,
      budget: {
        estimateCost: 0.01,
        llmUsage: (r) => ({ model: r.model, usage: { inputTokens: 1, outputTokens: 1 } }),
      },
    });
    await expect(fn()).resolves.toEqual({ model: 'no-such-model-xyz' });
    expect(await fn.budget!.spent()).toBe(10_000);
    expect(logger.warnings[0]?.message).toContain('no-such-model-xyz');
  });

  it('failed calls are charged costPerCall; refused ones nothing', async () => {
    const fn = guard(
      async () => {
        throw new Error('x');
      },
      { budget: { costPerCall: 0.01 } },
    );
    await fn().catch(() => undefined);
    expect(await fn.budget!.spent()).toBe(10_000);
  });

  it('a budget object is shared between guards and usable on its own', async () => {
    const budget = createBudget({ maxCostPerSession: 0.02, costPerCall: 0.01 });
    const a = guard(async () => 'a', { budget });
    const b = guard(async () => 'b', { budget });
    await a();
    await b();
    await expect(a()).rejects.toBeInstanceOf(BudgetExceededError);
    const refused = await budget.reserve(10_000, { sessionId: 'default' });
    expect(refused).toMatchObject({ ok: false, exceeded: 'session_cost' });
    const other = await budget.reserve(10_000, { sessionId: 's2' });
    expect(other.ok).toBe(true);
    await budget.release(other);
    expect(await budget.remaining('s2')).toBe(20_000);
    await budget.reset();
    expect(await budget.spent()).toBe(0);
  });

  it('the memory ledger settles and releases exactly once', () => {
    const ledger = createMemoryCostLedger();
    const r = ledger.reserve({ sessionId: 's', amountMicroUsd: 100, maxMicroUsd: 150 });
    if (r instanceof Promise || !r.ok) throw new Error('expected a reservation');
    expect(ledger.reserve({ sessionId: 's', amountMicroUsd: 100, maxMicroUsd: 150 })).toMatchObject(
      { ok: false, exceeded: 'session_cost' },
    );
    ledger.settle(r.reservation, 120);
    ledger.settle(r.reservation, 120);
    ledger.release(r.reservation);
    expect(ledger.spent('s')).toEqual({ spentMicroUsd: 120, reservedMicroUsd: 0, calls: 1 });
    const forced = ledger.reserve({
      sessionId: 's',
      amountMicroUsd: 100,
      maxMicroUsd: 150,
      force: true,
    });
    expect(forced).toMatchObject({ ok: true, exceeded: 'session_cost' });
  });

  it('counts the time of a synchronous alert callback in execution_time_ms, as the timestamps do', async () => {
    const time = fakeTime();
    const entries: TraceEntry[] = [];
    const fn = guard(async () => 'ok', {
      clock: time.clock,
      budget: {
        maxCostPerSession: 1,
        costPerCall: 0.9,
        onAlert: () => time.advance(50), // a slow alert handler, run while settling
      },
      onEntry: (entry) => entries.push(entry),
    });
    await fn();
    const [entry] = entries;
    expect(entry!.result.execution_time_ms).toBe(50);
    expect(Date.parse(entry!.result.timestamp) - Date.parse(entry!.call.timestamp)).toBe(50);
  });

  it('ends a plain call at its attempt: execution_time_ms and timestamps agree', async () => {
    let now = Date.UTC(2026, 0, 1);
    const entries: TraceEntry[] = [];
    const fn = guard(async () => 'ok', {
      clock: () => now++, // every read moves the clock
      budget: { maxCostPerSession: 100, costPerCall: 0.01 },
      circuitBreaker: { failureThreshold: 3 },
      onEntry: (entry) => entries.push(entry),
    });
    await fn();
    const [entry] = entries;
    expect(Date.parse(entry!.result.timestamp) - Date.parse(entry!.call.timestamp)).toBe(
      entry!.result.execution_time_ms,
    );
  });
});
