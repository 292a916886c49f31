import { describeValue } from '../errors/validate-options.js';
import type { CircuitState, GuardAction, ToolCallStatus } from '../model/tool-records.js';
import type { Tracer } from '../tracing/types.js';
import { ambientScope, ToolCallScope } from '../tracing/with-trace.js';
import type { Budget } from './budget.js';
import { CallState } from './call-state.js';
import {
  type CircuitBreakerLimits,
  type CircuitBreakerStore,
  storeIgnoresTimeOfClosedSuccess,
} from './circuit-breaker-store.js';
import { consoleGuardLogger, safeGuardLogger } from './console-guard-logger.js';
import { createBudget } from './create-budget.js';
import {
  createHallucinationDetector,
  type HallucinationDetector,
} from './create-hallucination-detector.js';
import { DeadlineQueue } from './deadline-queue.js';
import type { RecordInfo } from './direct-record.js';
import { errorMessage } from './error-message.js';
import { errorType } from './error-type.js';
import type {
  CircuitBreakerOptions,
  GuardInvokeOptions,
  GuardOptions,
  GuardStats,
  RetryOptions,
} from './guard-options.js';
import { MemoryBudget } from './memory-budget.js';
import { nextCallId } from './next-call-id.js';
import { type QuietPlan, quietPlanOf } from './quiet-plan.js';
import type { RateLimitStore, TokenBucketLimit } from './rate-limit-store.js';
import { resolveCircuitBreaker } from './resolve-circuit-breaker.js';
import { type ResolvedRateLimit, resolveRateLimit } from './resolve-rate-limit.js';
import { type FirstAttemptRace, onFastDeadline, runFastPath } from './run-fast-path.js';
import { runGeneralPath } from './run-general-path.js';
import type { Validator } from './run-validators.js';
import type { GuardCallContext, GuardClock, GuardLogger } from './types.js';

const defaultClock: GuardClock = Date.now;

/**
 * A user's clock whose readings are always finite: a reading that is not (NaN from a broken
 * fake clock, a string) would stop the rate limit's refill and end calls with a raw `RangeError`
 * from date formatting, mid-bookkeeping. Such a reading is replaced by `Date.now()`, said once.
 */
function finiteClock(
  clock: GuardClock,
  rt: { warnOnce: GuardRuntime['warnOnce']; name: string },
): GuardClock {
  return () => {
    const now = clock();
    if (typeof now === 'number' && Number.isFinite(now)) return now;
    rt.warnOnce(
      'clock',
      undefined,
      `the clock of tool "${rt.name}" returned ${describeValue(now)}, not finite milliseconds; Date.now() is used for that reading. Fix the guard's clock option`,
      { tool: rt.name },
    );
    return Date.now();
  };
}
// durations: the monotonic, sub-millisecond clock, unless a clock is injected
const defaultTick: GuardClock = () => performance.now();

function zeroStatuses(): Record<ToolCallStatus, number> {
  return {
    success: 0,
    failure: 0,
    timeout: 0,
    circuit_open: 0,
    budget_exceeded: 0,
    rate_limited: 0,
    validation_failed: 0,
    hallucinated: 0,
    retried: 0,
  };
}

/**
 * One guard: its options resolved once, when the guard is made, and what its calls share (stats,
 * breaker state, warnings). The steps of a call live in `run-fast-path.ts`,
 * `run-general-path.ts`, `execute-attempts.ts`, `settle-call.ts` and `finish-call.ts`.
 * @internal
 */
export class GuardRuntime {
  readonly name: string;
  readonly metadata: Record<string, unknown> | undefined;
  readonly createCallId: () => string;
  /** Call ids come from {@link nextCallId}: unique in the process, so a tracer need not check. */
  readonly ownCallIds: boolean;
  readonly clock: GuardClock;
  readonly tick: GuardClock;
  readonly logger: GuardLogger;
  readonly stats: GuardStats = { calls: 0, attempts: 0, retries: 0, byStatus: zeroStatuses() };
  breakerState: CircuitState | undefined;
  readonly budget: Budget | undefined;

