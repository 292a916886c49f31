export {
  RedisStoreError,
  type RedisStoreErrorCode,
  type RedisStoreErrorOptions,
} from './redis-store-error.js';
