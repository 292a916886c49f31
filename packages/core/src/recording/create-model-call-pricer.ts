import {
  type CostRecord,
  type PriceUsageOptions,
  priceUsage,
  warmPriceTable,
} from '../pricing/price-usage.js';
import type { ModelCallPricer } from './types.js';

/** Options of {@link createModelCallPricer}. */
export interface ModelCallPricerOptions extends PriceUsageOptions {
  /** Provider id given to the price table (helps matching), e.g. `openai`. */
  provider?: string | undefined;
  /** How long a model's per-token rates are reused, in ms. @default 3_600_000 (one hour) */
  cacheMs?: number | undefined;
}

interface Rates {
  input: number;
  cached: number;
  output: number;
  record: CostRecord;
  expires: number;
}

/** A model's rates from the bundled table, shared by every pricer of the process. */
interface TableRates extends Omit<Rates, 'expires'> {
  /** `Date.now()` when they were read from the table. */
  readAt: number;
}

/**
 * The most models whose table rates the process keeps ({@link tableRatesCache}); past it the
 * cache starts over. Model ids can come from outside (a proxy's, a user's), so it is bounded.
 */
export const maxCachedTableRates = 1_000;

/**
 * Table rates by `<how the provider was chosen>\0<provider>\0<model>`, shared by every pricer:
 * reading one model's rates is three or four searches of the price table (~80 µs on a 2-core VM),
 * which a pricer of its own paid on its first call, so every `wrapOpenAI(client)` or middleware
 * made per request paid it on its first model call (bench/first-call.bench.ts). Only rates the
 * table priced are kept; overrides and fallbacks are the pricer's own. Each pricer still applies
 * its own `cacheMs` to an entry's age.
 */
const tableRatesCache = new Map<string, TableRates>();

/** Empties the shared table-rates cache (for tests). @internal */
export function clearTableRatesCache(): void {
  tableRatesCache.clear();
}

/** How many models' table rates the process holds (for tests). @internal */
export function cachedTableRates(): number {
  return tableRatesCache.size;
}

/**
 * The price table's provider id of a framework's provider id: the AI SDK names providers by
 * API (`openai.chat`, `openai.responses`, `anthropic.messages`), the table by company (`openai`).
 */
function providerFamily(provider: string | undefined): string | undefined {
  if (provider === undefined) return undefined;
  const dot = provider.indexOf('.');
  return dot === -1 ? provider : provider.slice(0, dot);
}

/**
 * A pricer for the recorder: {@link priceUsage} per model, with the model's per-token rates
 * (input, cached input, output) looked up once and reused, so pricing costs a few arithmetic
 * operations per call instead of a price-table search. Tiered prices (a different rate past a
 * prompt size) are priced at their first tier.
 *
 * @param options - price table options (`overrides`, `unknownModel`, `onWarn`), provider, cache time
 * @returns a {@link ModelCallPricer}
 * @example
 * ```ts
 * const pricer = createModelCallPricer({ provider: 'openai', unknownModel: 'warn' });
 * pricer('gpt-4o-mini', { inputTokens: 1000, outputTokens: 200 })?.cost_usd;
 * ```
 */
