import { formatIsoTimestamp } from '../model/format-iso-timestamp.js';
import type {
  HallucinationResult,
  ToolCallRecord,
  ToolCallStatus,
  TraceEntry,
  ValidationResult,
} from '../model/tool-records.js';
import type { Tracer } from '../tracing/types.js';
import { isPlainObject } from '../validation/is-record.js';
import { neverAborted } from './attempt-context.js';
import type { BudgetReservation } from './budget.js';
import type { CircuitAdmission } from './circuit-breaker-store.js';
import type { GuardRuntime } from './guard-runtime.js';
import type { GuardAttemptRecord, GuardCallContext, GuardDecision } from './types.js';

/** How execution ended (step 5). */
export type Outcome = 'success' | 'failure' | 'timeout' | 'aborted';

/** How the call ended, before recording. */
export interface Ending {
  status: ToolCallStatus;
  value: unknown;
  error: unknown;
  /** Thrown to the caller instead of returning `value`. */
  thrown?: { error: unknown } | undefined;
}

const emptyKwargs: Readonly<Record<string, unknown>> = Object.freeze({});

/** The ISO text of a clock reading, as the guard records it. */
export function isoAt(time: number): string {
  // a Date keeps whole milliseconds: fractional times of the same millisecond share the string
  return formatIsoTimestamp(Math.trunc(time));
}

export class CallDetails {
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
  // Rare on the quiet path: set when a call is tracked, invoked with options or leaves the
  // fast path, each of which makes the details anyway.
  costMicroUsd: number | null = null;
  retries = 0;
  callIdShared = false;
  externalCallId = false;
  onEntry: ((entry: TraceEntry) => void) | undefined = undefined;
  errorOutput: ((error: unknown) => unknown) | undefined = undefined;
  signal: AbortSignal | undefined = undefined;
  tracer: Tracer | undefined = undefined;
  metadata: Record<string, unknown> | undefined = undefined;
}

export function reservedDecision(
  sessionId: string,
  reserved: number,
  spent: number,
): GuardDecision {
  return {
    guard: 'budget',
    event: 'reserved',
    session_id: sessionId,
    reserved_micro_usd: reserved,
    spent_micro_usd: spent,
  };
}

export function settledDecision(
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

export function firstAttemptSucceeded(duration: number): GuardAttemptRecord {
  return { attempt: 1, outcome: 'success', duration_ms: duration };
}

/**

 * Everything one call accumulates. Hot-path decisions are only recorded when `track` is set.
 * What a plain in-memory call does not need (records, timings, the general path's outcome) lives
 * in a {@link CallDetails} made on first write: the object every call allocates stays small.
 */
export class CallState implements GuardCallContext {
  // Fields the quiet path reads or writes; the rest live in CallDetails (bench/guards.bench.ts,
  // decision 080: 184 -> 128 bytes per call, with the call's start as a boxed number)
  admission: CircuitAdmission | undefined = undefined;
  reservation: BudgetReservation | undefined = undefined;
  /** The budget's estimate is held for this call without a reservation object (quiet path). */
  heldPlainly = false;
  private more: CallDetails | undefined = undefined;
  /** As the first attempt's context (see {@link signal}): an own field, as AttemptContext's is. */
  readonly attempt = 1;

  constructor(
    readonly runtime: GuardRuntime,
    readonly args: unknown[],
    readonly argCount: number,
    readonly sessionId: string | undefined,
    readonly track: boolean,
    readonly startMs: number,
  ) {}

  private details(): CallDetails {
    if (this.more === undefined) this.more = new CallDetails();
    return this.more;
  }

  get costMicroUsd(): number | null {
    return this.more === undefined ? null : this.more.costMicroUsd;
  }
  set costMicroUsd(value: number | null) {
    if (value !== null || this.more !== undefined) this.details().costMicroUsd = value;
  }
  get retries(): number {
    return this.more === undefined ? 0 : this.more.retries;
  }
  set retries(value: number) {
    if (value !== 0 || this.more !== undefined) this.details().retries = value;
  }
  /** The call id was handed to user code (the tool's context, a hook's call record) before recording. */
  get callIdShared(): boolean {
    return this.more === undefined ? false : this.more.callIdShared;
  }
  set callIdShared(value: boolean) {
    if (value || this.more !== undefined) this.details().callIdShared = value;
  }
  /** The call id is the model's ({@link GuardInvokeOptions.callId}), not one of ours. */
  get externalCallId(): boolean {
    return this.more === undefined ? false : this.more.externalCallId;
  }
  /** This call's own entry listener ({@link GuardInvokeOptions.onEntry}). */
  get onEntry(): ((entry: TraceEntry) => void) | undefined {
    return this.more?.onEntry;
  }
  set onEntry(value: ((entry: TraceEntry) => void) | undefined) {
    if (value !== undefined || this.more !== undefined) this.details().onEntry = value;
  }
  /** What the model reads for a failed call ({@link GuardInvokeOptions.errorOutput}). */
  get errorOutput(): ((error: unknown) => unknown) | undefined {
    return this.more?.errorOutput;
  }
  set errorOutput(value: ((error: unknown) => unknown) | undefined) {
    if (value !== undefined || this.more !== undefined) this.details().errorOutput = value;
  }
  /** The caller's signal (per call or guard-wide). */
  get callerSignal(): AbortSignal | undefined {
    return this.more?.signal;
  }
  set callerSignal(value: AbortSignal | undefined) {
    if (value !== undefined || this.more !== undefined) this.details().signal = value;
  }
  get tracer(): Tracer | undefined {
    return this.more?.tracer;
  }
  set tracer(value: Tracer | undefined) {
    if (value !== undefined || this.more !== undefined) this.details().tracer = value;
  }
  /** The call's own metadata ({@link GuardInvokeOptions.metadata}). */
  get metadata(): Record<string, unknown> | undefined {
    return this.more?.metadata;
  }
  set metadata(value: Record<string, unknown> | undefined) {
    if (value !== undefined || this.more !== undefined) this.details().metadata = value;
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

  /** The call id, read for the guard's own records (not marked as handed to user code). */
  get recordedCallId(): string {
    if (this.id === undefined) this.id = this.runtime.createCallId();
    return this.id;
  }

  // The call is also its first attempt's context on the fast path without a timeout (where the
  // caller's signal is unset): one object per call instead of two (bench/guards.bench.ts,
  // decision 080's guard path). Retries and timed attempts get an AttemptContext.

  /** As the first attempt's context: never aborts (no timeout, no caller signal). */
  get signal(): AbortSignal {
    return this.callerSignal ?? neverAborted;
  }

  /** As the first attempt's context: the tool may record something under it (see AttemptContext). */
  get callId(): string {
    this.callIdShared = true;
    return this.recordedCallId;
  }

  /** The call runs for a model's tool call: recorded under its id (see `emit` in finish-call.ts). */
  useCallId(id: string): void {
    const d = this.details();
    d.id = id;
    d.callIdShared = true;
    d.externalCallId = true;
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

  recordAttempt(record: GuardAttemptRecord): void {
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

  /** The `reserved` decision of a budget reservation (see {@link noteReserved}). */
  noteReservation(reservation: BudgetReservation & { ok: true }): void {
    this.noteReserved(
      reservation.sessionId,
      reservation.estimateMicroUsd,
      reservation.snapshot.spentMicroUsd,
    );
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
      this.recordAttempt(firstAttemptSucceeded(duration));
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
      call_id: this.recordedCallId,
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
