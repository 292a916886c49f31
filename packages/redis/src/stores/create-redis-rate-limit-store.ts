import {
  lazySchema,
  optionTypes,
  type RateLimitStore,
  type TokenBucketLimit,
  validateOptions,
} from '@tracewarden/core';
import { toCommandFunction } from '../client/redis-client.js';
import { invalidReply, resetEntries, runScript } from '../client/run-script.js';
import { takeScript } from './rate-limit-script.js';
import {
  defaultPrefix,
  entryKey,
  numberArgument,
  type RedisStoreOptions,
  readNumber,
  storeOptionFields,
} from './store-options.js';

/** Options of {@link createRedisRateLimitStore}. */
export type RedisRateLimitStoreOptions = RedisStoreOptions;

const schema = lazySchema(() => optionTypes.strictObject(storeOptionFields));

// A minute past the time the fullest bucket takes to refill: a key unused that long reads full.
const idleMarginMs = 60_000;

/**
 * Creates a {@link RateLimitStore} in Redis: the token buckets of every guard, in every process,
 * that uses the same Redis and prefix are one set of buckets, so `callsPerSecond: 5` holds across
 * a fleet. Each `take` is one Lua script (atomic: concurrent takes from many processes never
 * overdraw a bucket), with the same arithmetic as the in-memory store. Times are the callers'
 * clocks (`Date.now()`): keep the hosts' clocks in sync (NTP); a host behind the others waits
 * no longer than its skew.
 *
 * @param options - the client and the key prefix
 * @returns the store, for `rateLimit.store`
 * @throws {ConfigurationError} `INVALID_OPTIONS` when the client or prefix is not usable
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { guard } from '@tracewarden/core';
 * import { createRedisRateLimitStore } from '@tracewarden/redis';
 *
 * const store = createRedisRateLimitStore({ client: new Redis(process.env.REDIS_URL!) });
 * const search = guard(searchWeb, { rateLimit: { callsPerSecond: 5, store } });
 * ```
 */
export function createRedisRateLimitStore(options: RedisRateLimitStoreOptions): RateLimitStore {
  validateOptions(schema, options, { entryPoint: 'createRedisRateLimitStore' });
  const send = toCommandFunction(options.client);
  const prefix = options.prefix ?? defaultPrefix;
  return {
    async take(key: string, limits: readonly TokenBucketLimit[], now: number): Promise<number> {
      const redisKey = entryKey(prefix, 'rate', key);
      let refillMs = 0;
      const args = [numberArgument(now), ''];
      for (const limit of limits) {
        refillMs = Math.max(refillMs, limit.capacity / limit.refillPerMs);
        args.push(numberArgument(limit.capacity), numberArgument(limit.refillPerMs));
      }
      args[1] = String(Math.ceil(Number.isFinite(refillMs) ? refillMs : 0) + idleMarginMs);
      const reply = await runScript(send, takeScript, [redisKey], args, 'rate limit take');
      const wait = readNumber(reply);
      if (!Number.isFinite(wait) || wait < 0)
        throw invalidReply('rate limit take', redisKey, reply);
      return wait;
    },
    reset(key?: string): Promise<void> {
      const keys = key === undefined ? undefined : [entryKey(prefix, 'rate', key)];
      return resetEntries(send, prefix, 'rate', keys, 'rate limit reset');
    },
  };
}
