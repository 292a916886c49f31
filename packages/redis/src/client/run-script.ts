import { createHash } from 'node:crypto';
import { RedisStoreError } from '../errors/index.js';
import type { RedisCommandFunction } from './redis-client.js';

/** A Lua script and its SHA-1, as `EVALSHA` names it. @internal */
export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

/**
 * A script, with its SHA-1 computed once.
 * @internal
 */
export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

function isNoScript(error: unknown): boolean {
  try {
    const message = (error as { message?: unknown } | null)?.message;
    return typeof message === 'string' && message.startsWith('NOSCRIPT');
  } catch {
    return false;
  }
}

function describe(error: unknown): string {
  try {
    const message = (error as { message?: unknown } | null)?.message;
    if (typeof message === 'string' && message !== '') return message;
    return String(error);
  } catch {
    return 'an error that cannot be read';
  }
}

/**
 * Runs a script by its SHA (`EVALSHA`), loading it with `EVAL` when the server does not have it
 * yet (`NOSCRIPT`: a fresh server, a restart, `SCRIPT FLUSH`, a failover). Every key of one call
 * shares a hash tag, so the script runs on one Redis Cluster node.
 * @param send - the client
 * @param script - the script
 * @param keys - the keys it touches
 * @param args - its arguments, as strings
 * @param operation - what the store was doing, for the error
 * @returns the script's reply
 * @throws {RedisStoreError} `REDIS_COMMAND_FAILED` with the client's error as `cause`
 * @internal
 */
export async function runScript(
  send: RedisCommandFunction,
  script: LuaScript,
  keys: readonly string[],
  args: readonly string[],
  operation: string,
): Promise<unknown> {
  const tail = [String(keys.length), ...keys, ...args];
  try {
    try {
      return await send(['EVALSHA', script.sha, ...tail]);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return await send(['EVAL', script.source, ...tail]);
    }
  } catch (cause) {
    throw new RedisStoreError({
      code: 'REDIS_COMMAND_FAILED',
      message: `Redis failed the ${operation} on key "${keys[0]}": ${describe(cause).replace(/\.$/, '')}. The call that needed it is refused; check that Redis is reachable and that the client is connected (node-redis needs await client.connect()).`,
      operation,
      key: keys[0] ?? '',
      cause,
    });
  }
}

/**
 * Deletes every key under `pattern` (a `SCAN MATCH` glob), in batches: what `reset()` without a
 * key does. Keys on other nodes of a cluster are not seen by a single-node `SCAN`.
 * @internal
 */
export async function deleteMatching(
  send: RedisCommandFunction,
  pattern: string,
  operation: string,
): Promise<void> {
  let cursor = '0';
  try {
    do {
      const reply = (await send(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '500'])) as [
        unknown,
        unknown,
      ];
      cursor = String(reply[0]);
      const keys = (reply[1] as unknown[]).map(String);
      if (keys.length > 0) await send(['DEL', ...keys]);
    } while (cursor !== '0');
  } catch (cause) {
    throw new RedisStoreError({
      code: 'REDIS_COMMAND_FAILED',
      message: `Redis failed the ${operation} (SCAN MATCH ${pattern}, then DEL): ${describe(cause).replace(/\.$/, '')}.`,
      operation,
      key: pattern,
      cause,
    });
  }
}

/**
 * A reply that is not what the script returns.
 * @internal
 */
export function invalidReply(operation: string, key: string, reply: unknown): RedisStoreError {
  let shown: string;
  try {
    shown = JSON.stringify(reply) ?? String(reply);
  } catch {
    shown = String(reply);
  }
  return new RedisStoreError({
    code: 'REDIS_REPLY_INVALID',
    message: `Redis answered the ${operation} on key "${key}" with ${shown.slice(0, 200)}, which its script never returns: the command did not reach a Redis that runs Lua (a proxy, a mock), or something else wrote the key. Use a Redis >= 6.2 server and a prefix no other program writes under.`,
    operation,
    key,
    cause: reply,
  });
}

/**
 * Escapes glob characters so that a prefix matches only itself in `SCAN MATCH`.
 * @internal
 */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * Deletes its keys (one entry of a store): a script, so that the keys of one entry go together.
 * @internal
 */
export const deleteScript = luaScript(`
for i = 1, #KEYS do redis.call('DEL', KEYS[i]) end
return 0
`);

/**
 * What `reset` does in every store: deletes one entry's keys, or, without them, every key of
 * the store's `kind` under its prefix.
 * @internal
 */
export async function resetEntries(
  send: RedisCommandFunction,
  prefix: string,
  kind: string,
  keys: readonly string[] | undefined,
  operation: string,
): Promise<void> {
  if (keys !== undefined) await runScript(send, deleteScript, keys, [], operation);
  else await deleteMatching(send, `${escapeGlob(prefix)}${kind}:*`, operation);
}
