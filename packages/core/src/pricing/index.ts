export {
  bundledPricesAsOf,
  type CostRecord,
  type LlmUsage,
  type ModelPrice,
  type PriceUsageInput,
  type PriceUsageOptions,
  type PricingSource,
  priceUsage,
  type UnknownModelPolicy,
} from './price-usage.js';
export {
  UnknownModelPriceError,
  type UnknownModelPriceErrorOptions,
} from './unknown-model-price-error.js';