  readonly fn: (...args: unknown[]) => unknown;
  readonly options: GuardOptions;
  readonly tracer: Tracer | undefined;
  readonly signal: AbortSignal | undefined;
  readonly sessionId: string | undefined;
  readonly isFailure: CircuitBreakerOptions['isFailure'];
  readonly listenersFixed: boolean;
  /** No `onEntry` or `afterCall`: a tracer alone needs no TraceEntry (see `recordDirectly` in finish-call.ts). */
  readonly tracerOnly: boolean;
  // retry
  readonly maxRetries: number;
  readonly retry: RetryOptions | undefined;
  readonly retryBlockedBySideEffect: boolean;
  /** `options.sideEffect` as given when the guard was made (every record uses this one). */
  readonly sideEffect: GuardOptions['sideEffect'];
  // timeout
  readonly timeoutMs: number | undefined;
  /** Deadlines of fast-path first attempts: one timer per guard instead of one per call. */
  readonly deadlines: DeadlineQueue<FirstAttemptRace> | undefined;
  readonly timeoutBlocks: boolean;
  // breaker
  readonly breaker: CircuitBreakerOptions | undefined;
  readonly breakerStore: CircuitBreakerStore | undefined;
  readonly breakerKey: string;
  readonly breakerLimits: CircuitBreakerLimits | undefined;
  readonly onOpen: GuardAction = 'block';
  /** The store does not read the time of a closed call's success: skip the clock (slow in VMs). */
  readonly breakerSkipsClockOnClosedSuccess: boolean = false;
  // rate limit
  readonly bucketStore: RateLimitStore | undefined;
  readonly bucketKey: string;
  readonly bucketLimits: readonly TokenBucketLimit[];
  /** The rate limit as resolved; its `ownKeyHolder` lives as long as this guard. */
  readonly rateLimit: ResolvedRateLimit | undefined;
  // validation, hallucination
  readonly inputValidators: Validator | readonly Validator[] | undefined;
  readonly outputValidators: Validator | readonly Validator[] | undefined;
  readonly detector: HallucinationDetector | undefined;
  readonly needsLatency: boolean;
  /** Every step can run in memory without `await` (see {@link run}). */
  readonly fast: boolean;
  /** Budget reservation options of calls in the guard's own session, allocated once. */
  readonly ownReserveOptions:
    | Readonly<{ sessionId: string | undefined; force: boolean }>
    | undefined;
  /** No clock was injected: a call's start time is also `Date.now()` for the deadline queue. */
  readonly realClock: boolean;
  /**
   * An untracked success may skip steps 8–10's general code (see `quietSuccess` in run-fast-path.ts): no
   * custom breaker failure test, and a budget (if any) in memory at a fixed cost per call.
   */
  readonly quiet: boolean;
  /** What every record this guard hands a tracer directly shares. */
  readonly recordInfo: RecordInfo;
  /** The in-memory budget of a {@link quiet} guard, and its fixed cost per call. */
  readonly plainBudget: MemoryBudget<unknown> | undefined = undefined;
  readonly plainCost: number = 0;
  /** Steps 1–3 and 8–9 of calls without invoke options, on the in-memory stores' state (quiet-plan.ts). */
  readonly quietPlan: QuietPlan | undefined;

