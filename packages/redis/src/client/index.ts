export type {
  IoredisLikeClient,
  NodeRedisLikeClient,
  RedisClient,
  RedisCommandFunction,
} from './redis-client.js';
