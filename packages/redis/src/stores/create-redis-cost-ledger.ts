import {
  type CostLedger,
  configurationError,
  type LedgerReservation,
  type LedgerReserveRequest,
  type LedgerReserveResult,
  type LedgerSnapshot,
  lazySchema,
  optionTypes,
  validateOptions,
} from '@tracewarden/core';
import { toCommandFunction } from '../client/redis-client.js';
import { invalidReply, resetEntries, runScript } from '../client/run-script.js';
import { ledgerScript } from './cost-ledger-script.js';
import {
  defaultPrefix,
  entryKey,
  numberArgument,
  type RedisStoreOptions,
  readNumber,
  storeOptionFields,
} from './store-options.js';

/** Options of {@link createRedisCostLedger}. */
export interface RedisCostLedgerOptions extends RedisStoreOptions {
  /**
   * How long a reservation may stay open before the ledger counts it as spent at the amount
   * held. A process that dies mid-call never settles its reservations; without a deadline they
   * would hold the session's budget for good. Set it above your longest call (retries and
   * timeouts included); a call that outlives it still corrects the spend when it settles.
   * @default 3600
   */
  reservationTtlSeconds?: number | undefined;
  /**
   * How long a session's account lives after its last reservation, settle or release, in
   * seconds. Without it an account is kept for good: one small hash per session id ever used,
   * which a service that gives every conversation its own session fills Redis with. With it, a
   * session idle that long is over: its spend is forgotten, and a session id used again starts
   * from zero. At least `reservationTtlSeconds`, so a reservation's deadline outlives it.
   * @default undefined (accounts never expire)
   */
  sessionTtlSeconds?: number | undefined;
  /**
   * The clock deadlines are measured on, in ms since the epoch. Every process sharing the ledger
   * should read the same time (hosts kept in sync by NTP).
   * @default Date.now
   */
  clock?: (() => number) | undefined;
}

const schema = lazySchema(() =>
  optionTypes.strictObject({
    ...storeOptionFields,
    reservationTtlSeconds: optionTypes.finite(0.001, 31_536_000, 'seconds').optional(),
    sessionTtlSeconds: optionTypes.finite(0.001, 31_536_000, 'seconds').optional(),
    clock: optionTypes.function<() => number>().optional(),
  }),
);

// A late settle of a lapsed reservation is honoured for a day after its deadline.
const lapsedTtlMs = String(86_400_000);

/** A reservation as a Redis ledger hands it out. */
class RedisReservation implements LedgerReservation {
  constructor(
    readonly id: number,
    readonly sessionId: string,
    readonly amountMicroUsd: number,
  ) {}
}

/**
 * Creates a {@link CostLedger} in Redis: the budgets of every process that uses the same Redis
 * and prefix draw on one account per session, so `maxCostPerSession: 5` holds for an agent
 * whose calls run on many workers. `reserve` checks the limits and holds the amount in one Lua
 * script (atomic: concurrent reservations from many processes never overspend); settle and
 * release take effect once. Reservations of a process that dies are settled at the amount held
 * after `reservationTtlSeconds`; with `sessionTtlSeconds`, an idle session's account expires.
 *
 * @param options - the client, the key prefix, the reservation deadline, the session TTL and the
 *   clock
 * @returns the ledger, for `createBudget({ costLedger })`
 * @throws {ConfigurationError} `INVALID_OPTIONS` when an option is not usable
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { createBudget } from '@tracewarden/core';
 * import { createRedisCostLedger } from '@tracewarden/redis';
 *
 * const costLedger = createRedisCostLedger({ client: new Redis(process.env.REDIS_URL!) });
 * const budget = createBudget({ maxCostPerSession: 5, costLedger });
 * ```
 */
