import type {
  CircuitState,
  GuardAction,
  ToolCallRecord,
  ToolCallStatus,
  ToolResultRecord,
  TraceEntry,
} from '../model/tool-records.js';
import type { Tracer } from '../tracing/types.js';
import type { BackoffOptions } from './backoff-delay.js';
import type { Budget, BudgetOptions } from './budget.js';
import type { CircuitBreakerStore, CircuitTransition } from './circuit-breaker-store.js';
import type { HallucinationOptions } from './create-hallucination-detector.js';
import type { RateLimitStore } from './rate-limit-store.js';
import type { ValidatorsOptions } from './run-validators.js';
import type {
  GuardCallContext,
  GuardClock,
  GuardLogger,
  GuardRandom,
  GuardSleep,
} from './types.js';

/** A class of errors, for `retry.retryOn`. */
export type ErrorClass = abstract new (...args: never[]) => unknown;

/**
 * Retry options: the seed's `RetryConfig` in camelCase (delays in seconds). Retries wrap the
 * timeout: each attempt has its own deadline.
 */
export interface RetryOptions extends BackoffOptions {
  /** Retries after the first attempt: 3 means up to 4 attempts. @default 3 */
  maxRetries?: number | undefined;
  /**
   * Which errors to retry: a predicate, or error classes (the seed's `retryable_exceptions`).
   * An empty list is the seed's default (`()`): every error, as when it is left out.
   * @default every thrown error and timed-out attempt, except aborts and refusals
   * Aborts (the caller's signal, `AbortError`) and tracewarden errors (guard refusals, policy
   * denials) are never retried, whatever this says.
   */
  retryOn?: ((error: unknown, attempt: number) => boolean) | readonly ErrorClass[] | undefined;
  /**
   * The tool may safely run twice. Required for a `sideEffect: 'write' | 'destructive'` tool to
   * be retried at all. @default false
   */
  idempotent?: boolean | undefined;
}

/**
 * Timeout options: the seed's `TimeoutConfig` in camelCase.
 *
 * JavaScript cannot stop a running function: at the deadline the guard aborts the attempt's
 * `signal` (the {@link GuardCallContext} the tool gets as its last argument) and stops waiting,
 * but a tool that ignores the signal keeps running, and with `retry` the next attempt starts
 * while it does. Pass `context.signal` on to whatever the tool awaits (`fetch`, a client's
 * `{ signal }` option) so that a timed-out attempt really ends.
 */
export interface TimeoutOptions {
  /**
   * Deadline of each attempt, in seconds: finite, > 0 and at most `maxTimeoutSeconds`
   * (Node's timer maximum, about 24.8 days).
   */
  timeoutSeconds: number;
  /**
   * `block`: abort the attempt's signal and fail with status `timeout`; `warn` and `log`: report
   * or record the passed deadline and keep waiting for the result. @default 'block'
   */
  onTimeout?: GuardAction | undefined;
}

/** Rate-limit options: the seed's `RateLimitConfig` in camelCase, plus waiting and a store. */
export interface RateLimitOptions {
  callsPerSecond?: number | undefined;
  callsPerMinute?: number | undefined;
  callsPerHour?: number | undefined;
  /** Bucket capacity: calls allowed at once after a quiet period. @default 1 */
  burst?: number | undefined;
  /** Action when no token is available (within `maxWaitMs`). @default 'block' */
  onLimit?: GuardAction | undefined;
  /**
   * Which bucket to use (seed semantics): `undefined` → one bucket per tool name (shared by every
   * guard of that name), `''` → a bucket of this guard's own, any other string → one bucket
   * shared by every guard with that key.
   */
  sharedKey?: string | undefined;
  /** Wait up to this long for a token instead of refusing at once. @default 0 */
  maxWaitMs?: number | undefined;
  /** Where buckets live. @default the process-wide in-memory store (see `resetRateLimits`) */
  store?: RateLimitStore | undefined;
}

/** A circuit-breaker state change, as given to `onStateChange`. */
export interface CircuitStateChange extends CircuitTransition {
  /** The tool whose breaker moved. */
  readonly toolName: string;
}

