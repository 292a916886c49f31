import { BudgetExceededError } from '../guards/budget-exceeded-error.js';
import type { CircuitAdmission, CircuitTransition } from '../guards/circuit-breaker-store.js';
import { CircuitOpenError } from '../guards/circuit-open-error.js';
import { consoleGuardLogger, safeGuardLogger } from '../guards/console-guard-logger.js';
import {
  type Budget,
  type BudgetOptions,
  type BudgetReservation,
  createBudget,
} from '../guards/create-budget.js';
import { errorMessage } from '../guards/error-message.js';
import type { CircuitBreakerOptions, RateLimitOptions } from '../guards/guard-options.js';
import { RateLimitedError } from '../guards/rate-limited-error.js';
import { resolveCircuitBreaker } from '../guards/resolve-circuit-breaker.js';
import { burstHint, resolveRateLimit } from '../guards/resolve-rate-limit.js';
import type { GuardDecision, GuardLogger, MaybePromise } from '../guards/types.js';
import type { ModelCallGuard, ModelCallGuardContext, ModelCallGuardTicket } from './types.js';

/** Options of {@link createModelCallGuards}: the guard options of `guard()`, applied to model calls. */
export interface ModelCallGuardOptions {
  /**
   * Token buckets over model calls. `sharedKey` as in `guard()`: undefined → one bucket per
   * `provider:model`, `''` → a bucket of its own, any other string → a bucket shared by that key.
   * `maxWaitMs` is not supported (admission never sleeps): a call without a token is refused,
   * and an adapter given one throws a `ConfigurationError`.
   */
  rateLimit?: RateLimitOptions | undefined;
  /**
   * A breaker over model calls (key: `circuitBreaker.key`, else `provider:model`). A call counts
   * once, after the SDK's own retries: status `failure` or `timeout` is a failure; cancelled,
   * refused and cut-off calls do not count.
   */
  circuitBreaker?: CircuitBreakerOptions | undefined;
  /**
   * LLM spend: a {@link Budget} (shared with tool guards if you like) or its options. Each call
   * reserves `estimateCost` and settles its priced usage; while streaming, the stream is cut off
   * as soon as the running estimate plus one more chunk (the largest seen) would pass
   * `maxCostPerCall` or what is left of `maxCostPerSession`, so the charge stays within them.
   */
  budget?: Budget | BudgetOptions | undefined;
  /** Budget session of the calls. @default the budget's default session */
  sessionId?: string | undefined;
  /** Where `warn` actions are reported. @default console */
  logger?: GuardLogger | undefined;
  /** Epoch milliseconds. @default Date.now */
  clock?: (() => number) | undefined;
}

/**
 * Reports a store that failed after the call was admitted (recording its outcome): the call's
 * result stands, the store's count is what is lost, and the logger says so.
 */
function reportLateStoreError(logger: GuardLogger, what: string, key: string) {
  return (error: unknown): void => {
    const message = errorMessage(error);
    logger.warn(
      `${what} failed after a model call ended; its outcome was not counted: ${message}`,
      {
        key,
      },
    );
  };
}

function isBudget(value: Budget | BudgetOptions): value is Budget {
  return typeof (value as Budget).reserve === 'function';
}

function callKey(context: ModelCallGuardContext): string {
  return `${context.provider}:${context.model}`;
}

function rateLimitGuard(
  options: RateLimitOptions,
  logger: GuardLogger,
  clock: () => number,
): ModelCallGuard | undefined {
  // resolved as guard() resolves it: the same burst, buckets and sharedKey buckets
  const resolved = resolveRateLimit(options);
  if (resolved === undefined) return undefined;
  const { limits, store, key: fixedKey, onLimit: action } = resolved;
  return {
    name: 'rate_limit',
    admit(context) {
      const key = fixedKey ?? callKey(context);
      // keeps a sharedKey: '' bucket (forgotten once this guard is collected) alive while in use
      void resolved.ownKeyHolder;
      const wait = store.take(key, limits, clock());
      // no closure on the synchronous (in-memory) path: this runs on every model call
      return wait instanceof Promise
        ? wait.then((resolved) => decide(resolved, key, context.model))
        : decide(wait, key, context.model);
    },
  };

  function decide(wait: number, key: string, model: string): ModelCallGuardTicket | undefined {
    if (wait === 0) return undefined;
    const decision: GuardDecision = {
      guard: 'rate_limit',
      event: 'refused',
      action,
      key,
      retry_in_ms: wait,
    };
    const message = `Rate limit reached for model calls to ${model} (bucket "${key}"); next token in ${wait} ms (${burstHint(limits)}). Slow down or raise the limit.`;
    if (action === 'block') throw new RateLimitedError({ message, toolName: model });
    if (action === 'warn') logger.warn(message, { key, retry_in_ms: wait });
    return { decisions: [decision] };
  }
}