  constructor(fn: (...args: unknown[]) => unknown, options: GuardOptions) {
    this.fn = fn;
    this.options = options;
    this.tracer = options.tracer;
    this.signal = options.signal;
    this.sessionId = options.sessionId;
    this.isFailure = options.circuitBreaker?.isFailure;
    this.name = options.name ?? (fn.name === '' ? 'tool' : fn.name);
    this.metadata = options.metadata;
    this.createCallId = options.createCallId ?? nextCallId;
    this.ownCallIds = options.createCallId === undefined;
    const clock = options.clock === undefined ? undefined : finiteClock(options.clock, this);
    this.clock = clock ?? defaultClock;
    this.realClock = clock === undefined;
    this.tick = clock ?? defaultTick;
    this.logger =
      options.logger === undefined ? consoleGuardLogger : safeGuardLogger(options.logger);
    this.tracerOnly = options.onEntry === undefined && options.afterCall === undefined;
    this.listenersFixed =
      options.tracer !== undefined ||
      options.onEntry !== undefined ||
      options.beforeCall !== undefined ||
      options.afterCall !== undefined;

    const retry = options.retry;
    this.retry = retry;
    this.maxRetries = retry === undefined ? 0 : Math.max(0, Math.floor(retry.maxRetries ?? 3));
    this.sideEffect = options.sideEffect;
    this.retryBlockedBySideEffect =
      (options.sideEffect === 'write' || options.sideEffect === 'destructive') &&
      retry?.idempotent !== true;

    this.timeoutMs =
      options.timeout === undefined
        ? undefined
        : Math.max(0, options.timeout.timeoutSeconds * 1000);
    this.timeoutBlocks = (options.timeout?.onTimeout ?? 'block') === 'block';
    this.deadlines =
      this.timeoutMs === undefined
        ? undefined
        : new DeadlineQueue<FirstAttemptRace>(this.timeoutMs, onFastDeadline);

    const breaker = options.circuitBreaker;
    this.breaker = breaker;
    this.breakerKey = breaker?.key ?? this.name;
    if (breaker !== undefined) {
      const resolved = resolveCircuitBreaker(breaker);
      this.breakerStore = resolved.store;
      this.breakerLimits = resolved.limits;
      this.onOpen = resolved.onOpen;
      this.breakerState = 'closed';
      this.breakerSkipsClockOnClosedSuccess = storeIgnoresTimeOfClosedSuccess(this.breakerStore);
    }

    const rate = resolveRateLimit(options.rateLimit);
    this.rateLimit = rate;
    this.bucketLimits = rate === undefined ? Object.freeze([]) : rate.limits;
    this.bucketStore = rate?.store;
    this.bucketKey = rate?.key ?? `tool:${this.name}`;

    const budget = options.budget;
    this.budget =
      budget === undefined
        ? undefined
        : 'reserve' in budget
          ? (budget as Budget)
          : createBudget(budget as never);

    this.inputValidators = options.validators?.input;
    this.outputValidators = options.validators?.output as
      | Validator
      | readonly Validator[]
      | undefined;
    const hallucination = options.hallucination;
    this.detector =
      hallucination === undefined
        ? undefined
        : (hallucination.detector ??
          createHallucinationDetector({ knownTools: hallucination.knownTools }));
    const profile = hallucination?.profile;
    this.needsLatency = profile?.minLatencyMs !== undefined || profile?.maxLatencyMs !== undefined;
    this.fast =
      this.inputValidators === undefined &&
      this.outputValidators === undefined &&
      this.detector === undefined &&
      !this.needsLatency &&
      options.beforeCall === undefined;
    const plainCost = this.budget instanceof MemoryBudget ? this.budget.plainCallCost() : undefined;
    this.quiet =
      this.isFailure === undefined &&
      (this.budget === undefined || plainCost !== undefined) &&
      (breaker === undefined || this.breakerSkipsClockOnClosedSuccess);
    if (this.quiet && plainCost !== undefined) {
      this.plainBudget = this.budget as MemoryBudget<unknown>;
      this.plainCost = plainCost;
    }
    this.recordInfo = Object.freeze({
      toolName: this.name,
      sideEffect: this.sideEffect,
      maxPerSessionMicroUsd: this.budget?.limits.maxCostPerSessionMicroUsd,
    });
    this.ownReserveOptions =
      this.budget === undefined
        ? undefined
        : Object.freeze({
            sessionId: options.sessionId,
            force: this.budget.limits.onExceed !== 'block',
          });
    this.quietPlan = quietPlanOf(this);
  }

