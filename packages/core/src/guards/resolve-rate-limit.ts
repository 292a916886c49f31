import type { GuardAction } from '../model/tool-records.js';
import type { RateLimitOptions } from './guard-options.js';
import {
  defaultRateLimitStore,
  type RateLimitStore,
  type TokenBucketLimit,
} from './rate-limit-store.js';

/** `rateLimit` options as a guard of tools or of model calls applies them. @internal */
export interface ResolvedRateLimit {
  /** One bucket per rate given, each of `burst` tokens (at least 1). */
  readonly limits: readonly TokenBucketLimit[];
  readonly store: RateLimitStore;
  /**
   * The bucket key: `shared:<sharedKey>`, or `own:<n>` for `sharedKey: ''`; undefined for the
   * caller's default key (`tool:<name>` for a tool, `<provider>:<model>` for model calls).
   */
  readonly key: string | undefined;
  readonly onLimit: GuardAction;
  readonly maxWaitMs: number;
  /**
   * With `sharedKey: ''`: hold this for as long as the bucket is used. When it is collected, the
   * bucket is forgotten (no other guard can take from its key, so nothing can tell), and guards
   * made per request or session leave no bucket behind in a long-lived store.
   */
  readonly ownKeyHolder: object | undefined;
}

let ownBuckets = 0;

/** A guard's own rate-limit bucket, forgotten when its holder is collected. */
interface OwnBucket {
  readonly store: RateLimitStore;
  readonly key: string;
}

const ownBucketCleanup = new FinalizationRegistry<OwnBucket>((bucket) => {
  try {
    Promise.resolve(bucket.store.reset(bucket.key)).catch(() => {});
  } catch {
    // a store that throws on reset keeps the bucket, as it would have anyway
  }
});

/**
 * Resolves `rateLimit` options once, for `guard()` and for model-call guards alike, so both read
 * them the same way: `burst` below 1 counts as 1 (a bucket of no tokens would refuse every call),
 * rates per second, minute and hour each get a bucket, and `sharedKey` names the same bucket for
 * a tool and for model calls.
 * @param options - the `rateLimit` option as given (already validated)
 * @returns the buckets, store, key and action; undefined when no rate is set
 * @internal
 */
export function resolveRateLimit(
  options: RateLimitOptions | undefined,
): ResolvedRateLimit | undefined {
  if (options === undefined) return undefined;
  const burst = Math.max(1, options.burst ?? 1);
  const limits: TokenBucketLimit[] = [];
  if (options.callsPerSecond !== undefined)
    limits.push({ capacity: burst, refillPerMs: options.callsPerSecond / 1000 });
  if (options.callsPerMinute !== undefined)
    limits.push({ capacity: burst, refillPerMs: options.callsPerMinute / 60_000 });
  if (options.callsPerHour !== undefined)
    limits.push({ capacity: burst, refillPerMs: options.callsPerHour / 3_600_000 });
  if (limits.length === 0) return undefined;
  const store = options.store ?? defaultRateLimitStore;
  const sharedKey = options.sharedKey;
  let key: string | undefined;
  let ownKeyHolder: object | undefined;
  if (sharedKey === '') {
    key = `own:${++ownBuckets}`;
    ownKeyHolder = {};
    ownBucketCleanup.register(ownKeyHolder, { store, key });
  } else if (sharedKey !== undefined) key = `shared:${sharedKey}`;
  return Object.freeze({
    limits: Object.freeze(limits),
    store,
    key,
    onLimit: options.onLimit ?? 'block',
    maxWaitMs: options.maxWaitMs ?? 0,
    ownKeyHolder,
  });
}

/**
 * The part of a rate-limit refusal that explains the bucket's size: with the default `burst` of
 * 1 (seed 004), `callsPerMinute: 2` admits one call and the next 30 s later, not two at once.
 * @internal
 */
export function burstHint(limits: readonly TokenBucketLimit[]): string {
  const burst = limits[0]?.capacity ?? 1;
  return `burst ${burst}: at most ${burst} call${burst === 1 ? '' : 's'} back to back; rateLimit.burst allows more`;
}