function circuitBreakerGuard(
  options: CircuitBreakerOptions,
  logger: GuardLogger,
  clock: () => number,
): ModelCallGuard {
  // resolved as guard() resolves it: thresholds below 1 count as 1
  const { limits, store, onOpen: action } = resolveCircuitBreaker(options);

  function transitionDecision(transition: CircuitTransition, key: string): GuardDecision {
    const onStateChange = options.onStateChange;
    if (onStateChange !== undefined) {
      // as for tools (settle-call.ts): a listener that throws is reported, never thrown into the
      // call, nor (a shared store's late answer) left as an unhandled rejection
      try {
        onStateChange({ ...transition, toolName: key });
      } catch (error) {
        logger.warn(`onStateChange of model calls to ${key} threw: ${errorMessage(error)}`, {
          key,
        });
      }
    }
    return {
      guard: 'circuit_breaker',
      event: 'transition',
      from: transition.from,
      to: transition.to,
      reason: transition.reason,
    };
  }

  function decide(admission: CircuitAdmission, key: string, model: string): ModelCallGuardTicket {
    const decisions: GuardDecision[] = [];
    if (admission.transition !== undefined)
      decisions.push(transitionDecision(admission.transition, key));
    if (!admission.allowed) {
      const message = `Circuit breaker of model calls to ${model} is ${admission.state === 'open' ? 'open' : 'half-open with every probe slot taken'} after repeated failures; the call was not sent. Retry after the recovery timeout (${limits.recoveryTimeoutMs / 1000} s).`;
      if (action === 'block') throw new CircuitOpenError({ message, toolName: model });
      if (action === 'warn') logger.warn(message, { key, state: admission.state });
      decisions.push({
        guard: 'circuit_breaker',
        event: 'refused',
        action,
        state: admission.state,
      });
      return { decisions };
    }
    return {
      decisions,
      settle({ status }) {
        const outcome =
          status === 'failure' || status === 'timeout'
            ? 'failure'
            : status === 'success'
              ? 'success'
              : 'ignore';
        const isFailure = options.isFailure;
        const counted =
          outcome === 'ignore' || isFailure === undefined
            ? outcome
            : isFailure({ status: status === 'cancelled' ? 'failure' : status, error: undefined })
              ? 'failure'
              : 'success';
        const transition = store.record(key, limits, admission, counted, clock());
        if (transition instanceof Promise) {
          // a shared store answers after the call is recorded: its transition reaches
          // onStateChange, not this call's decisions
          transition.then(
            (moved) => void (moved !== undefined && transitionDecision(moved, key)),
            reportLateStoreError(logger, 'circuitBreaker.store.record()', key),
          );
          return undefined;
        }
        return transition === undefined ? undefined : [transitionDecision(transition, key)];
      },
    };
  }

  return {
    name: 'circuit_breaker',
    admit(context) {
      const key = options.key ?? callKey(context);
      const admission = store.acquire(key, limits, clock());
      return admission instanceof Promise
        ? admission.then((resolved) => decide(resolved, key, context.model))
        : decide(admission, key, context.model);
    },
  };
}

