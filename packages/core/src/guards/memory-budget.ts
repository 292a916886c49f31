import { describeValue } from '../errors/validate-options.js';
import { priceUsage } from '../pricing/price-usage.js';
import type {
  Budget,
  BudgetAlert,
  BudgetCost,
  BudgetOptions,
  BudgetReservation,
  BudgetSettlement,
} from './budget.js';
import { defaultBudgetSession } from './budget.js';
import { consoleGuardLogger } from './console-guard-logger.js';
import {
  type CostLedger,
  createMemoryCostLedger,
  type LedgerReserveResult,
  type LedgerSnapshot,
  MemoryCostLedger,
} from './cost-ledger.js';
import { errorMessage } from './error-message.js';
import { InvalidCostError } from './invalid-cost-error.js';
import type { MaybePromise } from './types.js';
import { usdToMicro } from './usd-to-micro.js';

function invalidCost(cost: unknown, unit: string, source: string): InvalidCostError {
  return new InvalidCostError({
    cost,
    message: `A call's cost from ${source} was ${describeValue(cost)}; a cost must be a finite amount >= 0 (${unit}). It was not charged: fix the cost function (return undefined to fall back to costPerCall).`,
  });
}

function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}

type Exceeded = 'per_call' | 'session_cost' | 'session_calls';

/**
 * A budget's terms for the guard's quiet plan (see `MemoryBudget.plainTerms`), in micro-USD.
 * @internal
 */
export interface PlainBudgetTerms {
  readonly ledger: MemoryCostLedger;
  /** Held per call. */
  readonly estimate: number;
  /** Charged per call. */
  readonly cost: number;
  readonly maxSpend: number;
  readonly maxCalls: number;
  /** Spend and calls from which a settlement may alert: the general code settles those. */
  readonly alertSpend: number;
  readonly alertCalls: number;
}

/**
 * The budget as a class: every budget shares one set of methods, so a guard's call sites stay
 * monomorphic across budgets (closures made per budget would make them polymorphic).
 * @internal
 */
export class MemoryBudget<Result> implements Budget<Result> {
  readonly limits: Budget['limits'];
  private readonly options: BudgetOptions<Result>;
  private readonly ledger: CostLedger;
  /** The ledger when it is the in-memory one: reserve skips its request and result objects. */
  private readonly memoryLedger: MemoryCostLedger | undefined;
  private readonly maxPerCall: number | undefined;
  private readonly maxPerSession: number | undefined;
  private readonly maxCalls: number | undefined;
  private readonly alertThreshold: number;
  private readonly costFunction: ((result: Result) => number | undefined) | undefined;
  private readonly costPerCall: number | undefined;
  private readonly recordSpend: boolean;
  private readonly estimate: number;
  private readonly alerted = new Set<string>();
  /** `unestimatedCalls: 'one-at-a-time'` applies: a result-priced cost with no estimate. */
  private readonly oneAtATime: boolean;
  /** Per session: whether an unestimated call holds its turn, and the calls waiting for one. */
  private readonly turns = new Map<string, { busy: boolean; waiting: (() => void)[] }>();
  /** Reservations holding a session's turn (released by settle or release). */
  private readonly turnHolders = new WeakSet<BudgetReservation>();
  private readonly dynamic: boolean;
  /** The cost of a call priced at the fixed `costPerCall`: one shared, frozen object. */
  private readonly fixedCost: BudgetCost;

