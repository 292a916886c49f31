import type { GuardedCallRecord } from '../convert/entry-to-blocks.js';
import { TracewardenError } from '../errors/tracewarden-error.js';
import { formatIsoTimestamp } from '../model/format-iso-timestamp.js';
import type {
  CircuitState,
  GuardAction,
  HallucinationResult,
  ToolCallRecord,
  ToolCallStatus,
  ToolResultRecord,
  TraceEntry,
  ValidationResult,
} from '../model/tool-records.js';
import { currentTracer } from '../tracing/index.js';
import {
  type GuardedCallTracer,
  ownsDirectPath,
  recordGuardedCall,
} from '../tracing/record-guarded-call.js';
import type { Tracer } from '../tracing/types.js';
import { abortableSleep, sleepUnlessAborted } from './abortable-sleep.js';
import { backoffDelay } from './backoff-delay.js';
import { BudgetExceededError } from './budget-exceeded-error.js';
import {
  type CircuitAdmission,
  type CircuitBreakerLimits,
  type CircuitBreakerStore,
  type CircuitTransition,
  createMemoryCircuitBreakerStore,
  storeIgnoresTimeOfClosedSuccess,
} from './circuit-breaker-store.js';
import { CircuitOpenError } from './circuit-open-error.js';
import { consoleGuardLogger } from './console-guard-logger.js';
import {
  type Budget,
  type BudgetReservation,
  type BudgetSettlement,
  createBudget,
  defaultBudgetSession,
  MemoryBudget,
} from './create-budget.js';
import {
  createHallucinationDetector,
  type HallucinationDetector,
} from './create-hallucination-detector.js';
import { DeadlineQueue } from './deadline-queue.js';
import { GuardError } from './guard-error.js';
import type {
  CircuitBreakerOptions,
  GuardedFunction,
  GuardInvokeOptions,
  GuardOptions,
  GuardStats,
  RetryOptions,
  ToolArgs,
} from './guard-options.js';
import { checkGuardArguments } from './guard-options-schema.js';
import { GuardTimeoutError } from './guard-timeout-error.js';
import { HallucinationError } from './hallucination-error.js';
import { InvalidCostError } from './invalid-cost-error.js';
import { nextCallId } from './next-call-id.js';
import {
  defaultRateLimitStore,
  type RateLimitStore,
  type TokenBucketLimit,
} from './rate-limit-store.js';
import { RateLimitedError } from './rate-limited-error.js';
import { recordResultUnderCall } from './record-result-under-call.js';
import { retryAfterMs } from './retry-after-ms.js';
import { runValidators, type Validator } from './run-validators.js';
import type {
  GuardAttemptRecord,
  GuardCallContext,
  GuardClock,
  GuardDecision,
  GuardLogger,
  MaybePromise,
} from './types.js';
import { ValidationFailedError } from './validation-failed-error.js';

type Outcome = 'success' | 'failure' | 'timeout' | 'aborted';

// Preallocated: a bare `abort()` builds a DOMException with a stack (~3 µs); a shared reason costs nothing.
const deadlineReason = new GuardTimeoutError({
  message: 'The guarded call passed its timeout deadline; its attempt was aborted.',
});
const neverAborted = new AbortController().signal;
const notAborted: unique symbol = Symbol('not aborted');
const emptyKwargs: Readonly<Record<string, unknown>> = Object.freeze({});
const noValidations: ValidationResult[] = Object.freeze([]) as unknown as ValidationResult[];
const defaultClock: GuardClock = Date.now;
// durations: the monotonic, sub-millisecond clock, unless a clock is injected
const defaultTick: GuardClock = () => performance.now();
let ownBuckets = 0;

/** A guard's own rate-limit bucket, forgotten when the guard is collected. */
interface OwnBucket {
  readonly store: RateLimitStore;
  readonly key: string;
}

/**
 * Forgets the bucket of a `sharedKey: ''` guard once the guard is garbage: no other guard can
 * take from its key, so nothing can tell, and guards made per request or session leave no bucket
 * behind in a long-lived store. What is registered is a token only the guard holds, so the guard
 * itself stays as collectable as before.
 */
const ownBucketCleanup = new FinalizationRegistry<OwnBucket>((bucket) => {
  try {
    Promise.resolve(bucket.store.reset(bucket.key)).catch(() => {});
  } catch {
    // a store that throws on reset keeps the bucket, as it would have anyway
  }
});
function isoAt(time: number): string {
  // a Date keeps whole milliseconds: fractional times of the same millisecond share the string
  return formatIsoTimestamp(Math.trunc(time));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// A tool may throw anything, including values whose every inspection throws (a Proxy with
// throwing traps, an Error with a throwing `message` getter). These helpers never throw: the
// guard must still release the reservation, free the probe slot, record the call and rethrow.
const unreadableError = '(a thrown value that could not be read)';

function errorMessage(error: unknown): string {
  try {
    if (!(error instanceof Error)) return String(error);
    const message: unknown = error.message;
    return typeof message === 'string' ? message : String(message);
  } catch {
    return unreadableError;
  }
}

function errorType(error: unknown): string {
  try {
    if (error instanceof Error) return error.name === 'Error' ? error.constructor.name : error.name;
  } catch {
    // falls through to the type, which never throws
  }
  return typeof error;
}

function isAbortError(error: unknown): boolean {
  try {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as { name?: unknown }).name === 'AbortError'
    );
  } catch {
    return false;
  }
}

/**
 * A custom breaker test's verdict; when it throws, the default test (failure or timeout), with a
 * warning: the breaker's bookkeeping must finish whatever user code does.
 */
