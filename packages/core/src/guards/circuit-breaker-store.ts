import type { CircuitState } from '../model/tool-records.js';
import type { MaybePromise } from './types.js';

/** Circuit-breaker settings in milliseconds, as a store sees them. */
export interface CircuitBreakerLimits {
  /** Consecutive failures that open the circuit. */
  readonly failureThreshold: number;
  /** How long the circuit stays open before half-opening, in ms. */
  readonly recoveryTimeoutMs: number;
  /** Successful probes that close a half-open circuit; also the most probes in flight at once. */
  readonly successThreshold: number;
}

/** A change of state, reported once by the store call that caused it. */
export interface CircuitTransition {
  readonly from: CircuitState;
  readonly to: CircuitState;
  /** When it happened, ms since the epoch. */
  readonly at: number;
  /** Why: `failure_threshold`, `recovery_timeout`, `probe_failed`, `probes_succeeded`, `reset`. */
  readonly reason: string;
}

/** Whether a call may run, from {@link CircuitBreakerStore.acquire}. */
export interface CircuitAdmission {
  /** The call may run. */
  readonly allowed: boolean;
  /** The call is a half-open probe: its outcome closes or re-opens the circuit. */
  readonly probe: boolean;
  /** The state after this acquire. */
  readonly state: CircuitState;
  /** Set when this acquire moved the circuit (open → half-open). */
  readonly transition?: CircuitTransition | undefined;
}

/** How an admitted call ended, as the breaker counts it. */
export type CircuitOutcome = 'success' | 'failure' | 'ignore';

/**
 * Holds circuit-breaker state by key and runs its state machine atomically: `closed` counts
 * consecutive failures and opens at `failureThreshold`; `open` refuses until `recoveryTimeoutMs`
 * has passed, then half-opens; `half_open` admits at most `successThreshold` probes at once,
 * closes after that many successes and re-opens on one failure. A Redis-backed store would
 * implement each method as one script.
 */
export interface CircuitBreakerStore {
  /**
   * Asks to run a call.
   * @param key - the breaker key (the tool name)
   * @param limits - the breaker settings
   * @param now - current time in ms
   * @returns whether the call may run and whether it is a probe
   */
  acquire(key: string, limits: CircuitBreakerLimits, now: number): MaybePromise<CircuitAdmission>;
  /**
   * Reports how an admitted call ended. `ignore` frees a probe slot without counting (the call
   * was refused later, or aborted by its caller).
   * @returns the transition this outcome caused, if any
   */
  record(
    key: string,
    limits: CircuitBreakerLimits,
    admission: CircuitAdmission,
    outcome: CircuitOutcome,
    now: number,
  ): MaybePromise<CircuitTransition | undefined>;
  /**
   * The current state (an open circuit whose recovery timeout has passed reads `half_open`).
   */
  state(key: string, limits: CircuitBreakerLimits, now: number): MaybePromise<CircuitState>;
  /**
   * Closes the circuit and clears its counters.
   * @param key - one key; omitted: every key
   */
  reset(key?: string): MaybePromise<void>;
}

/**
 * One key's breaker in the in-memory store (read by the guard's quiet plan).
 * @internal
 */
export interface MemoryBreaker {
  state: CircuitState;
  failures: number;
  successes: number;
  probes: number;
  openedAt: number;
  /** Bumped on every transition so outcomes of calls admitted in an earlier state are ignored. */
  generation: number;
  /** The (shared, frozen) admission handed to every call while closed: no allocation per call. */
  closedAdmission: MemoryAdmission;
}

/** @internal */
export interface MemoryAdmission extends CircuitAdmission {
  readonly generation: number;
}

// stores made by createMemoryCircuitBreakerStore (see storeIgnoresTimeOfClosedSuccess)
const memoryStores = new WeakSet<CircuitBreakerStore>();

/**
 * Whether `store.record` is known not to read `now` for a success of a call admitted closed (a
 * success never moves a closed circuit): true for the in-memory store, which lets a guard skip a
 * clock read per call. Unknown stores always get the current time.
 * @internal
 */
export function storeIgnoresTimeOfClosedSuccess(store: CircuitBreakerStore): boolean {
  return memoryStores.has(store);
}

/**
 * The store as the in-memory class, when it is one made by `createMemoryCircuitBreakerStore`.
 * @internal
 */
export function asMemoryCircuitBreakerStore(
  store: CircuitBreakerStore,
): MemoryCircuitBreakerStore | undefined {
  return memoryStores.has(store) ? (store as MemoryCircuitBreakerStore) : undefined;
}

const closedAdmission = (generation: number): MemoryAdmission =>
  Object.freeze({ allowed: true, probe: false, state: 'closed', generation });