export function createRedisCostLedger(options: RedisCostLedgerOptions): CostLedger {
  validateOptions(schema, options, { entryPoint: 'createRedisCostLedger' });
  const send = toCommandFunction(options.client);
  const prefix = options.prefix ?? defaultPrefix;
  const reservationTtlSeconds = options.reservationTtlSeconds ?? 3600;
  const ttlMs = String(Math.ceil(reservationTtlSeconds * 1000));
  const sessionTtlSeconds = options.sessionTtlSeconds;
  if (sessionTtlSeconds !== undefined && sessionTtlSeconds < reservationTtlSeconds)
    throw configurationError(
      'createRedisCostLedger',
      'sessionTtlSeconds',
      `at least reservationTtlSeconds (${reservationTtlSeconds} s), so that a reservation's deadline outlives its session's account`,
      sessionTtlSeconds,
    );
  const sessionTtlMs =
    sessionTtlSeconds === undefined ? '' : String(Math.ceil(sessionTtlSeconds * 1000));
  const clock = options.clock ?? Date.now;

  const keysOf = (sessionId: string): string[] => {
    const session = entryKey(prefix, 'budget', sessionId);
    return [session, `${session}:held`, `${session}:deadlines`, `${session}:lapsed`];
  };

  const run = async (
    operation: string,
    sessionId: string,
    args: string[],
  ): Promise<{ reply: unknown[]; snapshot: LedgerSnapshot }> => {
    const keys = keysOf(sessionId);
    const reply = await runScript(
      send,
      ledgerScript,
      keys,
      [operation, numberArgument(clock()), ttlMs, lapsedTtlMs, sessionTtlMs, ...args],
      `cost ledger ${operation}`,
    );
    if (!Array.isArray(reply) || reply.length !== 6)
      throw invalidReply(`cost ledger ${operation}`, keys[0]!, reply);
    const snapshot: LedgerSnapshot = {
      spentMicroUsd: readNumber(reply[2]),
      reservedMicroUsd: readNumber(reply[3]),
      calls: readNumber(reply[4]),
    };
    if (
      !Number.isFinite(snapshot.spentMicroUsd) ||
      !Number.isFinite(snapshot.reservedMicroUsd) ||
      !Number.isFinite(snapshot.calls)
    )
      throw invalidReply(`cost ledger ${operation}`, keys[0]!, reply);
    return { reply, snapshot };
  };

  return {
    async reserve(request: LedgerReserveRequest): Promise<LedgerReserveResult> {
      const { reply, snapshot } = await run('reserve', request.sessionId, [
        numberArgument(request.amountMicroUsd),
        request.maxMicroUsd === undefined ? '' : numberArgument(request.maxMicroUsd),
        request.maxCalls === undefined ? '' : numberArgument(request.maxCalls),
        request.force === true ? '1' : '0',
      ]);
      const exceeded = reply[1] === '' ? undefined : (reply[1] as 'session_cost' | 'session_calls');
      if (readNumber(reply[0]) !== 1)
        return { ok: false, exceeded: exceeded ?? 'session_cost', snapshot };
      const reservation = new RedisReservation(
        readNumber(reply[5]),
        request.sessionId,
        request.amountMicroUsd,
      );
      return exceeded === undefined
        ? { ok: true, reservation, snapshot }
        : { ok: true, reservation, exceeded, snapshot };
    },
    async settle(reservation: LedgerReservation, actualMicroUsd: number) {
      const { snapshot } = await run('settle', reservation.sessionId, [
        String(reservation.id),
        numberArgument(actualMicroUsd),
      ]);
      return snapshot;
    },
    async release(reservation: LedgerReservation) {
      await run('release', reservation.sessionId, [String(reservation.id)]);
    },
    async spent(sessionId: string) {
      return (await run('spent', sessionId, [])).snapshot;
    },
    reset(sessionId?: string): Promise<void> {
      const keys = sessionId === undefined ? undefined : keysOf(sessionId);
      return resetEntries(send, prefix, 'budget', keys, 'cost ledger reset');
    },
  };
}
