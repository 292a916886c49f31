import { createRequire } from 'node:module';
import { configurationError } from '../errors/validate-options.js';

type GenaiPrices = typeof import('@pydantic/genai-prices');

let genaiPrices: GenaiPrices | undefined;
/**
 * The price table is ~1,700 models of bundled data (~60 ms to load): loaded on the first price
 * asked for, not when `@tracewarden/core` is imported. Its CommonJS build loads synchronously.
 */
function prices(): GenaiPrices {
  genaiPrices ??= createRequire(import.meta.url)('@pydantic/genai-prices') as GenaiPrices;
  return genaiPrices;
}

let warming = false;
/**
 * Loads the price table in the background, once: on a timer that never keeps the process alive.
 * A model call calls this when it starts (through its pricer's `prepare`), so the table's load
 * (40-55 ms on a 2-core VM, more than the rest of a cold process's first call) overlaps the
 * model's own latency instead of being added to the first call when its price is asked for.
 * A load that fails here is left to fail, with its error, where a price is asked for.
 * @internal
 */
export function warmPriceTable(): void {
  if (genaiPrices !== undefined || warming) return;
  warming = true;
  const timer = setTimeout(() => {
    try {
      prices();
    } catch {
      // reported by the price asked for next
    }
  }, 0);
  timer.unref?.();
}

/** Whether the price table is loaded (for tests). @internal */
export function isPriceTableLoaded(): boolean {
  return genaiPrices !== undefined;
}

import { UnknownModelPriceError } from './unknown-model-price-error.js';

/**
 * A model price as the seed's `model_pricing_overrides` tuple: `[input, output]`, both in **USD
 * per 1,000,000 tokens** (which is the same number as micro-USD per token).
 */
export type ModelPrice = readonly [
  inputUsdPerMillionTokens: number,
  outputUsdPerMillionTokens: number,
];

/** Token usage of one model call, normalised across providers. */
export interface LlmUsage {
  /** All input (prompt) tokens, cached ones included. */
  inputTokens: number;
  /** All output (completion) tokens, reasoning ones included (OpenAI's convention). */
  outputTokens: number;
  /** The part of `inputTokens` read from the provider's prompt cache. */
  cachedInputTokens?: number | undefined;
  /** The part of `outputTokens` spent on reasoning (informational; priced as output). */
  reasoningTokens?: number | undefined;
}

/** What to price: a model call's usage. */
export interface PriceUsageInput {
  /** The model id as the provider reports it, e.g. `gpt-4o-mini-2024-07-18`. */
  model: string;
  /** Provider id as `@pydantic/genai-prices` names it (`openai`, `anthropic`, `google`, ...); helps matching. */
  provider?: string | undefined;
  usage: LlmUsage;
}

/**
 * What to do with a model that has no price (see `contributing/decisions/005-unknown-model-pricing.md`):
 * - `'refuse'`: throw {@link UnknownModelPriceError} (the default: a budget must not count an
 *   unpriced call as free without being told to);
 * - `'warn'`: report through `onWarn` and price it at 0 (`pricing_source: 'fallback'`);
 * - `{ fallback: [input, output] }`: price it at this tuple (USD per 1M tokens, `'fallback'`).
 */
export type UnknownModelPolicy = 'refuse' | 'warn' | { fallback: ModelPrice };

/** Options of {@link priceUsage}. */
export interface PriceUsageOptions {
  /**
   * Prices that win over the bundled table, by exact model id (or `provider:model`).
   * Cached input tokens are charged at the input rate: the tuple has no cache rate.
   */
  overrides?: Readonly<Record<string, ModelPrice>> | undefined;
  /** Policy for models without a price. @default 'refuse' */
  unknownModel?: UnknownModelPolicy | undefined;
  /** Called with a message when `unknownModel` is `'warn'` and a model is unpriced. @default console.warn */
  onWarn?: ((message: string) => void) | undefined;
  /** Price at this date (prices change over time in the table). @default now */
  at?: Date | undefined;
}

/** Where a cost record's price came from. */
export type PricingSource = 'genai-prices' | 'override' | 'fallback';

/** The cost of a model call (snake_case, as recorded in traces and ledgers). */
export interface CostRecord {
  /** Cost in USD, unrounded, from the price table. */
  cost_usd: number;
  /** Cost in integer micro-USD (rounded to nearest), what budgets count. */
  cost_micro_usd: number;
  pricing_source: PricingSource;
  /** The model whose price was used: the table's model id, the override key, or null for a fallback. */
  priced_model: string | null;
  /** Date (YYYY-MM-DD) of the price data used. */
  pricing_as_of: string;
  /** The model asked for. */
  model: string;
  /** The provider that priced it, when known. */
  provider: string | null;
}

/**
 * Date of the price data bundled in the pinned `@pydantic/genai-prices@0.1.8` (its release
 * date). Overrides and fallbacks are stamped with the pricing call's date instead.
 */
export const bundledPricesAsOf = '2026-09-23';