  constructor(options: BudgetOptions<Result>) {
    this.options = options;
    this.ledger = options.costLedger ?? createMemoryCostLedger();
    this.memoryLedger = this.ledger instanceof MemoryCostLedger ? this.ledger : undefined;
    this.maxPerCall =
      options.maxCostPerCall === undefined ? undefined : usdToMicro(options.maxCostPerCall);
    this.maxPerSession =
      options.maxCostPerSession === undefined ? undefined : usdToMicro(options.maxCostPerSession);
    this.maxCalls = options.maxCallsPerSession;
    this.alertThreshold = options.alertThreshold ?? 0.8;
    this.costFunction =
      options.cost ?? (typeof options.costPerCall === 'function' ? options.costPerCall : undefined);
    this.costPerCall =
      typeof options.costPerCall === 'number' ? usdToMicro(options.costPerCall) : undefined;
    this.recordSpend = options.recordLlmSpend !== false;
    this.estimate =
      options.estimateCost !== undefined
        ? usdToMicro(options.estimateCost)
        : (this.costPerCall ?? this.maxPerCall ?? 0);
    this.dynamic = options.useDynamicLlmCosts !== false;
    this.fixedCost = Object.freeze({ microUsd: this.costPerCall ?? 0 });
    this.oneAtATime =
      options.unestimatedCalls === 'one-at-a-time' &&
      this.estimate === 0 &&
      (this.costFunction !== undefined || options.llmUsage !== undefined);
    this.limits = Object.freeze({
      maxCostPerCallMicroUsd: this.maxPerCall,
      maxCostPerSessionMicroUsd: this.maxPerSession,
      maxCallsPerSession: this.maxCalls,
      alertThreshold: this.alertThreshold,
      onExceed: options.onExceed ?? 'block',
      costPerCallMicroUsd: this.costPerCall,
      estimateMicroUsd: this.estimate,
    });
  }

  private settled(
    reservation: BudgetReservation & { ok: true },
    actual: number,
    s: LedgerSnapshot,
  ): BudgetSettlement {
    let alert: BudgetAlert | undefined;
    const sessionId = reservation.sessionId;
    const { maxPerSession, maxCalls, alertThreshold, alerted } = this;
    if (
      maxPerSession !== undefined &&
      s.spentMicroUsd >= alertThreshold * maxPerSession &&
      !alerted.has(`cost:${sessionId}`)
    ) {
      alerted.add(`cost:${sessionId}`);
      alert = this.alertOf('cost', sessionId, s);
    } else if (
      maxCalls !== undefined &&
      s.calls >= alertThreshold * maxCalls &&
      !alerted.has(`calls:${sessionId}`)
    ) {
      alerted.add(`calls:${sessionId}`);
      alert = this.alertOf('calls', sessionId, s);
    }
    if (alert !== undefined) this.tellAlert(alert);
    return {
      sessionId,
      chargedMicroUsd: actual,
      spentMicroUsd: s.spentMicroUsd,
      remainingMicroUsd: maxPerSession === undefined ? null : maxPerSession - s.spentMicroUsd,
      exceededPerCall: this.maxPerCall !== undefined && actual > this.maxPerCall,
      alert,
    };
  }

  /** Whether `onAlert` threw once already (said once per budget). */
  private alertFailed = false;

  /**
   * Calls `onAlert`. A callback that throws never fails the call being settled (its bookkeeping,
   * the breaker's probe, the session's turn must still end): the alert stays in the call's
   * decisions, and the throw is said once per budget.
   */
  private tellAlert(alert: BudgetAlert): void {
    const onAlert = this.options.onAlert;
    if (onAlert === undefined) return;
    try {
      onAlert(alert);
    } catch (error) {
      if (this.alertFailed) return;
      this.alertFailed = true;
      consoleGuardLogger.warn(
        `the budget's onAlert threw (${errorMessage(error)}); the alert is still recorded in the call's decisions (budget.alert). Fix onAlert; later throws are not reported`,
        { session_id: alert.session_id, kind: alert.kind },
      );
    }
  }

  private alertOf(kind: 'cost' | 'calls', sessionId: string, s: LedgerSnapshot): BudgetAlert {
    return {
      session_id: sessionId,
      kind,
      threshold: this.alertThreshold,
      spent_micro_usd: s.spentMicroUsd,
      limit_micro_usd: this.maxPerSession ?? null,
      calls: s.calls,
      limit_calls: this.maxCalls ?? null,
    };
  }

  private refusal(
    sessionId: string,
    amount: number,
    exceeded: Exceeded,
    snapshot: LedgerSnapshot,
  ): BudgetReservation {
    return {
      ok: false,
      sessionId,
      estimateMicroUsd: amount,
      exceeded,
      snapshot,
      message:
        exceeded === 'per_call'
          ? `The call's estimated cost (${amount} micro-USD) is over maxCostPerCall (${this.maxPerCall} micro-USD). Raise maxCostPerCall or lower the estimate.`
          : exceeded === 'session_cost'
            ? `Session "${sessionId}" budget exhausted: ${snapshot.spentMicroUsd} micro-USD spent and ${snapshot.reservedMicroUsd} reserved, plus ${amount} would exceed maxCostPerSession (${this.maxPerSession} micro-USD). Start a new session or raise maxCostPerSession.`
            : `Session "${sessionId}" reached maxCallsPerSession (${this.maxCalls}). Start a new session or raise maxCallsPerSession.`,
    };
  }

