import { describeValue, validateOptions } from '../errors/validate-options.js';
import type { GuardAction } from '../model/tool-records.js';
import {
  type CostRecord,
  type ModelPrice,
  type PriceUsageInput,
  priceUsage,
  type UnknownModelPolicy,
} from '../pricing/price-usage.js';
import {
  type CostLedger,
  createMemoryCostLedger,
  type LedgerReservation,
  type LedgerReserveResult,
  type LedgerSnapshot,
  MemoryCostLedger,
} from './cost-ledger.js';
import { budgetOptionsSchema } from './guard-options-schema.js';
import { InvalidCostError } from './invalid-cost-error.js';
import type { MaybePromise } from './types.js';

/** Session key of calls made without a `sessionId`: they all share it. */
export const defaultBudgetSession = 'default';

/** A budget alert: spend (or calls) crossed `alertThreshold` of the session limit. Fired once per session. */
export interface BudgetAlert {
  session_id: string;
  /** `cost` when spend crossed the threshold of `maxCostPerSession`, `calls` for `maxCallsPerSession`. */
  kind: 'cost' | 'calls';
  threshold: number;
  spent_micro_usd: number;
  limit_micro_usd: number | null;
  calls: number;
  limit_calls: number | null;
}

/**
 * Budget options: the seed's `BudgetConfig` in camelCase. Money is given in **USD** (floats) and
 * counted in integer micro-USD.
 * @typeParam Result - the guarded tool's resolved result, seen by `cost` and `llmUsage`
 */
export interface BudgetOptions<Result = unknown> {
  /** Most one call may cost, USD. Checked against the estimate before and the actual cost after. */
  maxCostPerCall?: number | undefined;
  /** Most a session may spend, USD: a call is allowed while spent + reserved + its cost ≤ this. */
  maxCostPerSession?: number | undefined;
  /** Most calls per session. */
  maxCallsPerSession?: number | undefined;
  /** Fraction of a session limit at which `onAlert` fires, once per session. @default 0.8 */
  alertThreshold?: number | undefined;
  /** Action when a limit would be exceeded. @default 'block' */
  onExceed?: GuardAction | undefined;
  /**
   * Cost of each call, USD: a fixed amount (also charged for failed calls), or a function of a
   * successful call's result (the same as `cost`).
   */
  costPerCall?: number | ((result: Result) => number | undefined) | undefined;
  /** Cost of a successful call from its result, USD; wins over `llmUsage` and `costPerCall`. */
  cost?: ((result: Result) => number | undefined) | undefined;
  /**
   * Amount reserved before a call whose cost is known only afterwards, USD. Concurrent calls
   * are admitted against spent + reserved, so with a cost function an estimate at least each
   * call's real cost keeps any number of concurrent calls within `maxCostPerSession`.
   * @default costPerCall, else maxCostPerCall, else 0
   */
  estimateCost?: number | undefined;
  /**
   * How calls are admitted when their cost is known only afterwards (`cost` or `llmUsage`) and
   * the estimate is 0 (no `estimateCost`, `costPerCall` or `maxCostPerCall`):
   * - `'concurrent'`: every call is admitted against what is already spent; nothing is reserved,
   *   so calls in flight at once can overspend (1,000 concurrent $0.01 calls against $1 all run);
   * - `'one-at-a-time'`: a session's calls run one after another, each admitted only once the
   *   previous one's cost is in the ledger and while something is left, so spend passes
   *   `maxCostPerSession` by at most one call's cost. Calls wait (unbounded) for their turn.
   * Setting `estimateCost` is the other way to stay within budget, without serialising.
   * With `'one-at-a-time'`, `reserve()` returns a promise while the session's turn is taken.
   * @default 'concurrent'
   */
  unestimatedCalls?: 'concurrent' | 'one-at-a-time' | undefined;
  /** Token usage of a model call from its result, priced with {@link priceUsage}. */
  llmUsage?: ((result: Result) => PriceUsageInput | undefined) | undefined;
  /** Price `llmUsage` dynamically (the seed's `use_dynamic_llm_costs`). @default true */
  useDynamicLlmCosts?: boolean | undefined;
  /** Prices that win over the bundled table: model → `[input, output]` in USD per 1M tokens. */
  modelPricingOverrides?: Readonly<Record<string, ModelPrice>> | undefined;
  /** Policy for models without a price. @default 'refuse' */
  unknownModel?: UnknownModelPolicy | undefined;
  /** Where spend is kept. @default a new in-memory ledger */
  costLedger?: CostLedger | undefined;
  /**
   * Write each priced LLM call's spend record (`pricing_source`, `priced_model`,
   * `pricing_as_of`, ...) into the trace (the seed's `record_llm_spend`). The spend itself is
   * always counted. @default true
   */
  recordLlmSpend?: boolean | undefined;
  /** Called once per session when spend or calls cross `alertThreshold` of a limit. */
  onAlert?: ((alert: BudgetAlert) => void) | undefined;
}

/** Result of {@link Budget.reserve}: a hold to settle or release, or a refusal. */
export type BudgetReservation =
  | {
      ok: true;
      sessionId: string;
      estimateMicroUsd: number;
      /** Set when a limit was exceeded but the reservation was forced (`warn`, `log`). */
      exceeded: 'per_call' | 'session_cost' | 'session_calls' | undefined;
      /** @internal */
      ledger: LedgerReservation;
      snapshot: LedgerSnapshot;
    }
  | {
      ok: false;
      sessionId: string;
      estimateMicroUsd: number;
      exceeded: 'per_call' | 'session_cost' | 'session_calls';
      /** What was exceeded and what to do about it. */
      message: string;
      snapshot: LedgerSnapshot;
    };

