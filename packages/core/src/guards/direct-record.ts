import type { GuardedCallRecord } from '../convert/entry-to-blocks.js';
import {
  type CallDetails,
  firstAttemptSucceeded,
  reservedDecision,
  settledDecision,
} from './call-state.js';

/** What every {@link DirectRecord} of one guard shares. */
export interface RecordInfo {
  readonly toolName: string;
  readonly sideEffect: string | undefined;
  /** The budget's `maxCostPerSession` in micro-USD (what `remaining_micro_usd` is counted from). */
  readonly maxPerSessionMicroUsd: number | undefined;
}

/**
 * What a guard hands a `createTracer` tracer for a call it records directly. A tracer with no
 * sink keeps it until the trace is read (every young GC copies it until then), so it is small:
 * what all calls of the guard share sits in one {@link RecordInfo}, and the guard record of a
 * fast-path call (one successful attempt, the budget's `reserved` and `settled` decisions) is
 * kept as numbers and built when read, the same objects the general path builds at once. A
 * number equal to what can be derived (the attempt's duration, the remaining budget) is not
 * stored. Read `guard` once.
 */
export class DirectRecord implements GuardedCallRecord {
  parentBlockId = '';
  callBlockId = '';
  resultBlockId = '';
  /** Which fast-path facts the record holds: the budget's decisions, the one attempt. */
  private readonly reserved: boolean = false;
  private readonly settled: boolean = false;
  private readonly attempted: boolean = false;
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
      this.reserved = facts.reservedFact;
      this.settled = facts.settledFact;
      this.attempted = facts.attemptFact;
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
    const sessionId = this.factSessionId;
    const reserved = this.reserved
      ? reservedDecision(sessionId, this.reservedMicroUsd, this.spentAtReserve)
      : undefined;
    const remaining =
      this.remainingMicroUsd === undefined ? this.derivedRemaining() : this.remainingMicroUsd;
    const settled = this.settled
      ? settledDecision(sessionId, this.chargedMicroUsd, this.spentMicroUsd, remaining)
      : undefined;
    const duration = this.durationMs === undefined ? this.executionTimeMs : this.durationMs;
    const guard: Record<string, unknown> = {
      attempts: this.attempted ? [firstAttemptSucceeded(duration)] : [],
      decisions:
        reserved === undefined ? [] : settled === undefined ? [reserved] : [reserved, settled],
    };
    const sideEffect = this.info.sideEffect;
    if (sideEffect !== undefined) guard.side_effect = sideEffect;
    return guard;
  }
}