/**
 * Creates an in-memory {@link CircuitBreakerStore} (synchronous; no allocation on the closed,
 * admitted path).
 * @returns a new store with every circuit closed
 * @example
 * ```ts
 * guard(search, { circuitBreaker: { failureThreshold: 3, store: createMemoryCircuitBreakerStore() } });
 * ```
 */
export function createMemoryCircuitBreakerStore(): CircuitBreakerStore {
  const store = new MemoryCircuitBreakerStore();
  memoryStores.add(store);
  return store;
}

/**
 * The in-memory store as a class: every guard's store shares one set of methods, so the guard's
 * call sites stay monomorphic (closures made per store would make them polymorphic).
 * @internal
 */
export class MemoryCircuitBreakerStore implements CircuitBreakerStore {
  private readonly breakers = new Map<string, MemoryBreaker>();
  // one counter for the whole store, so an admission from before a reset never matches again
  private generations = 0;
  // one-entry cache: a guard asks for the same key on acquire and record (a Map lookup each)
  private lastKey: string | undefined = undefined;
  private lastBreaker: MemoryBreaker | undefined = undefined;

  /**
   * Bumped by every {@link reset}: a breaker held across calls (the guard's quiet plan) is the
   * key's own only while this is unchanged.
   * @internal
   */
  resets = 0;

  /**
   * The breaker of `key`, made when missing (as `acquire` does).
   * @internal
   */
  breakerOf(key: string): MemoryBreaker {
    return this.get(key);
  }

  private get(key: string): MemoryBreaker {
    if (key === this.lastKey) return this.lastBreaker!;
    let breaker = this.breakers.get(key);
    if (breaker === undefined) {
      const generation = ++this.generations;
      breaker = {
        state: 'closed',
        failures: 0,
        successes: 0,
        probes: 0,
        openedAt: 0,
        generation,
        closedAdmission: closedAdmission(generation),
      };
      this.breakers.set(key, breaker);
    }
    this.lastKey = key;
    this.lastBreaker = breaker;
    return breaker;
  }

  private move(
    breaker: MemoryBreaker,
    to: CircuitState,
    at: number,
    reason: string,
  ): CircuitTransition {
    const transition: CircuitTransition = { from: breaker.state, to, at, reason };
    breaker.state = to;
    breaker.generation = ++this.generations;
    breaker.failures = 0;
    breaker.successes = 0;
    breaker.probes = 0;
    if (to === 'open') breaker.openedAt = at;
    if (to === 'closed') breaker.closedAdmission = closedAdmission(breaker.generation);
    return transition;
  }

  acquire(key: string, limits: CircuitBreakerLimits, now: number): MemoryAdmission {
    const breaker = this.get(key);
    if (breaker.state === 'closed') {
      return breaker.closedAdmission;
    }
    let transition: CircuitTransition | undefined;
    if (breaker.state === 'open') {
      if (now - breaker.openedAt < limits.recoveryTimeoutMs) {
        return { allowed: false, probe: false, state: 'open', generation: breaker.generation };
      }
      transition = this.move(breaker, 'half_open', now, 'recovery_timeout');
    }
    if (breaker.probes >= limits.successThreshold - breaker.successes) {
      return {
        allowed: false,
        probe: false,
        state: 'half_open',
        transition,
        generation: breaker.generation,
      };
    }
    breaker.probes++;
    return {
      allowed: true,
      probe: true,
      state: 'half_open',
      transition,
      generation: breaker.generation,
    };
  }

  record(
    key: string,
    limits: CircuitBreakerLimits,
    admission: CircuitAdmission,
    outcome: CircuitOutcome,
    now: number,
  ): CircuitTransition | undefined {
    const breaker = this.get(key);
    if ((admission as MemoryAdmission).generation !== breaker.generation) return undefined;
    if (breaker.state === 'closed') {
      if (outcome === 'success') breaker.failures = 0;
      else if (outcome === 'failure' && ++breaker.failures >= limits.failureThreshold) {
        return this.move(breaker, 'open', now, 'failure_threshold');
      }
      return undefined;
    }
    if (breaker.state !== 'half_open' || !admission.probe) return undefined;
    breaker.probes--;
    if (outcome === 'failure') return this.move(breaker, 'open', now, 'probe_failed');
    if (outcome === 'success' && ++breaker.successes >= limits.successThreshold) {
      return this.move(breaker, 'closed', now, 'probes_succeeded');
    }
    return undefined;
  }

  state(key: string, limits: CircuitBreakerLimits, now: number): CircuitState {
    const breaker = this.breakers.get(key);
    if (breaker === undefined) return 'closed';
    if (breaker.state === 'open' && now - breaker.openedAt >= limits.recoveryTimeoutMs)
      return 'half_open';
    return breaker.state;
  }

  reset(key?: string): void {
    this.resets++;
    this.lastKey = undefined;
    this.lastBreaker = undefined;
    if (key === undefined) this.breakers.clear();
    else this.breakers.delete(key);
  }
}