function micro(usd: number): number {
  // round via a fixed number of decimals first so 0.00325 × 1e6 = 3250.0000000000005 gives 3250
  return Math.round(Number((usd * 1e6).toFixed(3)));
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function fromTuple(usage: LlmUsage, price: ModelPrice): number {
  // USD per 1M tokens: tokens × price / 1e6 USD
  return (usage.inputTokens * price[0] + usage.outputTokens * price[1]) / 1e6;
}

const isTokenCount = (value: unknown): boolean =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** The input's shape, checked where it is given: a wrong one would price NaN or throw a TypeError. */
function checkPriceInput(input: PriceUsageInput): void {
  const given = input as unknown as Record<string, unknown> | null;
  const fail = (path: string, expected: string, value: unknown): never => {
    throw configurationError('priceUsage', path, expected, value);
  };
  if (typeof given !== 'object' || given === null)
    fail('input', '{ model, provider?, usage: { inputTokens, outputTokens } }', given);
  const { model, provider, usage } = given as Record<string, unknown>;
  if (typeof model !== 'string' || model === '') fail('model', 'a non-empty model id', model);
  if (provider !== undefined && typeof provider !== 'string')
    fail('provider', 'a provider name or undefined', provider);
  if (typeof usage !== 'object' || usage === null)
    fail('usage', '{ inputTokens, outputTokens } token counts', usage);
  const counts = usage as Record<string, unknown>;
  for (const key of ['inputTokens', 'outputTokens'] as const)
    if (!isTokenCount(counts[key])) fail(`usage.${key}`, 'a finite token count >= 0', counts[key]);
  if (counts.cachedInputTokens !== undefined && !isTokenCount(counts.cachedInputTokens))
    fail('usage.cachedInputTokens', 'a finite token count >= 0', counts.cachedInputTokens);
}

/** Where a price override goes, in each API that prices calls. */
function overrideHint(model: string): string {
  const price = `{ "${model}": [inputUsdPer1M, outputUsdPer1M] }`;
  return `adapters (wrapOpenAI, the AI SDK and LangChain adapters) take pricing: { overrides: ${price} }; createBudget takes modelPricingOverrides: ${price}`;
}

/**
 * Prices one model call's token usage: first `overrides` (exact model id, or `provider:model`),
 * then the bundled `@pydantic/genai-prices` table (offline, pinned), then the unknown-model
 * policy. Cached input tokens get the table's cache-read rate; reasoning tokens are part of
 * `outputTokens` and priced as output.
 *
 * @param input - model, optional provider and usage
 * @param options - overrides, unknown-model policy, date
 * @returns the {@link CostRecord}
 * @throws {UnknownModelPriceError} when the model has no price and the policy is `'refuse'`
 * @throws {ConfigurationError} (`INVALID_OPTIONS`) when `input` is not `{ model, usage: { inputTokens,
 *   outputTokens } }` with a non-empty model id and finite token counts >= 0
 * @example
 * ```ts
 * const cost = priceUsage({ model: 'gpt-4o', provider: 'openai', usage: { inputTokens: 1000, outputTokens: 100 } });
 * cost.cost_micro_usd; // 3500
 * cost.pricing_source; // 'genai-prices'
 * ```
 */
export function priceUsage(input: PriceUsageInput, options: PriceUsageOptions = {}): CostRecord {
  checkPriceInput(input);
  const { model, provider, usage } = input;
  const at = options.at ?? new Date();
  const overrides = options.overrides;
  if (overrides !== undefined) {
    const key =
      provider !== undefined && Object.hasOwn(overrides, `${provider}:${model}`)
        ? `${provider}:${model}`
        : model;
    const price = Object.hasOwn(overrides, key) ? overrides[key] : undefined;
    if (price !== undefined) {
      const usd = fromTuple(usage, price);
      return {
        cost_usd: usd,
        cost_micro_usd: micro(usd),
        pricing_source: 'override',
        priced_model: key,
        pricing_as_of: day(at),
        model,
        provider: provider ?? null,
      };
    }
  }
  const tokens: Record<string, number> = {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
  };
  if (usage.cachedInputTokens !== undefined && usage.cachedInputTokens > 0) {
    tokens.cache_read_tokens = Math.min(usage.cachedInputTokens, usage.inputTokens);
  }
  let result: ReturnType<GenaiPrices['calcPrice']> = null;
  try {
    result = prices().calcPrice(
      tokens,
      model,
      provider === undefined ? { timestamp: at } : { providerId: provider, timestamp: at },
    );
  } catch (cause) {
    if (options.unknownModel === undefined || options.unknownModel === 'refuse') {
      throw new UnknownModelPriceError({
        message: `Could not price model "${model}": the price table rejected the usage (${String(cause)}). Check the usage figures, or give the model a price: ${overrideHint(model)}.`,
        cause,
        model,
        provider,
      });
    }
  }
  if (result !== null) {
    return {
      cost_usd: result.total_price,
      cost_micro_usd: micro(result.total_price),
      pricing_source: 'genai-prices',
      priced_model: result.model.id,
      pricing_as_of: result.auto_update_timestamp?.slice(0, 10) ?? bundledPricesAsOf,
      model,
      provider: result.provider.id,
    };
  }
  const policy = options.unknownModel ?? 'refuse';
  if (policy === 'refuse') {
    throw new UnknownModelPriceError({
      message: `No price known for model "${model}"${provider === undefined ? '' : ` (provider "${provider}")`}. Give it a price (${overrideHint(model)}), pass the right provider id, or choose unknownModel: 'warn' (counted as 0) or { fallback: [inputUsdPer1M, outputUsdPer1M] }.`,
      model,
      provider,
    });
  }
  if (policy === 'warn') {
    const warn = options.onWarn ?? ((message: string) => console.warn(`[tracewarden] ${message}`));
    warn(
      `No price known for model "${model}"; counted as 0 USD. To price it: ${overrideHint(model)}.`,
    );
    return {
      cost_usd: 0,
      cost_micro_usd: 0,
      pricing_source: 'fallback',
      priced_model: null,
      pricing_as_of: day(at),
      model,
      provider: provider ?? null,
    };
  }
  const usd = fromTuple(usage, policy.fallback);
  return {
    cost_usd: usd,
    cost_micro_usd: micro(usd),
    pricing_source: 'fallback',
    priced_model: null,
    pricing_as_of: day(at),
    model,
    provider: provider ?? null,
  };
}