  /**
   * Runs one call. Guards whose every step is in memory (no validators, hallucination check,
   * `beforeCall` or caller signal) take the fast path: no `async` layer, one `.then` on the tool's
   * promise (or none for a sync tool), and the general path only from the first step that is not
   * the plain case (a refusal, a wait, an async store, a failed attempt).
   */
  run(args: unknown[], invoke: GuardInvokeOptions | undefined): Promise<unknown> {
    try {
      // fields of the runtime, not of `options`: option objects of many shapes make reads megamorphic
      // (one read of the scope: the ambient tracer, or an adapter's tool call for the first
      // guarded function run in it, see ToolCallScope)
      const store = ambientScope();
      let tracer: Tracer | undefined;
      let scope: ToolCallScope | undefined;
      if (store instanceof ToolCallScope) {
        // the adapter's call, when this guard would record into its trace or nowhere: the guard
        // records nothing itself and hands its record to the scope (the adapter records what
        // the model reads, with it)
        const own = invoke?.tracer === undefined ? this.tracer : invoke.tracer;
        if (
          invoke?.callId === undefined &&
          own !== null &&
          (own === undefined || own === store.tracer)
        )
          scope = store.claim();
        tracer =
          scope !== undefined || invoke?.tracer === null
            ? undefined
            : (invoke?.tracer ?? this.tracer ?? store.outer);
      } else
        tracer =
          invoke === undefined
            ? (this.tracer ?? store)
            : invoke.tracer === null
              ? undefined
              : (invoke.tracer ?? this.tracer ?? store);
      const track =
        this.listenersFixed ||
        tracer !== undefined ||
        invoke?.onEntry !== undefined ||
        scope !== undefined;
      // the call's own signal and the guard's (a shutdown) both abort it
      const own = invoke?.signal;
      const signal =
        own === undefined || own === this.signal
          ? this.signal
          : this.signal === undefined
            ? own
            : AbortSignal.any([own, this.signal]);
      const s = new CallState(
        this,
        args,
        args.length,
        invoke === undefined ? this.sessionId : (invoke.sessionId ?? this.sessionId),
        track,
        this.clock(),
      );
      if (tracer !== undefined) s.tracer = tracer;
      if (signal !== undefined) s.callerSignal = signal;
      if (scope !== undefined) {
        s.useCallId(scope.callId);
        const claimed = scope;
        s.onEntry = (entry) => claimed.hold(entry);
      }
      if (invoke !== undefined) {
        if (invoke.metadata !== undefined) s.metadata = invoke.metadata;
        if (invoke.callId !== undefined) s.useCallId(invoke.callId);
        if (invoke.onEntry !== undefined) s.onEntry = invoke.onEntry;
        if (invoke.errorOutput !== undefined) s.errorOutput = invoke.errorOutput;
      }
      this.stats.calls++;
      // an injected clock is also the duration clock: the start was just read from it
      if (track || this.needsLatency) s.startTick = this.realClock ? this.tick() : s.startMs;
      if (!this.fast || signal !== undefined) return runGeneralPath(this, s, 0, undefined);
      return runFastPath(this, s);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Calls the tool with its arguments and the context last. Common arities are called directly:
   * appending to the rest-parameter array would reallocate it, and a spread call costs more.
   */
  callTool(args: unknown[], count: number, context: GuardCallContext): unknown {
    switch (count) {
      case 0:
        return this.fn(context);
      case 1:
        return this.fn(args[0], context);
      case 2:
        return this.fn(args[0], args[1], context);
      case 3:
        return this.fn(args[0], args[1], args[2], context);
      default:
        args[count] = context;
        return this.fn(...args);
    }
  }

  /** The budget reservation options of a call: preallocated for the guard's own session. */
  reserveOptions(sessionId: string | undefined): {
    sessionId: string | undefined;
    force: boolean;
  } {
    if (sessionId === this.sessionId && this.ownReserveOptions !== undefined)
      return this.ownReserveOptions;
    return { sessionId, force: this.budget!.limits.onExceed !== 'block' };
  }

  /** Applies a `warn` or `log` action: `warn` reports through the logger; both are recorded by the caller. */
  tripped(action: GuardAction, message: string, s: CallState): void {
    if (action === 'warn') {
      s.callIdShared = true;
      this.logger.warn(message, { tool: this.name, call_id: s.recordedCallId });
    }
  }

  /** The call's end time and duration, set by `measureEnd` in finish-call.ts (no tuple per call). */
  endMs = 0;
  elapsedMs = 0;

  /** Causes of fault warnings already reported (see {@link warnOnce}); made on the first. */
  warnedCauses: Set<string> | undefined = undefined;

  /**
   * Reports a fault (a tracer, hook or callback that throws) once per cause and guard: the same
   * broken tracer would otherwise print one warning per call. The cause is where it happened and
   * what was thrown; at most 100 causes are remembered per guard.
   */
  warnOnce(site: string, error: unknown, message: string, details: Record<string, unknown>): void {
    const cause = `${site}\u0000${errorType(error)}\u0000${errorMessage(error)}`;
    let warned = this.warnedCauses;
    if (warned === undefined) {
      warned = new Set();
      this.warnedCauses = warned;
    }
    if (warned.has(cause)) return;
    if (warned.size < 100) warned.add(cause);
    this.logger.warn(`${message} (reported once; later failures of this kind are not)`, details);
  }
}
