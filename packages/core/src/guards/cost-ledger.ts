import type { MaybePromise } from './types.js';

/** What a ledger is asked to reserve. Amounts are integer micro-USD. */
export interface LedgerReserveRequest {
  /** Session the spend belongs to. */
  sessionId: string;
  /** Amount to hold until settlement. */
  amountMicroUsd: number;
  /** Session cost limit: refuse when spent + reserved + amount would exceed it. */
  maxMicroUsd?: number | undefined;
  /** Session call limit: refuse when calls + 1 would exceed it. */
  maxCalls?: number | undefined;
  /** Reserve even when a limit would be exceeded (actions `warn` and `log`); the result still says which. */
  force?: boolean | undefined;
}

/** A session's figures in a ledger. */
export interface LedgerSnapshot {
  /** Settled spend. */
  spentMicroUsd: number;
  /** Held by calls still running. */
  reservedMicroUsd: number;
  /** Calls counted (reserved or settled; released ones are not). */
  calls: number;
}

/** A held amount, to be settled or released exactly once. */
export interface LedgerReservation {
  readonly id: number;
  readonly sessionId: string;
  readonly amountMicroUsd: number;
}

/** Result of {@link CostLedger.reserve}. */
export type LedgerReserveResult =
  | { ok: true; reservation: LedgerReservation; exceeded?: undefined; snapshot: LedgerSnapshot }
  | {
      ok: false;
      reservation?: undefined;
      exceeded: 'session_cost' | 'session_calls';
      snapshot: LedgerSnapshot;
    }
  | {
      ok: true;
      reservation: LedgerReservation;
      /** A limit was exceeded but `force` reserved anyway. */
      exceeded: 'session_cost' | 'session_calls';
      snapshot: LedgerSnapshot;
    };

/**
 * Where budgets keep money (the seed's `cost_ledger`). The check and the hold of `reserve` are
 * one atomic step, which is what keeps concurrent calls from overspending; a shared (e.g. Redis)
 * ledger implements it as one script and may return promises.
 */
export interface CostLedger {
  /**
   * Holds an amount for a call, or refuses.
   * @param request - session, amount and limits
   */
  reserve(request: LedgerReserveRequest): MaybePromise<LedgerReserveResult>;
  /**
   * Replaces a reservation with the actual spend (which may be more or less than reserved).
   * Settling twice has no effect.
   * @returns the session's figures after settlement
   */
  settle(reservation: LedgerReservation, actualMicroUsd: number): MaybePromise<LedgerSnapshot>;
  /**
   * Drops a reservation without spending (the call did not run). No effect after settle.
   */
  release(reservation: LedgerReservation): MaybePromise<void>;
  /** The session's figures. */
  spent(sessionId: string): MaybePromise<LedgerSnapshot>;
  /**
   * Forgets spend.
   * @param sessionId - one session; omitted: all
   */
  reset(sessionId?: string): MaybePromise<void>;
}

class MemoryReservation implements LedgerReservation {
  open = true;
  constructor(
    readonly id: number,
    readonly sessionId: string,
    readonly amountMicroUsd: number,
  ) {}
}

/** Marks a reservation settled or released; false when it already was (or is not ours). */
function close(reservation: LedgerReservation): boolean {
  if (!(reservation instanceof MemoryReservation) || !reservation.open) return false;
  reservation.open = false;
  return true;
}

/**
 * Creates an in-memory {@link CostLedger} (synchronous, integer micro-USD).
 * @returns a new, empty ledger
 * @example
 * ```ts
 * const ledger = createMemoryCostLedger();
 * const budget = createBudget({ maxCostPerSession: 5, costLedger: ledger });
 * ```
 */
export function createMemoryCostLedger(): CostLedger {
  return new MemoryCostLedger();
}

const copy = (s: LedgerSnapshot): LedgerSnapshot => ({
  spentMicroUsd: s.spentMicroUsd,
  reservedMicroUsd: s.reservedMicroUsd,
  calls: s.calls,
});

/**
 * The in-memory ledger as a class: every budget's ledger shares one set of methods, so call
 * sites stay monomorphic (closures made per ledger would make them polymorphic).
 */
export class MemoryCostLedger implements CostLedger {
  private readonly sessions = new Map<string, LedgerSnapshot>();
  private ids = 0;
  // one-entry cache: reserve and settle of a call look up the same session (a Map lookup each)
  private lastSessionId: string | undefined = undefined;
  private lastSnapshot: LedgerSnapshot | undefined = undefined;
  /**
   * Bumped by every {@link reset}: a snapshot held across calls (the guard's quiet plan) is the
   * session's own only while this is unchanged.
   * @internal
   */
  resets = 0;

