/**
 * Sends one Redis command (`['EVALSHA', sha, '1', key, ...]`) and resolves with its reply: the
 * lowest common shape of every client, for one a store does not know (a cluster client, a
 * pool, a test double).
 */
export type RedisCommandFunction = (args: string[]) => Promise<unknown>;

/** An `ioredis` client (`Redis` or `Cluster`): anything with `call(command, ...args)`. */
export interface IoredisLikeClient {
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** A `redis` (node-redis) client, connected: anything with `sendCommand(args)`. */
export interface NodeRedisLikeClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/**
 * The Redis connection a store uses: an `ioredis` client, a `redis` (node-redis) client, or a
 * {@link RedisCommandFunction}. The store never connects or quits it: its life is the caller's.
 */
export type RedisClient = IoredisLikeClient | NodeRedisLikeClient | RedisCommandFunction;

/**
 * Whether `value` can be used as a {@link RedisClient}.
 * @internal
 */
export function isRedisClient(value: unknown): value is RedisClient {
  if (typeof value === 'function') return true;
  if (typeof value !== 'object' || value === null) return false;
  const client = value as Partial<IoredisLikeClient & NodeRedisLikeClient>;
  return typeof client.call === 'function' || typeof client.sendCommand === 'function';
}

/**
 * The client as one function. ioredis is asked first: its `sendCommand` takes a `Command`
 * object, not an array.
 * @internal
 */
export function toCommandFunction(client: RedisClient): RedisCommandFunction {
  if (typeof client === 'function') return client;
  if (typeof (client as IoredisLikeClient).call === 'function') {
    const ioredis = client as IoredisLikeClient;
    return (args) => ioredis.call(args[0] as string, ...args.slice(1));
  }
  const nodeRedis = client as NodeRedisLikeClient;
  return (args) => nodeRedis.sendCommand(args);
}