export function createModelCallPricer(options: ModelCallPricerOptions = {}): ModelCallPricer {
  const { provider, cacheMs = 3_600_000, ...priceOptions } = options;
  const cache = new Map<string, Rates>();
  const price = (
    provider: string | undefined,
    model: string,
    inputTokens: number,
    cachedInputTokens: number,
    outputTokens: number,
  ): CostRecord =>
    priceUsage(
      { model, provider, usage: { inputTokens, cachedInputTokens, outputTokens } },
      priceOptions,
    );
  const priceable = (provider: string, model: string): boolean => {
    try {
      return (
        priceUsage(
          { model, provider, usage: { inputTokens: 1, outputTokens: 1 } },
          { ...priceOptions, unknownModel: 'refuse' },
        ).pricing_source !== 'fallback'
      );
    } catch {
      return false;
    }
  };
  const overrides = priceOptions.overrides;
  /** Whether an override prices this model (then the table is never asked). */
  const overridden = (priceProvider: string | undefined, model: string): boolean =>
    overrides !== undefined &&
    (Object.hasOwn(overrides, model) ||
      (priceProvider !== undefined && Object.hasOwn(overrides, `${priceProvider}:${model}`)));
  /**
   * A model's per-token rates: from the process's shared cache when the table priced it within
   * `cacheMs` (a pricer priced at a fixed date, `at`, keeps its own), else read anew.
   */
  const ratesOf = (priceProvider: string | undefined, model: string, now: number): Rates => {
    if (priceOptions.at !== undefined || overridden(priceProvider, model))
      return readRates(priceProvider, model, now);
    const key = `${provider === undefined ? 'family' : 'fixed'}\u0000${priceProvider ?? ''}\u0000${model}`;
    const shared = tableRatesCache.get(key);
    if (shared !== undefined && shared.readAt + cacheMs >= now)
      return { ...shared, expires: shared.readAt + cacheMs };
    const rates = readRates(priceProvider, model, now);
    if (rates.record.pricing_source === 'genai-prices') {
      if (tableRatesCache.size >= maxCachedTableRates) tableRatesCache.clear();
      const { input, cached, output, record } = rates;
      tableRatesCache.set(key, { input, cached, output, record, readAt: now });
    }
    return rates;
  };
  /** A model's per-token rates, read from the price table. */
  const readRates = (priceProvider: string | undefined, model: string, now: number): Rates => {
    // A framework's provider id the table does not know (an OpenAI-compatible provider named
    // by the user, a mock): price the model by its id alone rather than not at all.
    const tableProvider =
      provider === undefined && priceProvider !== undefined && !priceable(priceProvider, model)
        ? undefined
        : priceProvider;
    const input = price(tableProvider, model, 1_000_000, 0, 0);
    const cached = price(tableProvider, model, 1_000_000, 1_000_000, 0);
    const output = price(tableProvider, model, 0, 0, 1_000_000);
    return {
      input: input.cost_usd / 1e6,
      cached: cached.cost_usd / 1e6,
      output: output.cost_usd / 1e6,
      record: input,
      expires: now + cacheMs,
    };
  };
  // The last model priced: a process usually calls one model over and over, and this skips the
  // provider family, the key string and the map lookup (the recorder prices every call).
  let lastModel: string | undefined;
  let lastProvider: string | undefined;
  let lastRates: Rates | undefined;
  const pricer: ModelCallPricer = (model, usage, callProvider) => {
    const now = Date.now();
    let rates =
      model === lastModel && callProvider === lastProvider && lastRates !== undefined
        ? lastRates
        : undefined;
    if (rates === undefined || rates.expires < now) {
      const priceProvider = provider ?? providerFamily(callProvider);
      const key = priceProvider === undefined ? model : `${priceProvider}\u0000${model}`;
      rates = cache.get(key);
      if (rates === undefined || rates.expires < now) rates = ratesOf(priceProvider, model, now);
      cache.set(key, rates);
      lastModel = model;
      lastProvider = callProvider;
      lastRates = rates;
    }
    const cachedTokens = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
    const usd =
      (usage.inputTokens - cachedTokens) * rates.input +
      cachedTokens * rates.cached +
      usage.outputTokens * rates.output;
    return {
      // exact to a millionth of a micro-dollar: no 0.00020999999999999998 in the trace
      cost_usd: Math.round(usd * 1e12) / 1e12,
      cost_micro_usd: Math.round(usd * 1e6),
      pricing_source: rates.record.pricing_source,
      priced_model: rates.record.priced_model,
      pricing_as_of: rates.record.pricing_as_of,
    };
  };
  // the first call of a process loads the price table while the model answers (see warmPriceTable)
  pricer.prepare = warmPriceTable;
  return pricer;
}