/** Circuit-breaker options: the seed's `CircuitBreakerConfig` in camelCase. */
export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. @default 5 */
  failureThreshold?: number | undefined;
  /** Seconds the circuit stays open before half-opening. @default 60 */
  recoveryTimeout?: number | undefined;
  /** Successful probes that close a half-open circuit; also the most probes at once. @default 1 */
  successThreshold?: number | undefined;
  /** Action when the circuit refuses a call: `warn` and `log` let it run (not as a probe). @default 'block' */
  onOpen?: GuardAction | undefined;
  /**
   * Whether a finished call counts as a failure.
   * @default status `failure` or `timeout` (a caller's abort never counts)
   */
  isFailure?: ((outcome: { status: ToolCallStatus; error: unknown }) => boolean) | undefined;
  /** Called on every state change (also recorded in the entry of the call that caused it). */
  onStateChange?: ((change: CircuitStateChange) => void) | undefined;
  /** Where breaker state lives. @default a new in-memory store for this guard */
  store?: CircuitBreakerStore | undefined;
  /** Key in the store. @default the tool name */
  key?: string | undefined;
}

/** The side effect of a tool: `write` and `destructive` tools are never retried unless `retry.idempotent`. */
export type SideEffect = 'read' | 'write' | 'destructive';

/**
 * Options of {@link guard}: the seed's configs in camelCase, plus tracing, hooks and injectable
 * time and randomness.
 * @typeParam Result - the tool's resolved result
 */
export interface GuardOptions<Result = unknown> {
  /** Tool name recorded as `tool_name`. @default the function's name, else `'tool'` */
  name?: string | undefined;
  /** Session of the calls (`session_id`; budget session). @default none: the shared default session */
  sessionId?: string | undefined;
  /** Recorded as `call.metadata`. */
  metadata?: Record<string, unknown> | undefined;
  /** Retry failed attempts. @default no retries */
  retry?: RetryOptions | undefined;
  /** Deadline of each attempt. @default none */
  timeout?: TimeoutOptions | undefined;
  /** Spend limits; a {@link Budget} object is shared as is. */
  budget?: BudgetOptions<Result> | Budget<Result> | undefined;
  rateLimit?: RateLimitOptions | undefined;
  circuitBreaker?: CircuitBreakerOptions | undefined;
  validators?: ValidatorsOptions<Result> | undefined;
  hallucination?: HallucinationOptions | undefined;
  /** What the tool changes. @default 'read' behaviour (retries as configured) */
  sideEffect?: SideEffect | undefined;
  /** Records each call as TOOL_CALL + TOOL_RESULT blocks. @default the ambient tracer, if any */
  tracer?: Tracer | undefined;
  /** Where `warn` actions report. @default console.warn */
  logger?: GuardLogger | undefined;
  /**
   * Aborts every call of this guard (e.g. on shutdown), calls given a signal of their own through
   * `invoke` too: either signal aborts the call.
   */
  signal?: AbortSignal | undefined;
  /**
   * Called once per call that is about to run (after the refusal checks: circuit breaker, rate
   * limit, budget, input validation), before the first attempt; throwing fails the call.
   */
  beforeCall?: ((call: ToolCallRecord) => void | Promise<void>) | undefined;
  /**
   * `beforeCall`'s pair: called when a call that got past the refusal checks ends (succeeded,
   * failed, timed out, its output invalid, or failed by `beforeCall`), whether or not
   * `beforeCall` is set. A refused call gets neither hook; its record goes to `onEntry`. Errors
   * are reported, not thrown.
   */
  afterCall?:
    | ((call: ToolCallRecord, result: ToolResultRecord) => void | Promise<void>)
    | undefined;
  /** Receives each finished call's entry, refused calls included (the call's record). Errors are reported, not thrown. */
  onEntry?: ((entry: TraceEntry) => void) | undefined;
  /** Current time in ms since the epoch. @default performance.timeOrigin + performance.now() */
  clock?: GuardClock | undefined;
  /** Sleep for backoff and rate-limit waits. @default an abortable setTimeout */
  sleep?: GuardSleep | undefined;
  /** Random source for jitter. @default Math.random */
  random?: GuardRandom | undefined;
  /** New call ids. @default a UUID per process with a counter in its last group (see `nextCallId`) */
  createCallId?: (() => string) | undefined;
}

