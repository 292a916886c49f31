import type { GuardAction } from '../model/tool-records.js';
import type {
  CostRecord,
  ModelPrice,
  PriceUsageInput,
  UnknownModelPolicy,
} from '../pricing/price-usage.js';
import type { CostLedger, LedgerReservation, LedgerSnapshot } from './cost-ledger.js';
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
