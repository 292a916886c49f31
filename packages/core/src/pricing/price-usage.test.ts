import { describe, expect, it } from 'vitest';
import { bundledPricesAsOf, priceUsage } from './price-usage.js';
import { UnknownModelPriceError } from './unknown-model-price-error.js';

const usage = { inputTokens: 1000, outputTokens: 100 };

describe('priceUsage', () => {
  it('prices known models from the bundled genai-prices table', () => {
    const cost = priceUsage({ model: 'gpt-4o', provider: 'openai', usage });
    // 1000 × $2.5/M + 100 × $10/M
    expect(cost).toEqual({
      cost_usd: expect.closeTo(0.0035, 12),
      cost_micro_usd: 3500,
      pricing_source: 'genai-prices',
      priced_model: 'gpt-4o',
      pricing_as_of: bundledPricesAsOf,
      model: 'gpt-4o',
      provider: 'openai',
    });
    // the provider is found from the model name when not given
    expect(priceUsage({ model: 'gpt-4o-mini', usage }).provider).toBe('openai');
  });

  it('prices cached input tokens at the cache-read rate', () => {
    const plain = priceUsage({
      model: 'gpt-4o',
      provider: 'openai',
      usage: { inputTokens: 1000, outputTokens: 0 },
    });
    const cached = priceUsage({
      model: 'gpt-4o',
      provider: 'openai',
      usage: { inputTokens: 1000, outputTokens: 0, cachedInputTokens: 1000 },
    });
    expect(plain.cost_micro_usd).toBe(2500);
    expect(cached.cost_micro_usd).toBe(1250);
  });

  it('overrides win, by model or provider:model, in USD per 1M tokens', () => {
    const at = new Date('2026-02-03T10:00:00Z');
    expect(
      priceUsage({ model: 'gpt-4o', usage }, { overrides: { 'gpt-4o': [1, 2] }, at }),
    ).toMatchObject({
      cost_micro_usd: 1200,
      pricing_source: 'override',
      priced_model: 'gpt-4o',
      pricing_as_of: '2026-02-03',
    });
    expect(
      priceUsage({ model: 'm', provider: 'p', usage }, { overrides: { 'p:m': [3, 0] } })
        .priced_model,
    ).toBe('p:m');
  });

  it('unknown models: refuse (default) throws, warn prices at 0, fallback prices at the tuple', () => {
    const input = { model: 'no-such-model-xyz', usage };
    const error = (() => {
      try {
        priceUsage(input);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UnknownModelPriceError);
    expect(error).toMatchObject({ code: 'UNKNOWN_MODEL_PRICE', model: 'no-such-model-xyz' });
    expect((error as Error).message).toContain('modelPricingOverrides');

    const warnings: string[] = [];
    expect(
      priceUsage(input, { unknownModel: 'warn', onWarn: (m) => warnings.push(m) }),
    ).toMatchObject({
      cost_micro_usd: 0,
      pricing_source: 'fallback',
      priced_model: null,
    });
    expect(warnings).toHaveLength(1);
    expect(priceUsage(input, { unknownModel: { fallback: [10, 30] } })).toMatchObject({
      cost_micro_usd: 13_000,
      pricing_source: 'fallback',
    });
  });
});

describe('priceUsage: input of the wrong shape', () => {
  it('is a typed error naming the field, never NaN or a TypeError', () => {
    const cases: [unknown, string][] = [
      [null, 'input'],
      [{ model: 'gpt-4o', inputTokens: 5, outputTokens: 1 }, 'usage'],
      [{ model: '', usage: { inputTokens: 1, outputTokens: 1 } }, 'model'],
      [{ model: 'gpt-4o', usage: { inputTokens: '5', outputTokens: 1 } }, 'usage.inputTokens'],
      [
        { model: 'gpt-4o', usage: { inputTokens: 5, outputTokens: Number.NaN } },
        'usage.outputTokens',
      ],
      [
        { model: 'gpt-4o', usage: { inputTokens: 5, outputTokens: 1, cachedInputTokens: -1 } },
        'usage.cachedInputTokens',
      ],
    ];
    for (const [input, path] of cases)
      expect(() => priceUsage(input as never)).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTIONS',
          issues: [expect.objectContaining({ path })],
        }),
      );
  });
});
