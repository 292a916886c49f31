import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  cachedTableRates,
  clearTableRatesCache,
  createModelCallPricer,
  maxCachedTableRates,
} from './create-model-call-pricer.js';

/*
 * A pricer made per request (wrapOpenAI or a middleware per request) must not search the price
 * table again for a model another pricer of the process already priced: that search was ~80 µs of
 * every such first call. The price table is the CommonJS module the pricer requires.
 */
const table = createRequire(import.meta.url)('@pydantic/genai-prices') as {
  calcPrice: (...args: unknown[]) => unknown;
};
const usage = { inputTokens: 1000, outputTokens: 200, cachedInputTokens: 100 };

describe('createModelCallPricer: table rates shared by the process', () => {
  beforeEach(() => clearTableRatesCache());
  afterEach(() => vi.restoreAllMocks());

  it('reads a model from the table once for every pricer, with the same cost', () => {
    const first = createModelCallPricer({ provider: 'openai' })('gpt-4o-mini', usage);
    const search = vi.spyOn(table, 'calcPrice');
    for (let i = 0; i < 5; i++) {
      const again = createModelCallPricer({ provider: 'openai' })('gpt-4o-mini', usage);
      expect(again).toEqual(first);
    }
    expect(search).not.toHaveBeenCalled();
    expect(first?.pricing_source).toBe('genai-prices');
    // 900 uncached input, 100 cached and 200 output tokens at gpt-4o-mini's rates
    expect(first?.cost_micro_usd).toBe(Math.round(900 * 0.15 + 100 * 0.075 + 200 * 0.6));
  });

  it('keeps a pricer with overrides, a fixed date or an unpriced model to itself', () => {
    const overridden = createModelCallPricer({
      provider: 'openai',
      overrides: { 'gpt-4o-mini': [1, 2] },
    })('gpt-4o-mini', usage);
    expect(overridden?.pricing_source).toBe('override');
    expect(overridden?.cost_micro_usd).toBe(1000 + 400);
    createModelCallPricer({ provider: 'openai', unknownModel: 'warn', onWarn: () => {} })(
      'no-such-model-anywhere',
      usage,
    );
    createModelCallPricer({ provider: 'openai', at: new Date('2025-01-01') })('gpt-4o', usage);
    expect(cachedTableRates()).toBe(0);
    // and an override never reaches the table's shared entry of the same model
    const plain = createModelCallPricer({ provider: 'openai' })('gpt-4o-mini', usage);
    expect(plain?.pricing_source).toBe('genai-prices');
    expect(plain?.cost_micro_usd).not.toBe(overridden?.cost_micro_usd);
  });

  it('reads the table again once an entry is older than the pricer allows', () => {
    const clock = vi.spyOn(Date, 'now').mockReturnValue(1_000_000);
    createModelCallPricer({ provider: 'openai', cacheMs: 60_000 })('gpt-4o', usage);
    const search = vi.spyOn(table, 'calcPrice');
    clock.mockReturnValue(1_030_000);
    createModelCallPricer({ provider: 'openai', cacheMs: 60_000 })('gpt-4o', usage);
    expect(search).not.toHaveBeenCalled();
    clock.mockReturnValue(1_030_000);
    createModelCallPricer({ provider: 'openai', cacheMs: 10_000 })('gpt-4o', usage);
    expect(search).toHaveBeenCalled();
  });

  it(`holds at most ${maxCachedTableRates} models, whatever ids come in`, () => {
    // fine-tuned ids are endless and each one is priced by the table (as its base model)
    for (let i = 0; i <= maxCachedTableRates + 10; i++) {
      createModelCallPricer({ provider: 'openai' })(`ft:gpt-4o-mini-2024-07-18:org::${i}`, usage);
      expect(cachedTableRates()).toBeLessThanOrEqual(maxCachedTableRates);
    }
    expect(cachedTableRates()).toBeGreaterThan(0);
  });
});
