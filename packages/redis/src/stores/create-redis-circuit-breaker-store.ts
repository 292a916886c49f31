import {
  type CircuitAdmission,
  type CircuitBreakerLimits,
  type CircuitBreakerStore,
  type CircuitOutcome,
  type CircuitState,
  type CircuitTransition,
  lazySchema,
  optionTypes,
  validateOptions,
} from '@tracewarden/core';
import { toCommandFunction } from '../client/redis-client.js';
import { invalidReply, resetEntries, runScript } from '../client/run-script.js';
import { breakerScript } from './circuit-breaker-script.js';
import {
  defaultPrefix,
  entryKey,
  numberArgument,
  type RedisStoreOptions,
  readNumber,
  storeOptionFields,
} from './store-options.js';

/** Options of {@link createRedisCircuitBreakerStore}. */
export interface RedisCircuitBreakerStoreOptions extends RedisStoreOptions {
  /**
   * How long a half-open probe holds its slot, in seconds. A probe whose process dies (or loses
   * Redis) before it reports would otherwise hold it for good, and the circuit would refuse every
   * call of the fleet until `reset()`. Past it (when every slot is taken), the slots are free
   * again and the lapsed probes' late outcomes are ignored. Keep it above your longest call.
   * @default 600
   */
  probeTimeoutSeconds?: number | undefined;
}

/** An admission from a Redis breaker: the generation it was made in rides along to `record`. */
interface RedisAdmission extends CircuitAdmission {
  readonly generation: string;
}

const schema = lazySchema(() =>
  optionTypes.strictObject({
    ...storeOptionFields,
    probeTimeoutSeconds: optionTypes.finite(0.001, 31_536_000, 'seconds').optional(),
  }),
);
const states: readonly string[] = ['closed', 'open', 'half_open'];

function readTransition(reply: unknown[], from: number): CircuitTransition | undefined {
  if (reply[from] === '' || reply[from] === undefined) return undefined;
  return {
    from: reply[from] as CircuitState,
    to: reply[from + 1] as CircuitState,
    at: readNumber(reply[from + 2]),
    reason: String(reply[from + 3]),
  };
}

/**
 * Creates a {@link CircuitBreakerStore} in Redis: every process that uses the same Redis and
 * prefix sees one circuit per tool, so failures counted in one process open it for all, and a
 * half-open circuit admits `successThreshold` probes across the whole fleet, not per process
 * (a probe that never reports frees its slot after `probeTimeoutSeconds`).
 * Each operation is one Lua script running the in-memory store's state machine.
 *
 * @param options - the client, the key prefix and the probes' lease
 * @returns the store, for `circuitBreaker.store`
 * @throws {ConfigurationError} `INVALID_OPTIONS` when the client or prefix is not usable
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { guard } from '@tracewarden/core';
 * import { createRedisCircuitBreakerStore } from '@tracewarden/redis';
 *
 * const client = await createClient({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }).connect();
 * const store = createRedisCircuitBreakerStore({ client });
 * const search = guard(searchWeb, { circuitBreaker: { failureThreshold: 5, store } });
 * ```
 */
export function createRedisCircuitBreakerStore(
  options: RedisCircuitBreakerStoreOptions,
): CircuitBreakerStore {
  validateOptions(schema, options, { entryPoint: 'createRedisCircuitBreakerStore' });
  const send = toCommandFunction(options.client);
  const prefix = options.prefix ?? defaultPrefix;
  const probeLeaseMs = numberArgument(Math.ceil((options.probeTimeoutSeconds ?? 600) * 1000));
  return {
    async acquire(key: string, limits: CircuitBreakerLimits, now: number) {
      const redisKey = entryKey(prefix, 'breaker', key);
      const reply = await runScript(
        send,
        breakerScript,
        [redisKey],
        [
          'acquire',
          numberArgument(limits.recoveryTimeoutMs),
          numberArgument(limits.successThreshold),
          numberArgument(now),
          probeLeaseMs,
        ],
        'circuit breaker acquire',
      );
      if (!Array.isArray(reply) || reply.length !== 8 || !states.includes(String(reply[2])))
        throw invalidReply('circuit breaker acquire', redisKey, reply);
      const transition = readTransition(reply, 4);
      const admission: RedisAdmission = {
        allowed: readNumber(reply[0]) === 1,
        probe: readNumber(reply[1]) === 1,
        state: reply[2] as CircuitState,
        generation: String(reply[3]),
        ...(transition === undefined ? {} : { transition }),
      };
      return admission;
    },
    async record(
      key: string,
      limits: CircuitBreakerLimits,
      admission: CircuitAdmission,
      outcome: CircuitOutcome,
      now: number,
    ) {
      const redisKey = entryKey(prefix, 'breaker', key);
      const generation = (admission as Partial<RedisAdmission>).generation;
      // an admission from another store has no generation of ours: nothing to count
      if (typeof generation !== 'string') return undefined;
      const reply = await runScript(
        send,
        breakerScript,
        [redisKey],
        [
          'record',
          numberArgument(limits.failureThreshold),
          numberArgument(limits.successThreshold),
          generation,
          admission.probe ? '1' : '0',
          outcome,
          numberArgument(now),
        ],
        'circuit breaker record',
      );
      if (!Array.isArray(reply) || reply.length !== 4)
        throw invalidReply('circuit breaker record', redisKey, reply);
      return readTransition(reply, 0);
    },
    async state(key: string, limits: CircuitBreakerLimits, now: number) {
      const redisKey = entryKey(prefix, 'breaker', key);
      const reply = await runScript(
        send,
        breakerScript,
        [redisKey],
        ['state', numberArgument(limits.recoveryTimeoutMs), numberArgument(now)],
        'circuit breaker state',
      );
      const state = String(reply);
      if (!states.includes(state)) throw invalidReply('circuit breaker state', redisKey, reply);
      return state as CircuitState;
    },
    reset(key?: string): Promise<void> {
      const keys = key === undefined ? undefined : [entryKey(prefix, 'breaker', key)];
      return resetEntries(send, prefix, 'breaker', keys, 'circuit breaker reset');
    },
  };
}
