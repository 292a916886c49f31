/**
 * Converts USD to integer micro-USD (rounded to nearest).
 * @param usd - an amount in USD
 * @returns micro-USD
 * @example
 * ```ts
 * usdToMicro(0.1 + 0.2); // 300000
 * ```
 */
export function usdToMicro(usd: number): number {
  return Math.round(Number((usd * 1e6).toFixed(3)));
}