  private reserved(
    sessionId: string,
    amount: number,
    perCall: boolean,
    r: LedgerReserveResult,
  ): BudgetReservation {
    if (!r.ok) return this.refusal(sessionId, amount, r.exceeded, r.snapshot);
    return {
      ok: true,
      sessionId,
      estimateMicroUsd: amount,
      exceeded: perCall ? 'per_call' : r.exceeded,
      ledger: r.reservation,
      snapshot: r.snapshot,
    };
  }

  reserve(
    amount: number = this.estimate,
    reserveOptions?: { sessionId?: string | undefined; force?: boolean | undefined },
  ): MaybePromise<BudgetReservation> {
    if (!(amount >= 0) || amount === Number.POSITIVE_INFINITY)
      throw invalidCost(amount, 'micro-USD', 'budget.reserve()');
    if (amount === 0 && this.oneAtATime) return this.reserveInTurn(reserveOptions);
    return this.reserveNow(amount, reserveOptions);
  }

  /**
   * `unestimatedCalls: 'one-at-a-time'`: a call whose cost is known only afterwards waits until
   * the session's previous such call has settled, then holds 1 micro-USD ("some cost is coming"),
   * so it is refused once nothing is left. Spend passes the limit by at most one call's cost.
   */
  private reserveInTurn(reserveOptions?: {
    sessionId?: string | undefined;
    force?: boolean | undefined;
  }): MaybePromise<BudgetReservation> {
    const sessionId = reserveOptions?.sessionId ?? defaultBudgetSession;
    let turn = this.turns.get(sessionId);
    if (turn === undefined) {
      turn = { busy: false, waiting: [] };
      this.turns.set(sessionId, turn);
    }
    if (turn.busy) {
      const waiting = turn.waiting;
      return new Promise<BudgetReservation>((resolve, reject) => {
        waiting.push(() => {
          try {
            resolve(this.reserveInTurn(reserveOptions));
          } catch (error) {
            reject(error);
          }
        });
      });
    }
    turn.busy = true;
    const held = (reservation: BudgetReservation): BudgetReservation => {
      if (reservation.ok) this.turnHolders.add(reservation);
      else this.endTurn(sessionId);
      return reservation;
    };
    let result: MaybePromise<BudgetReservation>;
    try {
      result = this.reserveNow(1, reserveOptions);
    } catch (error) {
      this.endTurn(sessionId);
      throw error;
    }
    return isPromise(result)
      ? result.then(held, (error: unknown) => {
          this.endTurn(sessionId);
          throw error;
        })
      : held(result);
  }

  /** Lets the next waiting call of the session reserve (see {@link reserveInTurn}). */
  private endTurn(sessionId: string): void {
    const turn = this.turns.get(sessionId);
    if (turn === undefined) return;
    turn.busy = false;
    const next = turn.waiting.shift();
    if (next !== undefined) next();
    else this.turns.delete(sessionId);
  }

  private reserveNow(
    amount: number,
    reserveOptions?: { sessionId?: string | undefined; force?: boolean | undefined },
  ): MaybePromise<BudgetReservation> {
    const sessionId = reserveOptions?.sessionId ?? defaultBudgetSession;
    const force = reserveOptions?.force === true;
    const perCall = this.maxPerCall !== undefined && amount > this.maxPerCall;
    if (perCall && !force)
      return this.refusal(sessionId, amount, 'per_call', {
        spentMicroUsd: 0,
        reservedMicroUsd: 0,
        calls: 0,
      });
    const memoryLedger = this.memoryLedger;
    if (memoryLedger !== undefined) {
      // the common case, within every limit: one reservation object instead of four
      const held = memoryLedger.hold(sessionId, amount, this.maxPerSession, this.maxCalls);
      if (held !== undefined) {
        return {
          ok: true,
          sessionId,
          estimateMicroUsd: amount,
          exceeded: perCall ? 'per_call' : undefined,
          ledger: held,
          snapshot: memoryLedger.held(),
        };
      }
    }
    const result = this.ledger.reserve({
      sessionId,
      amountMicroUsd: amount,
      maxMicroUsd: this.maxPerSession,
      maxCalls: this.maxCalls,
      force,
    });
    return isPromise(result)
      ? result.then((r) => this.reserved(sessionId, amount, perCall, r))
      : this.reserved(sessionId, amount, perCall, result);
  }

