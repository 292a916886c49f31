import {
  createModelCallPricer,
  type ModelCallPricer,
  type PriceUsageOptions,
} from '@tracewarden/core';

/**
 * How a wrapped client prices calls: options of the core price table (`overrides`,
 * `unknownModel`), a pricer function, or `false` for none.
 */
export type WrapPricingOption = PriceUsageOptions | ModelCallPricer | false;

const warned = new Set<string>();

function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  process.emitWarning(message, { code: 'TRACEWARDEN_PRICING' });
}

/** @internal */
export function resolvePricer(option: WrapPricingOption | undefined): ModelCallPricer | undefined {
  if (option === false) return undefined;
  if (typeof option === 'function') return option;
  // Unpriced models are recorded at 0 with `pricing_source: 'fallback'` and a warning, unless
  // the caller chose a policy: tracing must not fail a call because a price is missing.
  return createModelCallPricer({
    unknownModel: 'warn',
    onWarn: warnOnce,
    ...option,
    provider: 'openai',
  });
}