function budgetGuard(
  budget: Budget,
  sessionId: string | undefined,
  logger: GuardLogger,
): ModelCallGuard {
  const action = budget.limits.onExceed;
  const maxPerCall = budget.limits.maxCostPerCallMicroUsd;

  function admitted(
    reservation: BudgetReservation,
    model: string,
    shared: boolean,
  ): MaybePromise<ModelCallGuardTicket> {
    if (!reservation.ok) {
      throw new BudgetExceededError({
        message: `Budget exceeded (${reservation.exceeded}) for model calls to ${model} in session "${reservation.sessionId}": ${reservation.message}`,
        toolName: model,
      });
    }
    if (shared) {
      // a shared ledger's reserve answers with the session's figures after the hold: what is
      // left, without another round trip to it
      const limit = budget.limits.maxCostPerSessionMicroUsd;
      const { spentMicroUsd, reservedMicroUsd } = reservation.snapshot;
      const left = limit === undefined ? null : limit - spentMicroUsd - reservedMicroUsd;
      return ticketOf(reservation, left, model);
    }
    const remaining = budget.remaining(reservation.sessionId);
    return remaining instanceof Promise
      ? remaining.then((resolved) => ticketOf(reservation, resolved, model))
      : ticketOf(reservation, remaining, model);
  }

  function ticketOf(
    reservation: BudgetReservation & { ok: true },
    remaining: number | null,
    model: string,
  ): ModelCallGuardTicket {
    const decisions: GuardDecision[] = [
      {
        guard: 'budget',
        event: 'reserved',
        session_id: reservation.sessionId,
        reserved_micro_usd: reservation.estimateMicroUsd,
        spent_micro_usd: reservation.snapshot.spentMicroUsd,
      },
    ];
    if (reservation.exceeded !== undefined) {
      decisions.push({ guard: 'budget', event: 'exceeded', action, limit: reservation.exceeded });
      if (action === 'warn')
        logger.warn(
          `Budget exceeded (${reservation.exceeded}) for model calls to ${model}; the call runs because onExceed is "${action}".`,
        );
    }
    // What this call may still spend: the session's remainder plus its own reservation.
    const allowance = remaining === null ? undefined : remaining + reservation.estimateMicroUsd;
    let lastEstimate = 0;
    let settled = false;
    const ticket: ModelCallGuardTicket = {
      decisions,
      release() {
        if (settled) return;
        settled = true;
        const released = budget.release(reservation);
        if (released instanceof Promise)
          released.catch(reportLateStoreError(logger, 'budget.release()', reservation.sessionId));
      },
      settle({ costMicroUsd }) {
        if (settled) return undefined;
        settled = true;
        const actual = costMicroUsd ?? lastEstimate;
        const settlement = budget.settle(reservation, actual);
        const result: GuardDecision[] = [];
        if (settlement instanceof Promise) {
          // a shared ledger settles after the call is recorded: the decision says what was
          // charged; the session's figures are the ledger's (budget.spent())
          settlement.catch(reportLateStoreError(logger, 'budget.settle()', reservation.sessionId));
          result.push({
            guard: 'budget',
            event: 'settled',
            session_id: reservation.sessionId,
            charged_micro_usd: actual,
            ...(costMicroUsd === undefined ? { estimated: true } : {}),
          });
        } else {
          result.push({
            guard: 'budget',
            event: 'settled',
            session_id: settlement.sessionId,
            charged_micro_usd: settlement.chargedMicroUsd,
            spent_micro_usd: settlement.spentMicroUsd,
            remaining_micro_usd: settlement.remainingMicroUsd,
            ...(costMicroUsd === undefined ? { estimated: true } : {}),
          });
          if (settlement.alert !== undefined)
            result.push({ guard: 'budget', event: 'alert', ...settlement.alert });
        }
        // The live estimate can be low (reasoning tokens never streamed, scripts the estimate
        // misjudges): a call whose real cost passed its limit says so in the trace.
        if (maxPerCall !== undefined && actual > maxPerCall)
          result.push({
            guard: 'budget',
            event: 'exceeded',
            action,
            limit: 'max_cost_per_call',
            cost_micro_usd: actual,
            limit_micro_usd: maxPerCall,
          });
        else if (allowance !== undefined && actual > allowance)
          result.push({
            guard: 'budget',
            event: 'exceeded',
            action,
            limit: 'max_cost_per_session',
            cost_micro_usd: actual,
            limit_micro_usd: allowance,
          });
        return result;
      },
    };
    if (action === 'block' && (maxPerCall !== undefined || allowance !== undefined)) {
      // Cut off before passing the limit: what was generated so far is charged (`lastEstimate`),
      // and the stream stops when one more chunk of the largest size seen would pass it.
      ticket.allowsRunningCost = (estimate, nextIncrement) => {
        lastEstimate = estimate;
        const projected = estimate + nextIncrement;
        if (maxPerCall !== undefined && projected > maxPerCall) return false;
        return allowance === undefined || projected <= allowance;
      };
    }
    return ticket;
  }

  return {
    name: 'budget',
    admit(context) {
      const reservation = budget.reserve(undefined, { sessionId, force: action !== 'block' });
      return reservation instanceof Promise
        ? reservation.then((resolved) => admitted(resolved, context.model, true))
        : admitted(reservation, context.model, false);
    },
  };
}

/**
 * Builds the guards of model calls (circuit breaker, rate limit, budget, in that order) from
 * the same options `guard()` takes, for {@link createModelCallRecorder} and the adapters.
 * Stores may be in-memory or shared (a Redis store's promises): with a shared store, admission
 * is asynchronous and adapters await it before sending the request.
 *
 * @param options - rate limit, circuit breaker, budget, session, logger, clock
 * @returns the guards, in the order they run
 * @example
 * ```ts
 * const guards = createModelCallGuards({
 *   rateLimit: { callsPerSecond: 5, burst: 5 },
 *   budget: { maxCostPerSession: 1 },
 * });
 * const openai = wrapOpenAI(new OpenAI(), { guards });
 * ```
 */
export function createModelCallGuards(options: ModelCallGuardOptions): ModelCallGuard[] {
  const clock = options.clock ?? Date.now;
  const logger =
    options.logger === undefined ? consoleGuardLogger : safeGuardLogger(options.logger);
  const guards: ModelCallGuard[] = [];
  if (options.circuitBreaker !== undefined)
    guards.push(circuitBreakerGuard(options.circuitBreaker, logger, clock));
  if (options.rateLimit !== undefined) {
    const rate = rateLimitGuard(options.rateLimit, logger, clock);
    if (rate !== undefined) guards.push(rate);
  }
  if (options.budget !== undefined) {
    const budget = isBudget(options.budget) ? options.budget : createBudget(options.budget);
    guards.push(budgetGuard(budget, options.sessionId, logger));
  }
  return guards;
}