  settle(reservation: BudgetReservation, actual: number): MaybePromise<BudgetSettlement> {
    // NaN would make every later comparison false (no limit), a negative amount a credit
    if (!(actual >= 0) || actual === Number.POSITIVE_INFINITY)
      throw invalidCost(actual, 'micro-USD', 'budget.settle()');
    if (!reservation.ok) {
      return {
        sessionId: reservation.sessionId,
        chargedMicroUsd: 0,
        spentMicroUsd: reservation.snapshot.spentMicroUsd,
        remainingMicroUsd: null,
        exceededPerCall: false,
        alert: undefined,
      };
    }
    if (this.turnHolders.delete(reservation)) {
      const settling = this.ledger.settle(reservation.ledger, actual);
      // the next call's turn starts once this spend is in the ledger
      if (isPromise(settling))
        return settling.then(
          (s) => {
            this.endTurn(reservation.sessionId);
            return this.settled(reservation, actual, s);
          },
          (error: unknown) => {
            this.endTurn(reservation.sessionId);
            throw error;
          },
        );
      const settlement = this.settled(reservation, actual, settling);
      this.endTurn(reservation.sessionId);
      return settlement;
    }
    const result = this.ledger.settle(reservation.ledger, actual);
    return isPromise(result)
      ? result.then((s) => this.settled(reservation, actual, s))
      : this.settled(reservation, actual, result);
  }

  release(reservation: BudgetReservation): MaybePromise<void> {
    if (!reservation.ok) return;
    const released = this.ledger.release(reservation.ledger);
    if (!this.turnHolders.delete(reservation)) return released;
    if (isPromise(released)) return released.finally(() => this.endTurn(reservation.sessionId));
    this.endTurn(reservation.sessionId);
  }

  spent(sessionId: string = defaultBudgetSession): MaybePromise<number> {
    const result = this.ledger.spent(sessionId);
    return isPromise(result) ? result.then((s) => s.spentMicroUsd) : result.spentMicroUsd;
  }

  remaining(sessionId: string = defaultBudgetSession): MaybePromise<number | null> {
    const maxPerSession = this.maxPerSession;
    if (maxPerSession === undefined) return null;
    const result = this.ledger.spent(sessionId);
    const left = (s: LedgerSnapshot) => maxPerSession - s.spentMicroUsd - s.reservedMicroUsd;
    return isPromise(result) ? result.then(left) : left(result);
  }

  /**
   * The cost of every call when it never depends on the result (no cost function, no LLM usage
   * pricing) and the ledger is the in-memory one, else undefined: the guard's quiet path.
   * @internal
   */
  plainCallCost(): number | undefined {
    if (this.memoryLedger === undefined || this.costFunction !== undefined) return undefined;
    if (this.dynamic && this.options.llmUsage !== undefined) return undefined;
    return this.costPerCall ?? 0;
  }

  /**
   * The guard's quiet path: holds the estimate for a call of `sessionId` in the in-memory ledger,
   * without the reservation objects, when within every limit. Returns false, having held
   * nothing, otherwise (the caller then takes {@link reserve}). Settle with
   * {@link settlePlainly}, or make the reservation `reserve` would have returned with
   * {@link reservationOfHeld}.
   * @internal
   */
  holdPlainly(sessionId: string): boolean {
    const estimate = this.estimate;
    if (this.maxPerCall !== undefined && estimate > this.maxPerCall) return false;
    return this.memoryLedger!.holdBare(sessionId, estimate, this.maxPerSession, this.maxCalls);
  }

