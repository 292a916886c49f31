import type { MaybePromise } from './types.js';

/** One token bucket: `capacity` tokens, refilled continuously at `refillPerMs` tokens per millisecond. */
export interface TokenBucketLimit {
  readonly capacity: number;
  readonly refillPerMs: number;
}

/**
 * Holds rate-limit token buckets by key. Each key has one bucket per limit (per second, per
 * minute, per hour); a take succeeds only when every bucket of the key has a token, and then takes
 * one from each, atomically. A Redis-backed store would implement `take` as one script.
 */
export interface RateLimitStore {
  /**
   * Takes one token from every bucket of `key`, or none.
   * @param key - the bucket key (see `RateLimitOptions.sharedKey`)
   * @param limits - the buckets of this key
   * @param now - current time in ms; buckets refill lazily from it (no timers)
   * @returns 0 when the tokens were taken, else the milliseconds until they would all be available
   */
  take(key: string, limits: readonly TokenBucketLimit[], now: number): MaybePromise<number>;
  /**
   * Forgets buckets (refilled to full on next use).
   * @param key - one key; omitted: every key
   */
  reset(key?: string): MaybePromise<void>;
}

/** The in-memory {@link RateLimitStore}. */
export interface MemoryRateLimitStore extends RateLimitStore {
  /** How many keys the store holds buckets for. */
  readonly size: number;
}

/**
 * One key's buckets in an in-memory store: tokens per limit, and the time they were counted at.
 * @internal
 */
export interface BucketState {
  tokens: number[];
  last: number;
}

/**
 * Takes one token from every bucket of `state`, or none: {@link RateLimitStore.take} once the
 * key's state is found (the guard's quiet plan calls it with the state it holds).
 * @internal
 */
export function takeFrom(
  state: BucketState,
  limits: readonly TokenBucketLimit[],
  now: number,
): number {
  const elapsed = now > state.last ? now - state.last : 0;
  state.last = Math.max(now, state.last);
  const tokens = state.tokens;
  let wait = 0;
  for (let i = 0; i < limits.length; i++) {
    const limit = limits[i]!;
    let available = tokens[i] ?? limit.capacity;
    available = Math.min(limit.capacity, available + elapsed * limit.refillPerMs);
    tokens[i] = available;
    if (available < 1) {
      const needed = (1 - available) / limit.refillPerMs;
      if (needed > wait) wait = needed;
    }
  }
  // tolerate float error in the refill rate (1 / 3.6e6 per ms) so an hour is 3,600,000 ms, not one more
  if (wait > 0) return Math.max(1, Math.ceil(wait - 1e-6));
  for (let i = 0; i < limits.length; i++) tokens[i] = (tokens[i] as number) - 1;
  return 0;
}

/**
 * The buckets of a store made by {@link createMemoryRateLimitStore}, for the guard's quiet plan.
 * @internal
 */
export interface MemoryBuckets {
  /** The state of `key`, made (full, counted at `now`) when missing, as `take` makes it. */
  stateOf(key: string, limits: readonly TokenBucketLimit[], now: number): BucketState;
  /** Bumped by every `reset`: a state held across calls is the key's own only while unchanged. */
  readonly resets: number;
}

const memoryBuckets = new WeakMap<RateLimitStore, MemoryBuckets>();

/**
 * The buckets of `store` when it is an in-memory store made by {@link createMemoryRateLimitStore}.
 * @internal
 */
export function memoryBucketsOf(store: RateLimitStore): MemoryBuckets | undefined {
  return memoryBuckets.get(store);
}

/**
 * Creates an in-memory {@link RateLimitStore}: synchronous, lazily refilled, no timers.
 * @returns a new, empty store
 * @example
 * ```ts
 * const store = createMemoryRateLimitStore();
 * guard(search, { rateLimit: { callsPerSecond: 5, store } });
 * ```
 */
export function createMemoryRateLimitStore(): MemoryRateLimitStore {
  const buckets = new Map<string, BucketState>();
  // one-entry cache: a busy guard asks for the same key call after call
  let lastKey: string | undefined;
  let lastState: BucketState | undefined;
  const internals = {
    resets: 0,
    stateOf(key: string, limits: readonly TokenBucketLimit[], now: number): BucketState {
      let state = key === lastKey ? lastState : buckets.get(key);
      if (state === undefined) {
        state = { tokens: limits.map((l) => l.capacity), last: now };
        buckets.set(key, state);
      }
      lastKey = key;
      lastState = state;
      return state;
    },
  };
  const store: MemoryRateLimitStore = {
    take(key, limits, now) {
      return takeFrom(internals.stateOf(key, limits, now), limits, now);
    },
    reset(key) {
      internals.resets++;
      lastKey = undefined;
      lastState = undefined;
      if (key === undefined) buckets.clear();
      else buckets.delete(key);
    },
    get size() {
      return buckets.size;
    },
  };
  memoryBuckets.set(store, internals);
  return store;
}

/**
 * The process-wide store guards use when `rateLimit.store` is not given: it is what makes
 * `sharedKey` buckets shared between guards.
 * @internal
 */
export const defaultRateLimitStore: MemoryRateLimitStore = createMemoryRateLimitStore();

/**
 * Forgets every bucket of the default (process-wide) rate-limit store, e.g. between tests.
 * @param key - one bucket key (`tool:<name>` or `shared:<key>`); omitted: all
 * @example
 * ```ts
 * beforeEach(() => resetRateLimits());
 * ```
 */
export function resetRateLimits(key?: string): void {
  void defaultRateLimitStore.reset(key);
}
