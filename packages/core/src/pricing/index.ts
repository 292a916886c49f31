export {
  bundledPricesAsOf,
  priceUsage,
  type CostRecord,
  type LlmUsage,
  type ModelPrice,
  type PriceUsageInput,
  type PriceUsageOptions,
  type PricingSource,
  type UnknownModelPolicy,
} from './price-usage.js';
export { UnknownModelPriceError, type UnknownModelPriceErrorOptions } from './unknown-model-price-error.js';
