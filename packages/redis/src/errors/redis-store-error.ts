import { TracewardenError } from '@tracewarden/core';

/**
 * Codes of {@link RedisStoreError}:
 * - `REDIS_COMMAND_FAILED`: Redis (or the connection to it) failed a command; the call that
 *   needed the store is refused with this error, never let through unguarded.
 * - `REDIS_REPLY_INVALID`: Redis answered with something the store's script never returns (a
 *   proxy or a mock that does not run Lua, or a key written by something else).
 */
export type RedisStoreErrorCode = 'REDIS_COMMAND_FAILED' | 'REDIS_REPLY_INVALID';

/** Options of {@link RedisStoreError}. */
export interface RedisStoreErrorOptions {
  /** One of {@link RedisStoreErrorCode}. */
  code: RedisStoreErrorCode;
  /** What went wrong and what to do about it. */
  message: string;
  /** The store operation, e.g. `rate limit take`, `cost ledger reserve`. */
  operation: string;
  /** The Redis key the operation was on. */
  key: string;
  /** The client's error, or the reply that could not be read. */
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.RedisStoreError');

/**
 * A Redis-backed guard store could not do its work: the command failed (`REDIS_COMMAND_FAILED`,
 * the client's error as `cause`) or the reply was not the script's (`REDIS_REPLY_INVALID`). The
 * guard refuses the call with it (fail closed): a limit that cannot be checked is not waived.
 *
 * @example
 * ```ts
 * try { await guardedSearch('q'); } catch (e) {
 *   if (RedisStoreError.isInstance(e)) console.error(e.code, e.operation, e.key, e.cause);
 * }
 * ```
 */
export class RedisStoreError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: RedisStoreErrorCode;
  /** The store operation that failed, e.g. `circuit breaker acquire`. */
  readonly operation: string;
  /** The Redis key it was on. */
  readonly key: string;

  /**
   * @param options - code, message, operation, key and the cause
   */
  constructor(options: RedisStoreErrorOptions) {
    super(options.code, { message: options.message, cause: options.cause });
    this.operation = options.operation;
    this.key = options.key;
  }

  /**
   * Whether `error` is a `RedisStoreError`, from this or any other copy of the package: use it
   * rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (RedisStoreError.isInstance(e)) console.error(e.code, e.key);
   * ```
   */
  static override isInstance(error: unknown): error is RedisStoreError {
    return TracewardenError.hasMarker(error, marker);
  }
}
