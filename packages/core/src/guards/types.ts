/** A value, or a promise of it: store interfaces use it so a remote (e.g. Redis) store can be async while the in-memory one stays synchronous. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Where guards report `warn` actions. Any object with a `warn` method works (`console`, pino,
 * winston).
 */
export interface GuardLogger {
  /**
   * Reports a guard that tripped with action `warn`.
   * @param message - what happened, e.g. `rate limit reached for tool "search"`
   * @param details - structured, snake_case details (tool, status, limits)
   */
  warn(message: string, details?: Record<string, unknown>): void;
}

/**
 * The extra last argument a guarded function receives after its own arguments.
 *
 * Note: it is appended right after the arguments the caller passed, so a tool with optional
 * parameters should read it with `args.at(-1)` or take a single options object.
 */
export interface GuardCallContext {
  /**
   * Aborts at the timeout deadline (with a `GuardTimeoutError` as reason) or when the caller's
   * signal aborts (with its reason). Never aborts when neither is set. Pass it on to what the
   * tool awaits: the guard cannot stop a tool that ignores it, so a timed-out attempt would keep
   * running while a retry starts.
   */
  readonly signal: AbortSignal;
  /** 1 for the first attempt, 2 for the first retry, ... */
  readonly attempt: number;
  /** The call id recorded in the trace (`call_id`); the same for every attempt of a call. */
  readonly callId: string;
}

/** Sleeps `ms` milliseconds; should reject (or resolve) at once when `signal` aborts. */
export type GuardSleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Current time in milliseconds since the epoch (fractions allowed). */
export type GuardClock = () => number;

/** A uniform random number in [0, 1). */
export type GuardRandom = () => number;

/**
 * One attempt of a guarded call, as recorded in `result.metadata.guard.attempts`.
 * Keys are snake_case, as on the wire.
 */
export interface GuardAttemptRecord {
  /** 1-based attempt number. */
  attempt: number;
  /** `success`, `failure`, `timeout` or `aborted`. */
  outcome: 'success' | 'failure' | 'timeout' | 'aborted';
  /** Wall-clock duration of this attempt. */
  duration_ms: number;
  /** Error message, for failed attempts. */
  error?: string;
  /** Error class name, for failed attempts. */
  error_type?: string;
  /** Backoff slept before the next attempt, when there was one. */
  delay_ms?: number;
  /** The server's `Retry-After`, in milliseconds, when the error carried one. */
  retry_after_ms?: number;
}

/**
 * One guard decision, as recorded in `result.metadata.guard.decisions`: which guard, what it
 * decided, and the figures behind it (snake_case).
 */
export interface GuardDecision {
  /** The guard that decided. */
  guard:
    | 'circuit_breaker'
    | 'rate_limit'
    | 'budget'
    | 'retry'
    | 'timeout'
    | 'validation'
    | 'hallucination'
    | 'tracer';
  /** What happened, e.g. `refused`, `transition`, `waited`, `reserved`, `settled`, `alert`, `backoff`. */
  event: string;
  /** The action applied when the guard tripped. */
  action?: 'block' | 'warn' | 'log';
  /** Any figures: delays, limits, spend, states. */
  [key: string]: unknown;
}