/**
 * Per-call options of {@link GuardedFunction.invoke}, checked on each call as `guard()`'s are: an
 * unknown key or a wrong value rejects the call with a `ConfigurationError` (`INVALID_OPTIONS`).
 */
export interface GuardInvokeOptions {
  /**
   * Aborts this call: the attempt's signal aborts, backoff and waits end at once. The guard's own
   * `signal` still aborts it too.
   */
  signal?: AbortSignal | undefined;
  /** Session of this call (overrides the guard's). */
  sessionId?: string | undefined;
  /** Merged into this call's `call.metadata`. */
  metadata?: Record<string, unknown> | undefined;
  /**
   * The model's tool call id this call runs for (adapters pass it). The call is recorded under
   * that id: when the trace already holds the model's TOOL_CALL with it, only the TOOL_RESULT is
   * recorded, under that TOOL_CALL, with the guards' decisions.
   */
  callId?: string | undefined;
  /**
   * Records this call into this tracer (overrides the guard's `tracer` and `withTrace`); `null`
   * records it in no tracer (an adapter that records the result itself, from `onEntry`).
   */
  tracer?: Tracer | null | undefined;
  /** Receives this call's entry (call and result records) when it ends, like the guard's `onEntry`. */
  onEntry?: ((entry: TraceEntry) => void) | undefined;
  /**
   * What the model reads when this call fails, from the value it failed with: an adapter passes
   * how its framework shows a tool's error to the model (`Error: <message>` in OpenAI's and
   * LangChain's tool messages, the error's `toString()` in the AI SDK). The TOOL_RESULT records
   * it as its output, so the trace holds what the model read; the exception and its type stay in
   * the result's metadata, and the entry (`onEntry`, a `GuardError`'s `entry`) is unchanged.
   * @default the error's message (the entry's `exception`)
   */
  errorOutput?: ((error: unknown) => unknown) | undefined;
}

/** Counters of a guarded function. */
export interface GuardStats {
  /** Calls started. */
  calls: number;
  /** Attempts run (first attempts and retries). */
  attempts: number;
  /** Retries run. */
  retries: number;
  /** Finished calls by final status. */
  byStatus: Record<ToolCallStatus, number>;
}

/** `any` would match `GuardCallContext` and be taken for a context parameter. */
type IsAny<T> = 0 extends 1 & T ? true : false;

/** Strips an optional trailing context parameter, walking the required ones first. */
type RecursiveStrip<A extends unknown[]> = A extends []
  ? []
  : A extends [infer First, ...infer Rest]
    ? [First, ...RecursiveStrip<Rest>]
    : A extends [(infer Last)?]
      ? IsAny<Last> extends true
        ? A
        : [Last] extends [GuardCallContext | undefined]
          ? []
          : A
      : A;

/**
 * A tool's parameters without a trailing {@link GuardCallContext} parameter (required or
 * optional), which the guard supplies.
 */
export type ToolArgs<A extends unknown[]> =
  Required<A> extends [...unknown[], infer Last]
    ? IsAny<Last> extends true
      ? A
      : [Last] extends [GuardCallContext]
        ? A extends [...infer Init, infer _Context]
          ? Init
          : RecursiveStrip<A>
        : A
    : A;

/**
 * A guarded function: the tool's parameters, always async, plus per-call options and read-only
 * state.
 */
export interface GuardedFunction<Args extends unknown[], Result> {
  (...args: Args): Promise<Result>;
  /**
   * Calls with per-call options (abort signal, session, metadata).
   * @example
   * ```ts
   * await search.invoke({ signal: controller.signal }, 'query');
   * ```
   */
  invoke(options: GuardInvokeOptions, ...args: Args): Promise<Result>;
  /** The tool name. */
  readonly toolName: string;
  /** The breaker's state as last seen by this guard (`undefined` without a breaker). */
  readonly breakerState: CircuitState | undefined;
  /** The budget (spent, remaining), if any. */
  readonly budget: Budget<Result> | undefined;
  /** Counters. */
  readonly stats: Readonly<GuardStats>;
}
