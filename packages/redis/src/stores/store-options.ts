import { type OptionType, optionTypes } from '@tracewarden/core';
import { isRedisClient, type RedisClient } from '../client/redis-client.js';

/** Options every Redis-backed store takes. */
export interface RedisStoreOptions {
  /**
   * The connection: an `ioredis` client, a connected `redis` (node-redis) client, or a function
   * that sends one command. Every process that should share limits passes a client to the same
   * Redis and the same {@link prefix}.
   */
  client: RedisClient;
  /**
   * Prepended to every key the store writes (`<prefix>rate:{tool:search}`). Give each
   * application (or each environment sharing a Redis) its own.
   * @default 'tracewarden:'
   */
  prefix?: string | undefined;
}

/** @internal */
export const defaultPrefix = 'tracewarden:';

/** @internal */
export const storeOptionFields = {
  client: optionTypes.custom<RedisClient>(
    isRedisClient,
    'a Redis client: an ioredis client, a node-redis client, or a function (args: string[]) => Promise<reply>',
  ),
  prefix: optionTypes.string(1).optional(),
} satisfies Record<string, OptionType<unknown>>;

/**
 * The hash-tagged key of one store entry: every key of one entry (a session's ledger and its
 * reservations) shares `{name}`, so a script that touches them runs on one Redis Cluster node.
 * @internal
 */
export function entryKey(prefix: string, kind: string, name: string): string {
  return `${prefix}${kind}:{${name}}`;
}

/**
 * A number as Lua reads it back exactly: JavaScript's shortest round-trip form.
 * @internal
 */
export function numberArgument(value: number): string {
  return String(value);
}

/**
 * A number the script returned (as a string in `%.17g`, or an integer reply).
 * @internal
 */
export function readNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value !== '') return Number(value);
  return Number.NaN;
}