/** Result of {@link Budget.settle}. */
export interface BudgetSettlement {
  sessionId: string;
  chargedMicroUsd: number;
  spentMicroUsd: number;
  /** `maxCostPerSession` − spent, or null without a session limit. */
  remainingMicroUsd: number | null;
  /** The actual cost was more than `maxCostPerCall`. */
  exceededPerCall: boolean;
  /** Set when this settlement crossed the alert threshold (the alert has been fired). */
  alert: BudgetAlert | undefined;
}

/** A call's cost as the budget computes it from its result. */
export interface BudgetCost {
  microUsd: number;
  /** The pricing record when the cost came from token usage. */
  record?: CostRecord | undefined;
}

/**
 * A budget shared by guards and usable on its own (the model adapters reserve and settle LLM
 * spend with it). Every amount is integer micro-USD.
 * @typeParam Result - the result type seen by `costOf`
 */
export interface Budget<Result = unknown> {
  /** The limits in micro-USD. */
  readonly limits: {
    readonly maxCostPerCallMicroUsd: number | undefined;
    readonly maxCostPerSessionMicroUsd: number | undefined;
    readonly maxCallsPerSession: number | undefined;
    readonly alertThreshold: number;
    readonly onExceed: GuardAction;
    readonly costPerCallMicroUsd: number | undefined;
    readonly estimateMicroUsd: number;
  };
  /**
   * Holds `estimateMicroUsd` for a call, or refuses when a limit would be exceeded.
   * @param estimateMicroUsd - amount to hold @default limits.estimateMicroUsd
   * @param options.sessionId - the session @default {@link defaultBudgetSession}
   * @param options.force - hold even past a limit (the result's `exceeded` says which)
   */
  reserve(
    estimateMicroUsd?: number,
    options?: { sessionId?: string | undefined; force?: boolean | undefined },
  ): MaybePromise<BudgetReservation>;
  /**
   * Charges the actual cost of a reserved call and fires the alert when crossing the threshold.
   * @throws {InvalidCostError} for an amount that is not finite and >= 0 (nothing is charged)
   */
  settle(reservation: BudgetReservation, actualMicroUsd: number): MaybePromise<BudgetSettlement>;
  /** Drops a reservation of a call that did not run. */
  release(reservation: BudgetReservation): MaybePromise<void>;
  /** Settled spend of a session, micro-USD. */
  spent(sessionId?: string): MaybePromise<number>;
  /** `maxCostPerSession` − spent − reserved, or null without a session limit. */
  remaining(sessionId?: string): MaybePromise<number | null>;
  /**
   * Cost of a successful call: `cost(result)`, else priced `llmUsage(result)`, else `costPerCall`, else 0.
   * @throws {UnknownModelPriceError} for an unpriced model under the `refuse` policy
   * @throws {InvalidCostError} when the cost function returns anything but a finite amount >= 0
   */
  costOf(result: Result): BudgetCost;
  /** Forgets spend and alerts (one session, or all). */
  reset(sessionId?: string): MaybePromise<void>;
}

/**
 * Converts USD to integer micro-USD (rounded to nearest).
 * @param usd - an amount in USD
 * @returns micro-USD
 * @example
 * ```ts
 * usdToMicro(0.1 + 0.2); // 300000
 * ```
 */
export function usdToMicro(usd: number): number {
  return Math.round(Number((usd * 1e6).toFixed(3)));
}

function invalidCost(cost: unknown, unit: string, source: string): InvalidCostError {
  return new InvalidCostError({
    cost,
    message: `A call's cost from ${source} was ${describeValue(cost)}; a cost must be a finite amount >= 0 (${unit}). It was not charged: fix the cost function (return undefined to fall back to costPerCall).`,
  });
}

function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/**
 * Creates a {@link Budget}: integer micro-USD accounting, reserve-then-settle so concurrent calls
 * never overspend, and a once-per-session alert.
 * @param options - limits, costs and ledger (USD)
 * @returns the budget, to pass as `guard(fn, { budget })` (shared by every guard given it) or use directly
 * @example
 * ```ts
 * const budget = createBudget({ maxCostPerSession: 5, costPerCall: 0.01 });
 * const r = await budget.reserve();
 * if (r.ok) await budget.settle(r, 10_000);
 * ```
 */
export function createBudget<Result = unknown>(
  options: BudgetOptions<Result> = {},
): Budget<Result> {
  validateOptions(budgetOptionsSchema, options, { entryPoint: 'createBudget' });
  return new MemoryBudget(options);
}

type Exceeded = 'per_call' | 'session_cost' | 'session_calls';

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
    if (alert !== undefined) this.options.onAlert?.(alert);
    return {
      sessionId,
      chargedMicroUsd: actual,
      spentMicroUsd: s.spentMicroUsd,
      remainingMicroUsd: maxPerSession === undefined ? null : maxPerSession - s.spentMicroUsd,
      exceededPerCall: this.maxPerCall !== undefined && actual > this.maxPerCall,
      alert,
    };
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
