import { describe, expect, it } from 'vitest';
import { createModelCallGuards } from '../recording/create-model-call-guards.js';
import type { ModelCallGuard } from '../recording/types.js';
import { fakeTime } from './__fixtures__/fake-time.js';
import { createMemoryCircuitBreakerStore } from './circuit-breaker-store.js';
import { guard } from './guard.js';
import type { CircuitBreakerOptions, RateLimitOptions } from './guard-options.js';
import { createMemoryRateLimitStore } from './rate-limit-store.js';

// A tool guard and the guards of model calls take the same rateLimit and circuitBreaker options
// (adapters pass `guards: { rateLimit, circuitBreaker }`): both must read them the same way.

const context = { provider: 'openai', model: 'gpt-test', estimatedInputTokens: 1 };

/** Whether a model call is admitted now (a refusal throws a typed error). */
function admits(guards: ModelCallGuard[]): boolean {
  try {
    for (const g of guards) g.admit(context);
    return true;
  } catch {
    return false;
  }
}

async function toolAdmits(tool: () => Promise<unknown>): Promise<boolean> {
  return tool().then(
    () => true,
    () => false,
  );
}

describe('rateLimit, resolved once for tools and model calls', () => {
  it('burst: 0 counts as 1 for both: one call, then refused until a token refills', async () => {
    const time = fakeTime();
    const rateLimit: RateLimitOptions = {
      callsPerHour: 1,
      burst: 0,
      sharedKey: '',
      store: createMemoryRateLimitStore(),
    };
    const tool = guard(async () => 'ok', { name: 'lookup', rateLimit, clock: time.clock });
    const models = createModelCallGuards({ rateLimit, clock: time.clock });
    expect([await toolAdmits(tool), await toolAdmits(tool)]).toEqual([true, false]);
    // model calls used to get a bucket of 0 tokens: every call refused, forever
    expect([admits(models), admits(models)]).toEqual([true, false]);
    time.advance(3_600_001);
    expect([await toolAdmits(tool), admits(models)]).toEqual([true, true]);
  });

  it('a sharedKey names one bucket for a tool and for model calls', async () => {
    const time = fakeTime();
    const store = createMemoryRateLimitStore();
    const rateLimit: RateLimitOptions = { callsPerHour: 1, sharedKey: 'provider-quota', store };
    const tool = guard(async () => 'ok', { name: 'search', rateLimit, clock: time.clock });
    const models = createModelCallGuards({ rateLimit, clock: time.clock });
    expect(await toolAdmits(tool)).toBe(true);
    // the tool took the shared token: the model call waits for the same bucket
    expect(admits(models)).toBe(false);
    expect(store.size).toBe(1);
  });

  it('records the same bucket key for a refusal of either', async () => {
    const time = fakeTime();
    const store = createMemoryRateLimitStore();
    const rateLimit: RateLimitOptions = {
      callsPerHour: 1,
      sharedKey: 'k',
      onLimit: 'log',
      store,
    };
    const entries: unknown[] = [];
    const tool = guard(async () => 'ok', {
      rateLimit,
      clock: time.clock,
      onEntry: (entry) => entries.push(entry.result.metadata?.guard),
    });
    const models = createModelCallGuards({ rateLimit, clock: time.clock });
    await tool();
    await tool();
    const ticket = await models[0]!.admit(context);
    const toolKey = JSON.stringify(entries.at(-1)).match(/"key":"([^"]+)"/)?.[1];
    expect(toolKey).toBe('shared:k');
    expect(ticket?.decisions?.[0]).toMatchObject({ event: 'refused', key: toolKey });
  });
});

describe('circuitBreaker, resolved once for tools and model calls', () => {
  it('thresholds of 0 count as 1 for both: one failure opens, one probe closes', async () => {
    const time = fakeTime();
    const breaker = (): CircuitBreakerOptions => ({
      failureThreshold: 0,
      successThreshold: 0,
      recoveryTimeout: 1,
      store: createMemoryCircuitBreakerStore(),
    });
    let fail = true;
    const tool = guard(
      async () => {
        if (fail) throw new Error('down');
        return 'ok';
      },
      { circuitBreaker: breaker(), clock: time.clock },
    );
    const models = createModelCallGuards({ circuitBreaker: breaker(), clock: time.clock });

    expect(await toolAdmits(tool)).toBe(false);
    expect(tool.breakerState).toBe('open');
    (await models[0]!.admit(context))?.settle?.({ status: 'failure' } as never);
    expect(admits(models)).toBe(false);

    time.advance(1_000);
    fail = false;
    expect(await toolAdmits(tool)).toBe(true);
    expect(tool.breakerState).toBe('closed');
    // a success threshold of 0 used to leave model calls half-open with no probe slot, forever
    const probe = await models[0]!.admit(context);
    probe?.settle?.({ status: 'success' } as never);
    expect(admits(models)).toBe(true);
  });
});
