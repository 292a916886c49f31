import type { GuardAction } from '../model/tool-records.js';
import {
  type CircuitBreakerLimits,
  type CircuitBreakerStore,
  createMemoryCircuitBreakerStore,
} from './circuit-breaker-store.js';
import type { CircuitBreakerOptions } from './guard-options.js';

/** `circuitBreaker` options as a guard of tools or of model calls applies them. @internal */
export interface ResolvedCircuitBreaker {
  readonly limits: CircuitBreakerLimits;
  readonly store: CircuitBreakerStore;
  readonly onOpen: GuardAction;
}

/**
 * Resolves `circuitBreaker` options once, for `guard()` and for model-call guards alike:
 * `failureThreshold` and `successThreshold` below 1 count as 1 (a threshold of 0 would open the
 * circuit before any failure, or leave it half-open with no probe slot forever), the recovery
 * timeout in milliseconds, and a new in-memory store unless one is given.
 * @param options - the `circuitBreaker` option as given (already validated)
 * @returns the limits, store and action
 * @internal
 */
export function resolveCircuitBreaker(options: CircuitBreakerOptions): ResolvedCircuitBreaker {
  return Object.freeze({
    limits: Object.freeze({
      failureThreshold: Math.max(1, options.failureThreshold ?? 5),
      recoveryTimeoutMs: (options.recoveryTimeout ?? 60) * 1000,
      successThreshold: Math.max(1, options.successThreshold ?? 1),
    }),
    store: options.store ?? createMemoryCircuitBreakerStore(),
    onOpen: options.onOpen ?? 'block',
  });
}