function countsAsFailure(
  isFailure: NonNullable<CircuitBreakerOptions['isFailure']>,
  outcome: Outcome,
  ending: Ending,
  runtime: GuardRuntime,
): boolean {
  try {
    return isFailure({ status: ending.status, error: ending.error });
  } catch (error) {
    runtime.warnOnce(
      'isFailure',
      error,
      `circuitBreaker.isFailure of tool "${runtime.name}" threw: ${errorMessage(error)}; the call was counted by the default rule.`,
      { tool: runtime.name },
    );
    return outcome === 'failure' || outcome === 'timeout';
  }
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

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
 * The context handed to each attempt. The call id and, with a timeout, the attempt's own
 * AbortController are made only when read: a tool that never looks at its signal pays nothing.
 */
class AttemptContext implements GuardCallContext {
  private controller: AbortController | undefined = undefined;
  private abortReason: unknown = notAborted;

  constructor(
    private readonly call: CallState,
    readonly attempt: number,
  ) {}

  get signal(): AbortSignal {
    // owned with a timeout; otherwise the caller's signal is the attempt's signal
    if (this.call.runtime.timeoutMs === undefined) return this.call.signal ?? neverAborted;
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortReason !== notAborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  get callId(): string {
    // the tool may record something under it: a tracer must then check it like any other id
    this.call.callIdShared = true;
    return this.call.callId;
  }

  /** Aborts the attempt's signal now, or as soon as it is first read. */
  abort(reason: unknown): void {
    if (this.abortReason !== notAborted) return;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }
}

/** What a call records beyond the plain in-memory path: made only when first written. */
class CallDetails {
  id: string | undefined = undefined;
  decisions: GuardDecision[] | undefined = undefined;
  attempts: GuardAttemptRecord[] | undefined = undefined;
  validations: ValidationResult[] | undefined = undefined;
  hallucination: HallucinationResult | null = null;
  costRecord: unknown = undefined;
  attemptStart = 0;
  startTick = Number.NaN;
  endTick = Number.NaN;
  lastLatency: number | undefined = undefined;
  callRecord: ToolCallRecord | undefined = undefined;
  positionalArgs: unknown[] | undefined = undefined;
  outcome: Outcome = 'failure';
  value: unknown = undefined;
  failure: unknown = undefined;
  // The fast path's budget decisions and first attempt, kept as numbers until another decision
  // or attempt needs the objects (see CallState.expand) or a tracer builds the blocks.
  reservedFact = false;
  factSessionId = '';
  factReservedMicroUsd = 0;
  factSpentAtReserve = 0;
  settledFact = false;
  factChargedMicroUsd = 0;
  factSpentMicroUsd = 0;
  factRemainingMicroUsd: number | null = null;
  attemptFact = false;
  factDurationMs = 0;
}

function reservedDecision(sessionId: string, reserved: number, spent: number): GuardDecision {
  return {
    guard: 'budget',
    event: 'reserved',
    session_id: sessionId,
    reserved_micro_usd: reserved,
    spent_micro_usd: spent,
  };
}

function settledDecision(
  sessionId: string,
  charged: number,
  spent: number,
  remaining: number | null,
): GuardDecision {
  return {
    guard: 'budget',
    event: 'settled',
    session_id: sessionId,
    charged_micro_usd: charged,
    spent_micro_usd: spent,
    remaining_micro_usd: remaining,
  };
}

function firstAttemptSucceeded(duration: number): GuardAttemptRecord {
  return { attempt: 1, outcome: 'success', duration_ms: duration };
}

/**
 * Everything one call accumulates. Hot-path decisions are only recorded when `track` is set.
 * What a plain in-memory call does not need (records, timings, the general path's outcome) lives
 * in a {@link CallDetails} made on first write: the object every call allocates stays small.
 */
class CallState {
  costMicroUsd: number | null = null;
  admission: CircuitAdmission | undefined = undefined;
  reservation: BudgetReservation | undefined = undefined;
  /** The budget's estimate is held for this call without a reservation object (quiet path). */
  heldPlainly = false;
  retries = 0;
  /** The call id was handed to user code (the tool's context, a hook's call record) before recording. */
  callIdShared = false;
  /** The call id is the model's ({@link GuardInvokeOptions.callId}), not one of ours. */
  externalCallId = false;
  /** This call's own entry listener ({@link GuardInvokeOptions.onEntry}). */
  onEntry: ((entry: TraceEntry) => void) | undefined = undefined;
  private more: CallDetails | undefined = undefined;

  constructor(
    readonly runtime: GuardRuntime,
    readonly args: unknown[],
    readonly argCount: number,
    readonly sessionId: string | undefined,
    readonly signal: AbortSignal | undefined,
    readonly tracer: Tracer | undefined,
    readonly track: boolean,
    readonly startMs: number,
    readonly metadata: Record<string, unknown> | undefined,
  ) {}

  private details(): CallDetails {
    if (this.more === undefined) this.more = new CallDetails();
    return this.more;
  }

  private get id(): string | undefined {
    return this.more?.id;
  }
  private set id(value: string | undefined) {
    this.details().id = value;
  }
  get decisions(): GuardDecision[] | undefined {
    return this.more?.decisions;
  }
  set decisions(value: GuardDecision[] | undefined) {
    this.details().decisions = value;
  }
  get attempts(): GuardAttemptRecord[] | undefined {
    return this.more?.attempts;
  }
  set attempts(value: GuardAttemptRecord[] | undefined) {
    this.details().attempts = value;
  }
  get validations(): ValidationResult[] | undefined {
    return this.more?.validations;
  }
  set validations(value: ValidationResult[] | undefined) {
    this.details().validations = value;
  }
  get hallucination(): HallucinationResult | null {
    return this.more === undefined ? null : this.more.hallucination;
  }
  set hallucination(value: HallucinationResult | null) {
    this.details().hallucination = value;
  }
  get costRecord(): unknown {
    return this.more?.costRecord;
  }
  set costRecord(value: unknown) {
    this.details().costRecord = value;
  }
  get attemptStart(): number {
    return this.more === undefined ? 0 : this.more.attemptStart;
  }
  set attemptStart(value: number) {
    this.details().attemptStart = value;
  }
  /** Reading of the duration clock at the start, when durations are measured (else NaN). */
  get startTick(): number {
    return this.more === undefined ? Number.NaN : this.more.startTick;
  }
  set startTick(value: number) {
    this.details().startTick = value;
  }
  /**
   * Reading of the duration clock when the fast path's attempt ended, kept when the quiet path
   * finishes the call (nothing runs after it but in-memory bookkeeping): the call's end (see
   * `measureEnd`), saving a clock read. Else NaN.
   */
  get endTick(): number {
    return this.more === undefined ? Number.NaN : this.more.endTick;
  }
  set endTick(value: number) {
    this.details().endTick = value;
  }
  get lastLatency(): number | undefined {
    return this.more?.lastLatency;
  }
  set lastLatency(value: number | undefined) {
    this.details().lastLatency = value;
  }
  private get callRecord(): ToolCallRecord | undefined {
    return this.more?.callRecord;
  }
  private set callRecord(value: ToolCallRecord | undefined) {
    this.details().callRecord = value;
  }
  private get positionalArgs(): unknown[] | undefined {
    return this.more?.positionalArgs;
  }
  private set positionalArgs(value: unknown[] | undefined) {
    this.details().positionalArgs = value;
  }
  /** How execution ended (step 5), read by steps 6–10. */
  get outcome(): Outcome {
    return this.more === undefined ? 'failure' : this.more.outcome;
  }
  set outcome(value: Outcome) {
    this.details().outcome = value;
  }
  get value(): unknown {
    return this.more?.value;
  }
  set value(value: unknown) {
    this.details().value = value;
  }
  get failure(): unknown {
    return this.more?.failure;
  }
  set failure(value: unknown) {
    this.details().failure = value;
  }

  get callId(): string {
    if (this.id === undefined) this.id = this.runtime.createCallId();
    return this.id;
  }

  /** The call runs for a model's tool call: recorded under its id (see {@link emit}). */
  useCallId(id: string): void {
    this.id = id;
    this.callIdShared = true;
    this.externalCallId = true;
  }

  // A second item makes a new two-item array: pushing onto a one-item literal grows its store
  // to 17 slots, and these arrays stay in the trace.
  decide(decision: GuardDecision): void {
    this.expand();
    const decisions = this.decisions;
    if (decisions === undefined) this.decisions = [decision];
    else if (decisions.length === 1) this.decisions = [decisions[0] as GuardDecision, decision];
    else decisions.push(decision);
  }

  attempt(record: GuardAttemptRecord): void {
    this.expand();
    const attempts = this.attempts;
    if (attempts === undefined) this.attempts = [record];
    else if (attempts.length === 1) this.attempts = [attempts[0] as GuardAttemptRecord, record];
    else attempts.push(record);
  }

  /** The budget's `reserved` decision: kept as numbers while it is the first. */
  noteReserved(sessionId: string, reserved: number, spent: number): void {
    if (this.decisions !== undefined) {
      this.decide(reservedDecision(sessionId, reserved, spent));
      return;
    }
    const d = this.details();
    d.reservedFact = true;
    d.factSessionId = sessionId;
    d.factReservedMicroUsd = reserved;
    d.factSpentAtReserve = spent;
  }

  /** The budget's `settled` decision: kept as numbers when it directly follows a kept `reserved`. */
  noteSettled(sessionId: string, charged: number, spent: number, remaining: number | null): void {
    const d = this.more;
    if (d === undefined || !d.reservedFact || d.settledFact) {
      this.decide(settledDecision(sessionId, charged, spent, remaining));
      return;
    }
    d.settledFact = true;
    d.factSessionId = sessionId;
    d.factChargedMicroUsd = charged;
    d.factSpentMicroUsd = spent;
    d.factRemainingMicroUsd = remaining;
  }

  /** The fast path's successful first attempt: kept as a number while it is the only attempt. */
  noteFirstAttempt(duration: number): void {
    if (this.attempts !== undefined) {
      this.attempt(firstAttemptSucceeded(duration));
      return;
    }
    const d = this.details();
    d.attemptFact = true;
    d.factDurationMs = duration;
  }

  /** Kept facts only, and no cost record: the guard record can be built later from numbers. */
  get onlyFacts(): CallDetails | undefined {
    const d = this.more;
    return d !== undefined &&
      d.decisions === undefined &&
      d.attempts === undefined &&
      d.costRecord === undefined
      ? d
      : undefined;
  }

  /** Makes the kept facts into decision and attempt objects, before anything else is recorded. */
  expand(): void {
    const d = this.more;
    if (d === undefined) return;
    if (d.reservedFact) {
      d.reservedFact = false;
      const reserved = reservedDecision(
        d.factSessionId,
        d.factReservedMicroUsd,
        d.factSpentAtReserve,
      );
      if (d.settledFact) {
        d.settledFact = false;
        d.decisions = [
          reserved,
          settledDecision(
            d.factSessionId,
            d.factChargedMicroUsd,
            d.factSpentMicroUsd,
            d.factRemainingMicroUsd,
          ),
        ];
      } else d.decisions = [reserved];
    }
    if (d.attemptFact) {
      d.attemptFact = false;
      d.attempts = [firstAttemptSucceeded(d.factDurationMs)];
    }
  }

  positional(): unknown[] {
    if (this.positionalArgs !== undefined) return this.positionalArgs;
    const { args, argCount } = this;
    // a copy: hooks and validators see it before the tool runs (and may change it), and a call
    // of more than three arguments gets the context appended to `args` (see callTool)
    this.positionalArgs = argCount === 1 && isPlainObject(args[0]) ? [] : args.slice(0, argCount);
    return this.positionalArgs;
  }

  /**
   * The positional arguments for a record made after the call ended: the copy if one was made,
   * else (up to three arguments, which the tool got one by one) the guard's own rest array,
   * which nothing else holds any more.
   */
  recordedArgs(): unknown[] {
    const { args, argCount } = this;
    const ownArray =
      this.positionalArgs === undefined &&
      argCount <= 3 &&
      !(argCount === 1 && isPlainObject(args[0]));
    return ownArray ? args : this.positional();
  }

  keywords(): Record<string, unknown> {
    const first = this.args[0];
    return this.argCount === 1 && isPlainObject(first)
      ? first
      : (emptyKwargs as Record<string, unknown>);
  }

  call(): ToolCallRecord {
    if (this.callRecord !== undefined) return this.callRecord;
    this.callIdShared = true;
    this.callRecord = {
      call_id: this.callId,
      tool_name: this.runtime.name,
      args: this.positional(),
      kwargs: this.keywords(),
      timestamp: isoAt(this.startMs),
      session_id: this.sessionId ?? null,
      metadata:
        this.runtime.metadata === undefined && this.metadata === undefined
          ? {}
          : { ...this.runtime.metadata, ...this.metadata },
    };
    return this.callRecord;
  }
}

const noResolver = (_value: unknown): void => {};

/** The fast path's first attempt racing its deadline: one timer, cleared on settle. */
class FirstAttemptRace {
  done = false;
  deadline = 0;
  resolve: (value: unknown) => void = noResolver;
  reject: (reason: unknown) => void = noResolver;

  constructor(
    readonly call: CallState,
    readonly context: AttemptContext,
  ) {}
}

/** What every {@link DirectRecord} of one guard shares. */
interface RecordInfo {
  readonly toolName: string;
  readonly sideEffect: string | undefined;
  /** The budget's `maxCostPerSession` in micro-USD (what `remaining_micro_usd` is counted from). */
  readonly maxPerSessionMicroUsd: number | undefined;
}

// DirectRecord.facts: which fast-path facts the record holds
const reservedBit = 1;
const settledBit = 2;
const attemptedBit = 4;

/**
 * What a guard hands a `createTracer` tracer for a call it records directly. A tracer with no
 * sink keeps it until the trace is read (every young GC copies it until then), so it is small:
 * what all calls of the guard share sits in one {@link RecordInfo}, and the guard record of a
 * fast-path call (one successful attempt, the budget's `reserved` and `settled` decisions) is
 * kept as numbers and built when read, the same objects the general path builds at once. A
 * number equal to what can be derived (the attempt's duration, the remaining budget) is not
 * stored. Read `guard` once.
 */
class DirectRecord implements GuardedCallRecord {
  parentBlockId = '';
  callBlockId = '';
  resultBlockId = '';
  private readonly facts: number = 0;
  private readonly factSessionId: string = '';
  private readonly reservedMicroUsd: number = 0;
  private readonly spentAtReserve: number = 0;
  private readonly chargedMicroUsd: number = 0;
  private readonly spentMicroUsd: number = 0;
  /** Undefined: `maxPerSessionMicroUsd` − spent (or null without a maximum). */
  private readonly remainingMicroUsd: number | null | undefined = undefined;
  /** Undefined: the call's execution time. */
  private readonly durationMs: number | undefined = undefined;

  constructor(
    private readonly info: RecordInfo,
    readonly callId: string,
    readonly args: unknown[],
    readonly kwargs: Record<string, unknown>,
    readonly callTimestamp: string,
    readonly sessionId: string | null,
    readonly status: string,
    readonly returnValue: unknown,
    readonly executionTimeMs: number,
    readonly retryCount: number,
    readonly validations: unknown[],
    readonly hallucination: unknown,
    private readonly costMicroUsd: number | null,
    readonly resultTimestamp: string,
    readonly uniqueCallId: boolean,
    private readonly built: Record<string, unknown> | undefined,
    facts: CallDetails | undefined,
  ) {
    if (facts !== undefined) {
      this.facts =
        (facts.reservedFact ? reservedBit : 0) |
        (facts.settledFact ? settledBit : 0) |
        (facts.attemptFact ? attemptedBit : 0);
      this.factSessionId = facts.factSessionId;
      this.reservedMicroUsd = facts.factReservedMicroUsd;
      this.spentAtReserve = facts.factSpentAtReserve;
      this.chargedMicroUsd = facts.factChargedMicroUsd;
      this.spentMicroUsd = facts.factSpentMicroUsd;
      const remaining = facts.factRemainingMicroUsd;
      if (remaining !== this.derivedRemaining()) this.remainingMicroUsd = remaining;
      if (facts.factDurationMs !== executionTimeMs) this.durationMs = facts.factDurationMs;
    }
  }

  get toolName(): string {
    return this.info.toolName;
  }

  get cost(): number | null {
    return this.costMicroUsd === null ? null : this.costMicroUsd / 1e6;
  }

  private derivedRemaining(): number | null {
    const max = this.info.maxPerSessionMicroUsd;
    return max === undefined ? null : max - this.spentMicroUsd;
  }

  /** The guard record: as `guardRecord` builds it (same keys, same order). */
  get guard(): Record<string, unknown> {
    if (this.built !== undefined) return this.built;
    const facts = this.facts;
    const sessionId = this.factSessionId;
    const reserved =
      (facts & reservedBit) !== 0
        ? reservedDecision(sessionId, this.reservedMicroUsd, this.spentAtReserve)
        : undefined;
    const remaining =
      this.remainingMicroUsd === undefined ? this.derivedRemaining() : this.remainingMicroUsd;
    const settled =
      (facts & settledBit) !== 0
        ? settledDecision(sessionId, this.chargedMicroUsd, this.spentMicroUsd, remaining)
        : undefined;
    const duration = this.durationMs === undefined ? this.executionTimeMs : this.durationMs;
    const guard: Record<string, unknown> = {
      attempts: (facts & attemptedBit) !== 0 ? [firstAttemptSucceeded(duration)] : [],
      decisions:
        reserved === undefined ? [] : settled === undefined ? [reserved] : [reserved, settled],
    };
    const sideEffect = this.info.sideEffect;
    if (sideEffect !== undefined) guard.side_effect = sideEffect;
    return guard;
  }
}

/** How the call ended, before recording. */
interface Ending {
  status: ToolCallStatus;
  value: unknown;
  error: unknown;
  /** Thrown to the caller instead of returning `value`. */
  thrown?: { error: unknown } | undefined;
}

/** @internal */
export class GuardRuntime {
  readonly name: string;
  readonly metadata: Record<string, unknown> | undefined;
  readonly createCallId: () => string;
  /** Call ids come from {@link nextCallId}: unique in the process, so a tracer need not check. */
  private readonly ownCallIds: boolean;
  readonly clock: GuardClock;
  readonly tick: GuardClock;
  readonly logger: GuardLogger;
  readonly stats: GuardStats = { calls: 0, attempts: 0, retries: 0, byStatus: zeroStatuses() };
  breakerState: CircuitState | undefined;
  readonly budget: Budget | undefined;

  private readonly fn: (...args: unknown[]) => unknown;
  private readonly options: GuardOptions;
  private readonly tracer: Tracer | undefined;
  private readonly signal: AbortSignal | undefined;
  private readonly sessionId: string | undefined;
  private readonly isFailure: CircuitBreakerOptions['isFailure'];
  private readonly listenersFixed: boolean;
  /** No `onEntry` or `afterCall`: a tracer alone needs no TraceEntry (see {@link recordDirectly}). */
  private readonly tracerOnly: boolean;
  // retry
  private readonly maxRetries: number;
  private readonly retry: RetryOptions | undefined;
  private readonly retryBlockedBySideEffect: boolean;
  /** `options.sideEffect` as given when the guard was made (every record uses this one). */
  private readonly sideEffect: GuardOptions['sideEffect'];
  // timeout
  readonly timeoutMs: number | undefined;
  /** Deadlines of fast-path first attempts: one timer per guard instead of one per call. */
  private readonly deadlines: DeadlineQueue<FirstAttemptRace> | undefined;
  private readonly timeoutBlocks: boolean;
  // breaker
  private readonly breaker: CircuitBreakerOptions | undefined;
  private readonly breakerStore: CircuitBreakerStore | undefined;
  private readonly breakerKey: string;
  private readonly breakerLimits: CircuitBreakerLimits | undefined;
  /** The store does not read the time of a closed call's success: skip the clock (slow in VMs). */
  private readonly breakerSkipsClockOnClosedSuccess: boolean = false;
  // rate limit
  private readonly bucketStore: RateLimitStore | undefined;
  private readonly bucketKey: string;
  private readonly bucketLimits: readonly TokenBucketLimit[];
  /** Held only by this guard: registered so that its own bucket is forgotten with it. */
  private readonly ownBucketToken: object | undefined = undefined;
  // validation, hallucination
  private readonly inputValidators: Validator | readonly Validator[] | undefined;
  private readonly outputValidators: Validator | readonly Validator[] | undefined;
  private readonly detector: HallucinationDetector | undefined;
  private readonly needsLatency: boolean;
  /** Every step can run in memory without `await` (see {@link run}). */
  private readonly fast: boolean;
  /** Budget reservation options of calls in the guard's own session, allocated once. */
  private readonly ownReserveOptions:
    | Readonly<{ sessionId: string | undefined; force: boolean }>
    | undefined;
  /** No clock was injected: a call's start time is also `Date.now()` for the deadline queue. */
  private readonly realClock: boolean;
  /**
   * An untracked success may skip steps 8–10's general code (see {@link quietSuccess}): no
   * custom breaker failure test, and a budget (if any) in memory at a fixed cost per call.
   */
  private readonly quiet: boolean;
  /** What every record this guard hands a tracer directly shares. */
  private readonly recordInfo: RecordInfo;
  /** The in-memory budget of a {@link quiet} guard, and its fixed cost per call. */
  private readonly plainBudget: MemoryBudget<unknown> | undefined = undefined;
  private readonly plainCost: number = 0;

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
    this.clock = options.clock ?? defaultClock;
    this.realClock = options.clock === undefined;
    this.tick = options.clock ?? defaultTick;
    this.logger = options.logger ?? consoleGuardLogger;
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
        : new DeadlineQueue<FirstAttemptRace>(this.timeoutMs, this.onFastDeadline);

    const breaker = options.circuitBreaker;
    this.breaker = breaker;
    this.breakerKey = breaker?.key ?? this.name;
    if (breaker !== undefined) {
      this.breakerStore = breaker.store ?? createMemoryCircuitBreakerStore();
      this.breakerLimits = Object.freeze({
        failureThreshold: Math.max(1, breaker.failureThreshold ?? 5),
        recoveryTimeoutMs: (breaker.recoveryTimeout ?? 60) * 1000,
        successThreshold: Math.max(1, breaker.successThreshold ?? 1),
      });
      this.breakerState = 'closed';
      this.breakerSkipsClockOnClosedSuccess = storeIgnoresTimeOfClosedSuccess(this.breakerStore);
    }

    const rate = options.rateLimit;
    const burst = Math.max(1, rate?.burst ?? 1);
    const limits: TokenBucketLimit[] = [];
    if (rate?.callsPerSecond !== undefined)
      limits.push({ capacity: burst, refillPerMs: rate.callsPerSecond / 1000 });
    if (rate?.callsPerMinute !== undefined)
      limits.push({ capacity: burst, refillPerMs: rate.callsPerMinute / 60_000 });
    if (rate?.callsPerHour !== undefined)
      limits.push({ capacity: burst, refillPerMs: rate.callsPerHour / 3_600_000 });
    this.bucketLimits = Object.freeze(limits);
    this.bucketStore = limits.length > 0 ? (rate?.store ?? defaultRateLimitStore) : undefined;
    this.bucketKey =
      rate?.sharedKey === undefined
        ? `tool:${this.name}`
        : rate.sharedKey === ''
          ? `own:${++ownBuckets}`
          : `shared:${rate.sharedKey}`;
    if (this.bucketStore !== undefined && rate?.sharedKey === '') {
      this.ownBucketToken = {};
      ownBucketCleanup.register(this.ownBucketToken, {
        store: this.bucketStore,
        key: this.bucketKey,
      });
    }

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
      const tracer =
        invoke === undefined
          ? (this.tracer ?? currentTracer())
          : invoke.tracer === null
            ? undefined
            : (invoke.tracer ?? this.tracer ?? currentTracer());
      const track = this.listenersFixed || tracer !== undefined || invoke?.onEntry !== undefined;
      const signal = invoke === undefined ? this.signal : (invoke.signal ?? this.signal);
      const s = new CallState(
        this,
        args,
        args.length,
        invoke === undefined ? this.sessionId : (invoke.sessionId ?? this.sessionId),
        signal,
        tracer,
        track,
        this.clock(),
        invoke?.metadata,
      );
      if (invoke !== undefined) {
        if (invoke.callId !== undefined) s.useCallId(invoke.callId);
        if (invoke.onEntry !== undefined) s.onEntry = invoke.onEntry;
      }
      this.stats.calls++;
      // an injected clock is also the duration clock: the start was just read from it
      if (track || this.needsLatency) s.startTick = this.realClock ? this.tick() : s.startMs;
      if (!this.fast || signal !== undefined) return this.runFrom(s, 0, undefined);
      return this.runFast(s);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Steps 1–3 and the first attempt without `await`; hands over to {@link runFrom} at the first unusual result. */
  private runFast(s: CallState): Promise<unknown> {
    // 1. circuit breaker: only a closed (or already half-open, admitted) breaker with no transition stays here
    const breakerStore = this.breakerStore;
    if (breakerStore !== undefined) {
      const admission = breakerStore.acquire(this.breakerKey, this.breakerLimits!, s.startMs);
      if (admission instanceof Promise || !admission.allowed || admission.transition !== undefined)
        return this.runFrom(s, 1, admission);
      this.breakerState = admission.state;
      s.admission = admission;
    }
    // 2. rate limit
    const bucketStore = this.bucketStore;
    if (bucketStore !== undefined) {
      const wait = bucketStore.take(this.bucketKey, this.bucketLimits, s.startMs);
      if (wait !== 0) return this.runFrom(s, 2, wait);
    }
    // 3. budget reservation
    const budget = this.budget;
    const plain = this.plainBudget;
    const budgetSession = s.sessionId ?? defaultBudgetSession;
    if (plain?.holdPlainly(budgetSession)) {
      // in memory, within every limit: no reservation objects (see quietSuccess)
      s.heldPlainly = true;
      if (s.track)
        s.noteReserved(budgetSession, plain.limits.estimateMicroUsd, plain.spentNow(budgetSession));
    } else if (budget !== undefined) {
      const reservation = budget.reserve(undefined, this.reserveOptions(s.sessionId));
      if (reservation instanceof Promise || !reservation.ok || reservation.exceeded !== undefined)
        return this.runFrom(s, 3, reservation);
      s.reservation = reservation;
      if (s.track) this.reserved(s, reservation);
    }
    // 5. first attempt
    this.stats.attempts++;
    if (s.track) s.attemptStart = s.startTick;
    const context = new AttemptContext(s, 1);
    let result: unknown;
    try {
      result = this.callTool(s.args, s.argCount, context);
    } catch (error) {
      return this.resume(s, error);
    }
    if (!isThenable(result)) {
      try {
        return Promise.resolve(this.succeeded(s, result));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    // `await` would adopt a foreign thenable the same way
    const promise = result instanceof Promise ? result : Promise.resolve(result);
    if (this.timeoutMs === undefined) {
      return promise.then(
        (value) => this.succeeded(s, value),
        (error: unknown) => this.resume(s, error),
      );
    }
    // one shared timer for all of this guard's deadlines; the deadline and the settle race through `race.done`
    const race = new FirstAttemptRace(s, context);
    this.capturing = race;
    const outer = new Promise(this.captureResolvers);
    this.capturing = undefined;
    // the call's start is `Date.now()` of a moment ago: the queue need not read the clock again
    // (unless `Date.now` was replaced since, e.g. by fake timers: the queue reads the current one)
    if (this.realClock && Date.now === defaultClock) this.deadlines!.add(race, s.startMs);
    else this.deadlines!.add(race);
    promise.then(
      (value) => this.fastSettled(race, value, false),
      (error: unknown) => this.fastSettled(race, error, true),
    );
    return outer;
  }

  /**
   * Calls the tool with its arguments and the context last. Common arities are called directly:
   * appending to the rest-parameter array would reallocate it, and a spread call costs more.
   */
  private callTool(args: unknown[], count: number, context: AttemptContext): unknown {
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
  private reserveOptions(sessionId: string | undefined): {
    sessionId: string | undefined;
    force: boolean;
  } {
    if (sessionId === this.sessionId && this.ownReserveOptions !== undefined)
      return this.ownReserveOptions;
    return { sessionId, force: this.budget!.limits.onExceed !== 'block' };
  }

  private reserved(s: CallState, reservation: BudgetReservation & { ok: true }): void {
    s.noteReserved(
      reservation.sessionId,
      reservation.estimateMicroUsd,
      reservation.snapshot.spentMicroUsd,
    );
  }

  /** The fast path's first attempt succeeded: steps 8–10. */
  private succeeded(s: CallState, value: unknown): unknown {
    if (s.track) {
      const end = this.tick();
      const duration = end - s.attemptStart;
      s.lastLatency = duration;
      s.endTick = end;
      s.noteFirstAttempt(duration);
    }
    if (this.quiet && this.quietSuccess(s)) {
      if (s.track) return this.finish(s, { status: 'success', value, error: undefined });
      this.stats.byStatus.success++;
      return value;
    }
    // the general path may run user code (alerts, warnings, breaker callbacks) before the end
    if (s.track) s.endTick = Number.NaN;
    if (s.heldPlainly) this.adoptPlainHold(s);
    return this.settleAndFinish(s, 'success', { status: 'success', value, error: undefined });
  }

  /**
   * Steps 8–9 of a first-attempt success when each is the plain in-memory case: the budget
   * settles at its fixed cost with no alert or limit in reach (a tracked call notes the
   * settlement as numbers), and the breaker admitted the call closed (a success then only clears
   * the failure count, at no time and with no transition). Returns false, having changed
   * nothing, when any step needs the general code ({@link settleAndFinish}).
   */
  private quietSuccess(s: CallState): boolean {
    const admission = s.admission;
    if (admission !== undefined && admission.state !== 'closed') return false;
    if (s.heldPlainly) {
      const plain = this.plainBudget!;
      const sessionId = s.sessionId ?? defaultBudgetSession;
      const charged = this.plainCost;
      if (!plain.settlePlainly(sessionId, charged)) return false;
      s.heldPlainly = false;
      s.costMicroUsd = charged;
      if (s.track) {
        const spent = plain.spentNow(sessionId);
        const max = plain.limits.maxCostPerSessionMicroUsd;
        s.noteSettled(sessionId, charged, spent, max === undefined ? null : max - spent);
      }
    }
    if (admission !== undefined) {
      s.admission = undefined;
      this.breakerStore!.record(
        this.breakerKey,
        this.breakerLimits!,
        admission,
        'success',
        s.startMs,
      );
    }
    return true;
  }

  /** Hands a quiet-path hold to the general code as the reservation `reserve` would have made. */
  private adoptPlainHold(s: CallState): void {
    s.heldPlainly = false;
    s.reservation = this.plainBudget!.reservationOfHeld(s.sessionId ?? defaultBudgetSession);
  }

  /** The race whose resolvers {@link captureResolvers} stores (the executor runs synchronously). */
  private capturing: FirstAttemptRace | undefined;
  private readonly captureResolvers = (
    resolve: (value: unknown) => void,
    reject: (reason: unknown) => void,
  ): void => {
    const race = this.capturing!;
    race.resolve = resolve;
    race.reject = reject;
  };

  /** Deadline of the fast path's first attempt (one shared function: no closure per call). */
  private readonly onFastDeadline = (race: FirstAttemptRace): void => {
    const s = race.call;
    const timeoutMs = this.timeoutMs;
    const action = this.options.timeout?.onTimeout ?? 'block';
    s.decide({ guard: 'timeout', event: 'deadline', action, attempt: 1, timeout_ms: timeoutMs });
    if (action !== 'block') {
      this.tripped(
        action,
        `Tool "${this.name}" passed its ${timeoutMs} ms timeout; still waiting because onTimeout is "${action}".`,
        s,
      );
      // still waiting: marks the race so the settle that comes later still answers the call
      race.deadline = -1;
      return;
    }
    race.context.abort(deadlineReason);
    race.resolve(this.resume(s, deadlineReason));
  };

  /** The fast path's first attempt settled before its deadline. */
  private fastSettled(race: FirstAttemptRace, settled: unknown, failed: boolean): void {
    // false when the deadline came first: it answered the call, unless it only warned (-1)
    if (!this.deadlines!.settle(race) && race.deadline !== -1) return;
    if (failed) {
      race.resolve(this.resume(race.call, settled));
      return;
    }
    try {
      race.resolve(this.succeeded(race.call, settled));
    } catch (error) {
      race.reject(error);
    }
  }

  /** The fast path's first attempt failed: retries and the remaining steps on the general path. */
  private async resume(s: CallState, error: unknown): Promise<unknown> {
    if (s.heldPlainly) this.adoptPlainHold(s);
    await this.execute(s, true, error);
    return this.complete(s);
  }

  /**
   * The general path, from `stage` on: 0 from the start; 1, 2, 3 with `pending` the breaker
   * admission, rate-limit wait or budget reservation the fast path already asked for.
   */
  private async runFrom(s: CallState, stage: 0 | 1 | 2 | 3, pending: unknown): Promise<unknown> {
    const args = s.args;
    const signal = s.signal;
    if (stage === 0 && signal?.aborted)
      return this.finish(s, {
        status: 'failure',
        value: null,
        error: signal.reason,
        thrown: { error: signal.reason },
      });

    // 1. circuit breaker
    if (this.breakerStore !== undefined && stage <= 1) {
      let admission =
        stage === 1
          ? (pending as MaybePromise<CircuitAdmission>)
          : this.breakerStore.acquire(this.breakerKey, this.breakerLimits!, s.startMs);
      if (admission instanceof Promise) admission = await admission;
      if (admission.transition !== undefined) this.transition(s, admission.transition);
      this.breakerState = admission.state;
      if (admission.allowed) s.admission = admission;
      else {
        const action = this.breaker?.onOpen ?? 'block';
        s.decide({ guard: 'circuit_breaker', event: 'refused', action, state: admission.state });
        const message = `Circuit breaker of tool "${this.name}" is ${admission.state === 'open' ? 'open' : 'half-open with every probe slot taken'} after repeated failures; the call was not run. Retry after the recovery timeout (${this.breakerLimits!.recoveryTimeoutMs / 1000} s).`;
        if (action === 'block')
          return this.refuse(
            s,
            'circuit_open',
            new CircuitOpenError({ message, toolName: this.name }),
          );
        this.tripped(action, message, s);
      }
    }

    // 2. rate limit
    if (this.bucketStore !== undefined && stage <= 2) {
      let wait =
        stage === 2
          ? (pending as MaybePromise<number>)
          : this.bucketStore.take(this.bucketKey, this.bucketLimits, s.startMs);
      if (wait instanceof Promise) wait = await wait;
      if (wait > 0) {
        const refusal = await this.waitForToken(s, wait);
        if (refusal !== undefined) return refusal;
      }
    }

    // 3. budget reservation
    const budget = this.budget;
    if (budget !== undefined && stage <= 3) {
      const onExceed = budget.limits.onExceed;
      let reservation =
        stage === 3
          ? (pending as MaybePromise<BudgetReservation>)
          : budget.reserve(undefined, this.reserveOptions(s.sessionId));
      if (reservation instanceof Promise) reservation = await reservation;
      if (reservation.ok) {
        s.reservation = reservation;
        if (s.track) this.reserved(s, reservation);
        if (reservation.exceeded !== undefined) {
          const message = `Budget exceeded (${reservation.exceeded}) for tool "${this.name}" in session "${reservation.sessionId}"; the call runs because onExceed is "${onExceed}".`;
          s.decide({
            guard: 'budget',
            event: 'exceeded',
            action: onExceed,
            limit: reservation.exceeded,
          });
          this.tripped(onExceed, message, s);
        }
      } else {
        s.decide({
          guard: 'budget',
          event: 'refused',
          action: 'block',
          limit: reservation.exceeded,
          session_id: reservation.sessionId,
          estimate_micro_usd: reservation.estimateMicroUsd,
          spent_micro_usd: reservation.snapshot.spentMicroUsd,
          reserved_micro_usd: reservation.snapshot.reservedMicroUsd,
          calls: reservation.snapshot.calls,
        });
        return this.refuse(
          s,
          'budget_exceeded',
          new BudgetExceededError({ message: reservation.message, toolName: this.name }),
        );
      }
    }

    // 4. input validation
    if (this.inputValidators !== undefined) {
      const results = await runValidators(
        this.inputValidators,
        s.argCount === 1 && isPlainObject(args[0]) ? args[0] : s.positional(),
        {
          phase: 'input',
          toolName: this.name,
          args: s.positional(),
          kwargs: s.keywords(),
        },
      );
      s.validations = results;
      const failed = results.find((r) => !r.valid);
      if (failed !== undefined) {
        const action = this.options.validators?.onInvalid ?? 'block';
        const message = `Input of tool "${this.name}" failed validation: ${failed.message}. Fix the arguments and call again.`;
        s.decide({
          guard: 'validation',
          event: 'input_invalid',
          action,
          failed: results.filter((r) => !r.valid).length,
        });
        if (action === 'block')
          return this.refuse(
            s,
            'validation_failed',
            new ValidationFailedError({ message, toolName: this.name }),
          );
        this.tripped(action, message, s);
      }
    }

    if (this.options.beforeCall !== undefined) {
      try {
        await this.options.beforeCall(s.call());
      } catch (error) {
        return this.refuse(s, 'failure', error);
      }
    }

    // 5. execution under retry × timeout
    await this.execute(s, false, undefined);
    return this.complete(s);
  }

  /**
   * Step 5, execution under retry × timeout; leaves `outcome`, `value` and `failure` on `s`.
   * With `firstFailed`, attempt 1 already ran (on the fast path) and threw `firstError`.
   */
  private async execute(s: CallState, firstFailed: boolean, firstError: unknown): Promise<void> {
    const signal = s.signal;
    for (let attempt = 1; ; attempt++) {
      const measure = s.track || this.needsLatency;
      let error: unknown;
      if (attempt === 1 && firstFailed) error = firstError;
      else {
        this.stats.attempts++;
        if (measure) s.attemptStart = attempt === 1 ? s.startTick : this.tick();
        try {
          s.value = await this.attempt(s, attempt);
          s.outcome = 'success';
          if (measure) {
            const duration = this.tick() - s.attemptStart;
            s.lastLatency = duration;
            if (s.track) s.attempt({ attempt, outcome: 'success', duration_ms: duration });
          }
          return;
        } catch (thrown) {
          error = thrown;
        }
      }
      s.failure = error;
      const outcome: Outcome =
        error === deadlineReason
          ? 'timeout'
          : signal?.aborted === true || isAbortError(error)
            ? 'aborted'
            : 'failure';
      s.outcome = outcome;
      const now = this.clock();
      const record: GuardAttemptRecord = {
        attempt,
        outcome,
        duration_ms: measure ? this.tick() - s.attemptStart : now - s.startMs,
        error: errorMessage(error),
        error_type: errorType(error),
      };
      s.attempt(record);
      const delay = this.retryDelay(s, error, outcome, attempt, record, now);
      if (delay === undefined) return;
      record.delay_ms = delay;
      if (s.track) s.decide({ guard: 'retry', event: 'backoff', attempt, delay_ms: delay });
      try {
        await sleepUnlessAborted(this.options.sleep ?? abortableSleep, delay, signal);
      } catch (sleepError) {
        s.outcome = 'aborted';
        s.failure = signal?.aborted === true ? signal.reason : sleepError;
        return;
      }
      s.retries++;
      this.stats.retries++;
    }
  }

  /** Steps 6–10 after execution: output validation, hallucination check, then {@link settleAndFinish}. */
  private async complete(s: CallState): Promise<unknown> {
    const { outcome, value, failure } = s;
    // 6.–7. output validation, hallucination check
    let ending: Ending;
    if (outcome === 'success') {
      ending = { status: 'success', value, error: undefined };
      if (this.outputValidators !== undefined) {
        const results = await runValidators(this.outputValidators, value, {
          phase: 'output',
          toolName: this.name,
          args: s.positional(),
          kwargs: s.keywords(),
        });
        s.validations = s.validations === undefined ? results : [...s.validations, ...results];
        const failed = results.find((r) => !r.valid);
        if (failed !== undefined) {
          const action = this.options.validators?.onInvalid ?? 'block';
          const message = `Result of tool "${this.name}" failed validation: ${failed.message}. The result was not returned.`;
          s.decide({
            guard: 'validation',
            event: 'output_invalid',
            action,
            failed: results.filter((r) => !r.valid).length,
          });
          if (action === 'block') {
            ending = {
              status: 'validation_failed',
              value,
              error: undefined,
              thrown: { error: new ValidationFailedError({ message, toolName: this.name }) },
            };
          } else this.tripped(action, message, s);
        }
      }
      if (this.detector !== undefined && ending.thrown === undefined)
        ending = await this.checkHallucination(s, ending);
    } else if (outcome === 'timeout') {
      ending = this.timeoutBlocks
        ? {
            status: 'timeout',
            value: null,
            error: failure,
            thrown: {
              error: new GuardTimeoutError({
                message: `Tool "${this.name}" did not finish within ${this.timeoutMs} ms${s.retries > 0 ? ` (${s.retries + 1} attempts)` : ''}. Raise timeout.timeoutSeconds or make the tool faster.`,
                toolName: this.name,
              }),
            },
          }
        : { status: 'failure', value: null, error: failure, thrown: { error: failure } };
    } else {
      ending = { status: 'failure', value: null, error: failure, thrown: { error: failure } };
    }

    return this.settleAndFinish(s, outcome, ending);
  }

  /** Steps 8–10: budget settlement, breaker update, record. Synchronous unless a store is async. */
  private settleAndFinish(s: CallState, outcome: Outcome, ending: Ending): unknown {
    const budget = this.budget;
    const reservation = s.reservation;
    if (budget !== undefined && reservation !== undefined) {
      const settled = this.settle(s, budget, reservation, outcome, ending);
      return settled instanceof Promise
        ? settled.then((next) => this.updateBreaker(s, outcome, next))
        : this.updateBreaker(s, outcome, settled);
    }
    return this.updateBreaker(s, outcome, ending);
  }

  /** Steps 9–10: breaker update, record. */
  private updateBreaker(s: CallState, outcome: Outcome, ending: Ending): unknown {
    if (s.admission !== undefined) {
      const isFailure = this.isFailure;
      const counted =
        outcome === 'aborted'
          ? 'ignore'
          : (
                isFailure === undefined
                  ? outcome === 'failure' || outcome === 'timeout'
                  : countsAsFailure(isFailure, outcome, ending, this)
              )
            ? 'failure'
            : 'success';
      const recorded = this.recordBreaker(s, counted);
      if (recorded instanceof Promise) return recorded.then(() => this.finish(s, ending));
    }
    // 10. record
    return this.finish(s, ending);
  }

  /** Runs one attempt, racing the deadline and the caller's signal when there is one. */
  private attempt(s: CallState, attempt: number): unknown {
    const callerSignal = s.signal;
    const timeoutMs = this.timeoutMs;
    const context = new AttemptContext(s, attempt);
    const result = this.callTool(s.args, s.argCount, context);
    if (!isThenable(result) || (timeoutMs === undefined && callerSignal === undefined))
      return result;
    return new Promise((resolve, reject) => {
      let done = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => {
        if (done) return;
        done = true;
        if (timer !== undefined) clearTimeout(timer);
        context.abort(callerSignal?.reason);
        reject(callerSignal?.reason);
      };
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          if (done) return;
          const action = this.options.timeout?.onTimeout ?? 'block';
          s.decide({ guard: 'timeout', event: 'deadline', action, attempt, timeout_ms: timeoutMs });
          if (action !== 'block') {
            this.tripped(
              action,
              `Tool "${this.name}" passed its ${timeoutMs} ms timeout; still waiting because onTimeout is "${action}".`,
              s,
            );
            return;
          }
          done = true;
          callerSignal?.removeEventListener('abort', onAbort);
          context.abort(deadlineReason);
          reject(deadlineReason);
        }, timeoutMs);
      }
      if (callerSignal !== undefined) {
        if (callerSignal.aborted) {
          onAbort();
          return;
        }
        callerSignal.addEventListener('abort', onAbort, { once: true });
      }
      result.then(
        (v) => {
          if (done) return;
          done = true;
          if (timer !== undefined) clearTimeout(timer);
          callerSignal?.removeEventListener('abort', onAbort);
          resolve(v);
        },
        (e: unknown) => {
          if (done) return;
          done = true;
          if (timer !== undefined) clearTimeout(timer);
          callerSignal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      );
    });
  }

  /** The backoff before the next attempt, or undefined when the call should not be retried. */
  private retryDelay(
    s: CallState,
    error: unknown,
    outcome: Outcome,
    attempt: number,
    record: GuardAttemptRecord,
    now: number,
  ): number | undefined {
    if (outcome === 'aborted' || attempt > this.maxRetries) return undefined;
    if (outcome === 'failure' && TracewardenError.isInstance(error)) return undefined;
    const retryOn = this.retry?.retryOn;
    if (retryOn !== undefined) {
      let retryable: boolean;
      try {
        retryable =
          typeof retryOn === 'function'
            ? retryOn(error, attempt)
            : retryOn.some((errorClass) => error instanceof errorClass);
      } catch {
        // a value `instanceof` cannot inspect (or a predicate that throws) matches nothing
        retryable = false;
      }
      if (!retryable) return undefined;
    }
    if (this.retryBlockedBySideEffect) {
      s.decide({
        guard: 'retry',
        event: 'skipped',
        reason: 'side_effect',
        side_effect: this.sideEffect,
      });
      return undefined;
    }
    const backoff = backoffDelay(attempt, this.retry, this.options.random ?? Math.random);
    const serverDelay = retryAfterMs(error, now);
    if (serverDelay === undefined) return backoff;
    record.retry_after_ms = serverDelay;
    const maxDelayMs = (this.retry?.maxDelay ?? 60) * 1000;
    if (serverDelay > maxDelayMs) {
      s.decide({
        guard: 'retry',
        event: 'skipped',
        reason: 'retry_after_exceeds_max_delay',
        retry_after_ms: serverDelay,
        max_delay_ms: maxDelayMs,
      });
      return undefined;
    }
    return Math.max(backoff, serverDelay);
  }

  private async waitForToken(s: CallState, firstWait: number): Promise<unknown> {
    const rate = this.options.rateLimit;
    const maxWaitMs = rate?.maxWaitMs ?? 0;
    const store = this.bucketStore!;
    let wait = firstWait;
    let waited = 0;
    while (wait > 0 && waited + wait <= maxWaitMs) {
      try {
        await sleepUnlessAborted(this.options.sleep ?? abortableSleep, wait, s.signal);
      } catch (error) {
        return this.refuse(s, 'failure', error);
      }
      waited += wait;
      let next = store.take(this.bucketKey, this.bucketLimits, this.clock());
      if (next instanceof Promise) next = await next;
      wait = next;
    }
    if (waited > 0)
      s.decide({ guard: 'rate_limit', event: 'waited', wait_ms: waited, key: this.bucketKey });
    if (wait === 0) return undefined;
    const action = rate?.onLimit ?? 'block';
    s.decide({
      guard: 'rate_limit',
      event: 'refused',
      action,
      key: this.bucketKey,
      retry_in_ms: wait,
      waited_ms: waited,
    });
    const message = `Rate limit reached for tool "${this.name}" (bucket "${this.bucketKey}"); next token in ${wait} ms. Slow down, raise the limit, or set rateLimit.maxWaitMs to wait.`;
    if (action === 'block')
      return this.refuse(s, 'rate_limited', new RateLimitedError({ message, toolName: this.name }));
    this.tripped(action, message, s);
    return undefined;
  }

  private async checkHallucination(s: CallState, ending: Ending): Promise<Ending> {
    const options = this.options.hallucination!;
    const sessionId = s.sessionId ?? defaultBudgetSession;
    const tracer = s.tracer;
    const result = await this.detector!.check(
      {
        toolName: this.name,
        args: s.positional(),
        kwargs: s.keywords(),
        sessionId,
        result: ending.value,
        latencyMs: s.lastLatency,
        traceText: tracer === undefined ? undefined : () => JSON.stringify(tracer.blocks()),
      },
      options,
    );
    s.hallucination = result;
    if (!result.is_hallucinated) {
      this.detector!.observe(ending.value, sessionId);
      return ending;
    }
    const action = options.onHallucination ?? 'block';
    const message = `Tool "${this.name}" call judged hallucinated (confidence ${result.confidence}): ${result.reason}. Check the tool name and arguments against the conversation.`;
    s.decide({ guard: 'hallucination', event: 'detected', action, confidence: result.confidence });
    if (action === 'block') {
      return {
        ...ending,
        status: 'hallucinated',
        thrown: { error: new HallucinationError({ message, toolName: this.name }) },
      };
    }
    this.tripped(action, message, s);
    return ending;
  }

  private settle(
    s: CallState,
    budget: Budget,
    reservation: BudgetReservation,
    outcome: Outcome,
    ending: Ending,
  ): MaybePromise<Ending> {
    let actual: number;
    if (outcome === 'success') {
      try {
        const cost = budget.costOf(ending.value);
        actual = cost.microUsd;
        // a Budget of the user's own may not check: NaN would disable every limit, a negative cost give credit
        if (!(actual >= 0) || actual === Number.POSITIVE_INFINITY)
          throw new InvalidCostError({
            cost: actual,
            toolName: this.name,
            message: `The budget priced a call of tool "${this.name}" at ${actual} micro-USD; a cost must be a finite amount >= 0. It was not charged: fix the budget's costOf.`,
          });
        if (cost.record !== undefined) s.costRecord = cost.record;
      } catch (error) {
        actual = reservation.estimateMicroUsd;
        s.decide({
          guard: 'budget',
          event: 'pricing_failed',
          error: errorMessage(error),
          charged_micro_usd: actual,
        });
        if (InvalidCostError.isInstance(error)) {
          // a broken cost function is a bug to fix, not a pricing gap to warn about: the call fails
          ending = { status: 'failure', value: null, error, thrown: { error } };
        } else {
          this.warnOnce(
            'pricing',
            error,
            `Could not price a call of tool "${this.name}": ${errorMessage(error)}; charged the estimate (${actual} micro-USD).`,
            { tool: this.name },
          );
        }
      }
    } else actual = budget.limits.costPerCallMicroUsd ?? 0;
    const settlement = budget.settle(reservation, actual);
    return settlement instanceof Promise
      ? settlement.then((settled) => this.settled(s, budget, settled, actual, ending))
      : this.settled(s, budget, settlement, actual, ending);
  }

  private settled(
    s: CallState,
    budget: Budget,
    settlement: BudgetSettlement,
    actual: number,
    ending: Ending,
  ): Ending {
    s.costMicroUsd = actual;
    if (s.track) {
      s.noteSettled(
        settlement.sessionId,
        actual,
        settlement.spentMicroUsd,
        settlement.remainingMicroUsd,
      );
    }
    if (settlement.alert !== undefined)
      s.decide({ guard: 'budget', event: 'alert', ...settlement.alert });
    if (settlement.exceededPerCall) {
      const action = budget.limits.onExceed;
      const message = `Call of tool "${this.name}" cost ${actual} micro-USD, over maxCostPerCall (${budget.limits.maxCostPerCallMicroUsd} micro-USD); the spend was recorded. Raise maxCostPerCall or use a cheaper call.`;
      s.decide({
        guard: 'budget',
        event: 'exceeded',
        action,
        limit: 'per_call',
        charged_micro_usd: actual,
      });
      if (action === 'block' && ending.thrown === undefined) {
        return {
          ...ending,
          status: 'budget_exceeded',
          thrown: { error: new BudgetExceededError({ message, toolName: this.name }) },
        };
      }
      if (action !== 'block') this.tripped(action, message, s);
    }
    return ending;
  }

  private transition(s: CallState, transition: CircuitTransition): void {
    this.breakerState = transition.to;
    s.decide({
      guard: 'circuit_breaker',
      event: 'transition',
      from: transition.from,
      to: transition.to,
      reason: transition.reason,
      at: new Date(transition.at).toISOString(),
    });
    const onStateChange = this.breaker?.onStateChange;
    if (onStateChange !== undefined) {
      try {
        onStateChange({ ...transition, toolName: this.name });
      } catch (error) {
        this.warnOnce(
          'onStateChange',
          error,
          `onStateChange of tool "${this.name}" threw: ${errorMessage(error)}`,
          { tool: this.name },
        );
      }
    }
  }

  private recordBreaker(
    s: CallState,
    outcome: 'success' | 'failure' | 'ignore',
  ): MaybePromise<void> {
    const admission = s.admission!;
    s.admission = undefined;
    const transition = this.breakerStore!.record(
      this.breakerKey,
      this.breakerLimits!,
      admission,
      outcome,
      outcome === 'success' && admission.state === 'closed' && this.breakerSkipsClockOnClosedSuccess
        ? s.startMs
        : this.clock(),
    );
    if (transition instanceof Promise) {
      return transition.then((t) => {
        if (t !== undefined) this.transition(s, t);
      });
    }
    if (transition !== undefined) this.transition(s, transition);
  }

  /** Refuses a call that did not run: frees its probe slot and reservation, records, throws. */
  private async refuse(s: CallState, status: ToolCallStatus, error: unknown): Promise<unknown> {
    if (s.admission !== undefined) await this.recordBreaker(s, 'ignore');
    if (s.reservation !== undefined && this.budget !== undefined) {
      const released = this.budget.release(s.reservation);
      if (released instanceof Promise) await released;
      s.reservation = undefined;
    }
    return this.finish(s, { status, value: null, error, thrown: { error } });
  }

  /** Applies a `warn` or `log` action: `warn` reports through the logger; both are recorded by the caller. */
  private tripped(action: GuardAction, message: string, s: CallState): void {
    if (action === 'warn') {
      s.callIdShared = true;
      this.logger.warn(message, { tool: this.name, call_id: s.callId });
    }
  }

  private finish(s: CallState, ending: Ending): unknown {
    this.stats.byStatus[ending.status]++;
    const thrown = ending.thrown;
    const guardError =
      thrown !== undefined &&
      GuardError.isGuardError(thrown.error) &&
      thrown.error.entry === undefined
        ? thrown.error
        : undefined;
    if (thrown === undefined && s.track && this.tracerOnly && s.tracer !== undefined) {
      const tracer = s.tracer as Partial<GuardedCallTracer>;
      if (
        // not past a recordEntry of a wrapper's own: it must see every call
        ownsDirectPath(tracer[recordGuardedCall], tracer.recordEntry) &&
        !s.externalCallId &&
        s.onEntry === undefined &&
        this.metadata === undefined &&
        s.metadata === undefined
      ) {
        this.recordDirectly(s, ending, tracer as GuardedCallTracer);
        return ending.value;
      }
    }
    if (s.track || guardError !== undefined) {
      const entry = this.entry(s, ending);
      // errors are built before the entry exists; attach it now (the field is readonly to users)
      if (guardError !== undefined) (guardError as { entry: TraceEntry | undefined }).entry = entry;
      if (s.track) this.emit(s, entry);
    }
    if (thrown !== undefined) throw thrown.error;
    return ending.value;
  }

  /** The call's end time and duration, set by {@link measureEnd} (no tuple per call). */
  private endMs = 0;
  private elapsedMs = 0;

  private measureEnd(s: CallState): void {
    if (Number.isNaN(s.startTick)) {
      this.endMs = this.clock();
      this.elapsedMs = this.endMs - s.startMs;
      return;
    }
    // one reading: the quiet path's attempt end when it finished the call, else now
    const endTick = s.endTick;
    const end = Number.isNaN(endTick) ? this.tick() : endTick;
    this.elapsedMs = end - s.startTick;
    // an injected clock is also the duration clock: its reading is the end time itself
    this.endMs = this.realClock ? s.startMs + this.elapsedMs : end;
  }

  private guardRecord(s: CallState): Record<string, unknown> {
    s.expand();
    const guard: Record<string, unknown> = {
      attempts: s.attempts ?? [],
      decisions: s.decisions ?? [],
    };
    if (this.sideEffect !== undefined) guard.side_effect = this.sideEffect;
    if (s.costRecord !== undefined) guard.cost_record = s.costRecord;
    return guard;
  }

  /**
   * Only a `createTracer` tracer listens and the call threw nothing and has no metadata: the
   * tracer builds the TOOL_CALL and TOOL_RESULT blocks straight from the call's fields, the same
   * blocks `recordEntry(this.entry(s, ending))` would make, without the entry's objects.
   */
  private recordDirectly(s: CallState, ending: Ending, tracer: GuardedCallTracer): void {
    this.measureEnd(s);
    try {
      const facts = s.onlyFacts;
      tracer[recordGuardedCall](
        new DirectRecord(
          this.recordInfo,
          s.callId,
          s.recordedArgs(),
          s.keywords(),
          isoAt(s.startMs),
          s.sessionId ?? null,
          ending.status,
          ending.value === undefined ? null : ending.value,
          this.elapsedMs,
          s.retries,
          // the blocks are immutable: one frozen empty list serves every call without validators
          s.validations ?? noValidations,
          s.hallucination,
          s.costMicroUsd,
          isoAt(this.endMs),
          this.ownCallIds && !s.callIdShared,
          facts === undefined ? this.guardRecord(s) : undefined,
          facts,
        ),
        // Date.now() at the end (see measureEnd) only with the real clock, not replaced since
        // (fake timers): the tracer may then draw the ids at it
        this.realClock && Date.now === defaultClock ? this.endMs : undefined,
      );
    } catch (error) {
      this.warnOnce(
        'record',
        error,
        `Could not record the call of tool "${this.name}" in the trace: ${errorMessage(error)}`,
        { tool: this.name, call_id: s.callId },
      );
    }
  }

  private entry(s: CallState, ending: Ending): TraceEntry {
    this.measureEnd(s);
    const error = ending.thrown?.error;
    const result: ToolResultRecord = {
      call_id: s.callId,
      tool_name: this.name,
      status: ending.status,
      return_value: ending.value === undefined ? null : ending.value,
      exception: error === undefined ? null : errorMessage(error),
      exception_type: error === undefined ? null : errorType(error),
      execution_time_ms: this.elapsedMs,
      retry_count: s.retries,
      validations: s.validations ?? [],
      hallucination: s.hallucination,
      cost: s.costMicroUsd === null ? null : s.costMicroUsd / 1e6,
      timestamp: isoAt(this.endMs),
      metadata: { guard: this.guardRecord(s) },
    };
    return { call: s.call(), result };
  }

  /** Causes of fault warnings already reported (see {@link warnOnce}); made on the first. */
  private warnedCauses: Set<string> | undefined = undefined;

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

  private emit(s: CallState, entry: TraceEntry): void {
    if (s.tracer !== undefined) {
      try {
        // a model's tool call already in the trace gets its result; otherwise call and result
        if (!(s.externalCallId && recordResultUnderCall(s.tracer, entry)))
          s.tracer.recordEntry(entry);
      } catch (error) {
        this.warnOnce(
          'record',
          error,
          `Could not record the call of tool "${this.name}" in the trace: ${errorMessage(error)}`,
          { tool: this.name, call_id: s.callId },
        );
      }
    }
    if (s.onEntry !== undefined) {
      try {
        s.onEntry(entry);
      } catch (error) {
        this.logger.warn(`onEntry of a call of tool "${this.name}" threw: ${errorMessage(error)}`, {
          tool: this.name,
        });
      }
    }
    const { onEntry, afterCall } = this.options;
    if (onEntry !== undefined) {
      try {
        onEntry(entry);
      } catch (error) {
        this.warnOnce(
          'onEntry',
          error,
          `onEntry of tool "${this.name}" threw: ${errorMessage(error)}`,
          {
            tool: this.name,
          },
        );
      }
    }
    if (afterCall !== undefined) {
      try {
        const done = afterCall(entry.call, entry.result);
        if (isThenable(done)) {
          done.then(undefined, (error: unknown) =>
            this.warnOnce(
              'afterCall',
              error,
              `afterCall of tool "${this.name}" failed: ${errorMessage(error)}`,
              { tool: this.name },
            ),
          );
        }
      } catch (error) {
        this.warnOnce(
          'afterCall',
          error,
          `afterCall of tool "${this.name}" threw: ${errorMessage(error)}`,
          { tool: this.name },
        );
      }
    }
  }
}

const runtimeOf: unique symbol = Symbol('tracewarden.guardRuntime');

/**
 * The `breakerState` getter of every guarded function: one function, so every guarded function
 * has the same hidden class (see {@link guard}).
 */
function breakerStateOf(
  this: { [runtimeOf]?: GuardRuntime } | undefined,
): CircuitState | undefined {
  return this?.[runtimeOf]?.breakerState;
}

/**
 * Guards a tool function: the returned function takes the same arguments (sync or async tool;
 * always async) and applies, in this order: circuit breaker → rate limit → budget reservation →
 * input validation → execution under retry × timeout → output validation → hallucination check →
 * budget settlement → breaker update → record. Each guard's action is `block` (throw a
 * {@link GuardError}), `warn` (report through `logger`, let the call proceed) or `log` (record only).
 *
 * The tool receives one extra last argument, a {@link GuardCallContext} `{ signal, attempt, callId }`.
 * When anything listens (a `tracer`, the ambient tracer, `onEntry`, `beforeCall`, `afterCall`),
 * each call produces a seed-004 {@link TraceEntry} whose `result.metadata.guard` holds every
 * attempt and guard decision; with a tracer it is recorded as TOOL_CALL + TOOL_RESULT blocks.
 * A successful call after retries has status `success` with `retry_count` > 0; `retried` is never
 * a final status.
 *
 * @param fn - the tool (its `this` is not bound: bind methods first)
 * @param options - guards, tracing, hooks, injectable clock, sleep and random
 * @returns the guarded function, with `invoke`, `breakerState`, `budget` and `stats`
 * @example
 * ```ts
 * const search = guard(async (q: string) => api.search(q), {
 *   name: 'search',
 *   retry: { maxRetries: 2 },
 *   timeout: { timeoutSeconds: 10 },
 *   circuitBreaker: { failureThreshold: 5 },
 *   rateLimit: { callsPerSecond: 5, burst: 5 },
 *   budget: { maxCostPerSession: 1, costPerCall: 0.001 },
 * });
 * await search('tracewarden');
 * ```
 */
export function guard<Args extends unknown[], Result>(
  fn: (...args: Args) => Result | PromiseLike<Result>,
  options: GuardOptions<Result> = {},
): GuardedFunction<ToolArgs<Args>, Result> {
  checkGuardArguments(fn, options);
  const runtime = new GuardRuntime(fn as (...args: unknown[]) => unknown, options as GuardOptions);
  const guarded = (...args: unknown[]) => runtime.run(args, undefined);
  // `breakerState` is one shared getter: a getter made per function would give each guarded
  // function its own hidden class, which lives in old space and is a root for the young-
  // generation GC (keeping every guard, its tracer and its trace alive until a full GC)
  Object.defineProperties(guarded, {
    name: { value: runtime.name },
    invoke: {
      value: (invokeOptions: GuardInvokeOptions, ...args: unknown[]) =>
        runtime.run(args, invokeOptions),
    },
    toolName: { value: runtime.name, enumerable: true },
    breakerState: { get: breakerStateOf, enumerable: true },
    budget: { value: runtime.budget, enumerable: true },
    stats: { value: runtime.stats, enumerable: true },
    [runtimeOf]: { value: runtime },
  });
  return guarded as unknown as GuardedFunction<ToolArgs<Args>, Result>;
}
