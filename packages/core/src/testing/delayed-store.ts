/** Options of {@link delayedStore}. */
export interface DelayedStoreOptions {
  /** How long each answer takes, in milliseconds (a timer, so other work runs meanwhile). @default 1 */
  delayMs?: number | undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

// An answer as a shared store gives it: a copy, never a live object of the store. Objects of a
// class (a ledger's reservation) keep their identity: the store is handed them back.
function detached(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value))
    copy[key] = isPlainObject(field) ? { ...field } : field;
  return copy;
}

/**
 * Wraps a guard store (a `RateLimitStore`, `CircuitBreakerStore` or `CostLedger`) so that every
 * method answers with a promise, a little later, as a store shared between processes (Redis)
 * does: to test that code guarded by a shared store waits for its decisions. The in-memory
 * store underneath keeps the state.
 * @param store - an in-memory store
 * @param options - how long each answer takes
 * @returns the same store, asynchronous
 * @example
 * ```ts
 * const costLedger = delayedStore(createMemoryCostLedger());
 * const budget = createBudget({ maxCallsPerSession: 3, costLedger });
 * ```
 */
export function delayedStore<T extends object>(store: T, options: DelayedStoreOptions = {}): T {
  const delayMs = options.delayMs ?? 1;
  const delayed: Record<string, unknown> = {};
  let source: object | null = store;
  while (source !== null && source !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(source)) {
      const method = (store as Record<string, unknown>)[name];
      if (name === 'constructor' || name in delayed || typeof method !== 'function') continue;
      delayed[name] = (...args: unknown[]) =>
        new Promise((resolve, reject) =>
          setTimeout(() => {
            Promise.resolve()
              .then(() => method.apply(store, args))
              .then((answer) => resolve(detached(answer)), reject);
          }, delayMs),
        );
    }
    source = Object.getPrototypeOf(source);
  }
  return delayed as T;
}
