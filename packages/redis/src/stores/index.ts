export {
  createRedisCircuitBreakerStore,
  type RedisCircuitBreakerStoreOptions,
} from './create-redis-circuit-breaker-store.js';
export { createRedisCostLedger, type RedisCostLedgerOptions } from './create-redis-cost-ledger.js';
export {
  createRedisRateLimitStore,
  type RedisRateLimitStoreOptions,
} from './create-redis-rate-limit-store.js';
export type { RedisStoreOptions } from './store-options.js';