  /**
   * What the guard's quiet plan needs to hold and settle a call of this budget itself: the
   * in-memory ledger and the limits `holdPlainly` and `settlePlainly` compare with, an absent
   * limit as Infinity. Undefined unless every call is priced at a fixed cost within
   * `maxCostPerCall` (see {@link plainCallCost}).
   * @internal
   */
  plainTerms(): PlainBudgetTerms | undefined {
    const cost = this.plainCallCost();
    const maxPerCall = this.maxPerCall ?? Number.POSITIVE_INFINITY;
    if (cost === undefined || this.estimate > maxPerCall || cost > maxPerCall) return undefined;
    const { maxPerSession, maxCalls, alertThreshold } = this;
    return Object.freeze({
      ledger: this.memoryLedger!,
      estimate: this.estimate,
      cost,
      maxSpend: maxPerSession ?? Number.POSITIVE_INFINITY,
      maxCalls: maxCalls ?? Number.POSITIVE_INFINITY,
      // the same products settlePlainly computes, so both compare alike
      alertSpend:
        maxPerSession === undefined ? Number.POSITIVE_INFINITY : alertThreshold * maxPerSession,
      alertCalls: maxCalls === undefined ? Number.POSITIVE_INFINITY : alertThreshold * maxCalls,
    });
  }

  /** What a session has spent, now (in-memory ledger). @internal */
  spentNow(sessionId: string): number {
    return this.memoryLedger!.session(sessionId).spentMicroUsd;
  }

  /** The reservation `reserve` would have made, for the estimate held by {@link holdPlainly}. @internal */
  reservationOfHeld(sessionId: string): BudgetReservation {
    const ledger = this.memoryLedger!;
    return {
      ok: true,
      sessionId,
      estimateMicroUsd: this.estimate,
      exceeded: undefined,
      ledger: ledger.adoptBare(sessionId, this.estimate),
      snapshot: ledger.session(sessionId),
    };
  }

  /**
   * Settles the estimate held by {@link holdPlainly} at `actual` when the settlement is plain:
   * not over `maxCostPerCall`, and no alert threshold within reach (checked conservatively,
   * before any change). Otherwise does nothing and returns false: the caller takes
   * {@link reservationOfHeld} and {@link settle}.
   * @internal
   */
  settlePlainly(sessionId: string, actual: number): boolean {
    const ledger = this.memoryLedger!;
    if (this.maxPerCall !== undefined && actual > this.maxPerCall) return false;
    const { maxPerSession, maxCalls, alertThreshold } = this;
    const s = ledger.session(sessionId);
    // spent after settling is spent + actual: below the threshold, no alert can fire
    if (maxPerSession !== undefined && s.spentMicroUsd + actual >= alertThreshold * maxPerSession)
      return false;
    if (maxCalls !== undefined && s.calls >= alertThreshold * maxCalls) return false;
    ledger.settleBare(sessionId, this.estimate, actual);
    return true;
  }

  costOf(result: Result): BudgetCost {
    const fromFunction = this.costFunction?.(result);
    if (fromFunction !== undefined) {
      if (typeof fromFunction !== 'number' || !Number.isFinite(fromFunction) || fromFunction < 0)
        throw invalidCost(fromFunction, 'USD', "the budget's cost function (cost or costPerCall)");
      return { microUsd: usdToMicro(fromFunction) };
    }
    const options = this.options;
    if (this.dynamic && options.llmUsage !== undefined) {
      const usage = options.llmUsage(result);
      if (usage !== undefined) {
        const record = priceUsage(usage, {
          overrides: options.modelPricingOverrides,
          unknownModel: options.unknownModel,
        });
        const microUsd = record.cost_micro_usd;
        if (!Number.isFinite(microUsd) || microUsd < 0)
          throw invalidCost(microUsd, 'micro-USD', 'pricing of the llmUsage token counts');
        return this.recordSpend
          ? { microUsd: record.cost_micro_usd, record }
          : { microUsd: record.cost_micro_usd };
      }
    }
    return this.fixedCost;
  }

  reset(sessionId?: string): MaybePromise<void> {
    if (sessionId === undefined) this.alerted.clear();
    else {
      this.alerted.delete(`cost:${sessionId}`);
      this.alerted.delete(`calls:${sessionId}`);
    }
    return this.ledger.reset(sessionId);
  }
}