  /**
   * The live figures of a session, made when missing (as every method does).
   * @internal
   */
  snapshotOf(sessionId: string): LedgerSnapshot {
    return this.get(sessionId);
  }

  private get(sessionId: string): LedgerSnapshot {
    if (sessionId === this.lastSessionId) return this.lastSnapshot!;
    let snapshot = this.sessions.get(sessionId);
    if (snapshot === undefined) {
      snapshot = { spentMicroUsd: 0, reservedMicroUsd: 0, calls: 0 };
      this.sessions.set(sessionId, snapshot);
    }
    this.lastSessionId = sessionId;
    this.lastSnapshot = snapshot;
    return snapshot;
  }

  reserve(request: LedgerReserveRequest): LedgerReserveResult {
    const s = this.get(request.sessionId);
    let exceeded: 'session_cost' | 'session_calls' | undefined;
    if (request.maxCalls !== undefined && s.calls + 1 > request.maxCalls)
      exceeded = 'session_calls';
    else if (
      request.maxMicroUsd !== undefined &&
      s.spentMicroUsd + s.reservedMicroUsd + request.amountMicroUsd > request.maxMicroUsd
    ) {
      exceeded = 'session_cost';
    }
    if (exceeded !== undefined && request.force !== true)
      return { ok: false, exceeded, snapshot: copy(s) };
    s.reservedMicroUsd += request.amountMicroUsd;
    s.calls++;
    const reservation = new MemoryReservation(
      ++this.ids,
      request.sessionId,
      request.amountMicroUsd,
    );
    return exceeded === undefined
      ? { ok: true, reservation, snapshot: s }
      : { ok: true, reservation, exceeded, snapshot: copy(s) };
  }

  /**
   * The common case of {@link reserve} without its request and result objects: holds `amount`
   * when no limit would be exceeded, else returns undefined and changes nothing (the caller then
   * asks {@link reserve}, which says which limit). The session's live figures are in {@link lastSnapshot}.
   * @internal
   */
  hold(
    sessionId: string,
    amount: number,
    maxMicroUsd: number | undefined,
    maxCalls: number | undefined,
  ): LedgerReservation | undefined {
    return this.holdBare(sessionId, amount, maxMicroUsd, maxCalls)
      ? new MemoryReservation(++this.ids, sessionId, amount)
      : undefined;
  }

  /**
   * The live figures of the session of the last {@link hold}.
   * @internal
   */
  held(): LedgerSnapshot {
    return this.lastSnapshot!;
  }

  /** The live figures of a session (not a copy). @internal */
  session(sessionId: string): LedgerSnapshot {
    return this.get(sessionId);
  }

  /**
   * {@link hold} without the reservation object, for a caller that settles exactly once itself
   * ({@link settleBare}) or makes the object later ({@link adoptBare}).
   * @returns whether the amount is now held
   * @internal
   */
  holdBare(
    sessionId: string,
    amount: number,
    maxMicroUsd: number | undefined,
    maxCalls: number | undefined,
  ): boolean {
    const s = this.get(sessionId);
    if (maxCalls !== undefined && s.calls + 1 > maxCalls) return false;
    if (maxMicroUsd !== undefined && s.spentMicroUsd + s.reservedMicroUsd + amount > maxMicroUsd)
      return false;
    s.reservedMicroUsd += amount;
    s.calls++;
    return true;
  }

  /** Settles an amount held by {@link holdBare}. @internal */
  settleBare(sessionId: string, amount: number, actualMicroUsd: number): void {
    const s = this.get(sessionId);
    s.reservedMicroUsd -= amount;
    s.spentMicroUsd += actualMicroUsd;
  }

  /** The reservation object of an amount already held by {@link holdBare}. @internal */
  adoptBare(sessionId: string, amount: number): LedgerReservation {
    return new MemoryReservation(++this.ids, sessionId, amount);
  }

  settle(reservation: LedgerReservation, actualMicroUsd: number): LedgerSnapshot {
    const s = this.get(reservation.sessionId);
    if (close(reservation)) {
      s.reservedMicroUsd -= reservation.amountMicroUsd;
      s.spentMicroUsd += actualMicroUsd;
    }
    return s;
  }

  release(reservation: LedgerReservation): void {
    if (!close(reservation)) return;
    const s = this.get(reservation.sessionId);
    s.reservedMicroUsd -= reservation.amountMicroUsd;
    s.calls--;
  }

  spent(sessionId: string): LedgerSnapshot {
    return copy(this.get(sessionId));
  }

  reset(sessionId?: string): void {
    this.resets++;
    this.lastSessionId = undefined;
    this.lastSnapshot = undefined;
    if (sessionId === undefined) this.sessions.clear();
    else this.sessions.delete(sessionId);
  }
}
