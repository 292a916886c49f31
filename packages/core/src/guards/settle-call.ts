import type { Budget, BudgetReservation, BudgetSettlement } from './budget.js';
import { BudgetExceededError } from './budget-exceeded-error.js';
import type { CallState, Ending, Outcome } from './call-state.js';
import type { CircuitTransition } from './circuit-breaker-store.js';
import { errorMessage } from './error-message.js';
import { finishCall } from './finish-call.js';
import type { CircuitBreakerOptions } from './guard-options.js';
import type { GuardRuntime } from './guard-runtime.js';
import { InvalidCostError } from './invalid-cost-error.js';
import type { MaybePromise } from './types.js';

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

/** Steps 8–10: budget settlement, breaker update, record. Synchronous unless a store is async. */
export function settleCall(
  rt: GuardRuntime,
  s: CallState,
  outcome: Outcome,
  ending: Ending,
): unknown {
  const budget = rt.budget;
  const reservation = s.reservation;
  if (budget !== undefined && reservation !== undefined) {
    const settled = settleBudget(rt, s, budget, reservation, outcome, ending);
    return settled instanceof Promise
      ? settled.then((next) => updateBreaker(rt, s, outcome, next))
      : updateBreaker(rt, s, outcome, settled);
  }
  return updateBreaker(rt, s, outcome, ending);
}

/** Steps 9–10: breaker update, record. */
function updateBreaker(rt: GuardRuntime, s: CallState, outcome: Outcome, ending: Ending): unknown {
  if (s.admission !== undefined) {
    const isFailure = rt.isFailure;
    const counted =
      outcome === 'aborted'
        ? 'ignore'
        : (
              isFailure === undefined
                ? outcome === 'failure' || outcome === 'timeout'
                : countsAsFailure(isFailure, outcome, ending, rt)
            )
          ? 'failure'
          : 'success';
    const recorded = recordBreakerOutcome(rt, s, counted);
    if (recorded instanceof Promise) return recorded.then(() => finishCall(rt, s, ending));
  }
  // 10. record
  return finishCall(rt, s, ending);
}

function settleBudget(
  rt: GuardRuntime,
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
          toolName: rt.name,
          message: `The budget priced a call of tool "${rt.name}" at ${actual} micro-USD; a cost must be a finite amount >= 0. It was not charged: fix the budget's costOf.`,
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
        rt.warnOnce(
          'pricing',
          error,
          `Could not price a call of tool "${rt.name}": ${errorMessage(error)}; charged the estimate (${actual} micro-USD).`,
          { tool: rt.name },
        );
      }
    }
  } else actual = budget.limits.costPerCallMicroUsd ?? 0;
  const settlement = budget.settle(reservation, actual);
  return settlement instanceof Promise
    ? settlement.then((settled) => budgetSettled(rt, s, budget, settled, actual, ending))
    : budgetSettled(rt, s, budget, settlement, actual, ending);
}

function budgetSettled(
  rt: GuardRuntime,
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
    const message = `Call of tool "${rt.name}" cost ${actual} micro-USD, over maxCostPerCall (${budget.limits.maxCostPerCallMicroUsd} micro-USD); the spend was recorded. Raise maxCostPerCall or use a cheaper call.`;
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
        thrown: { error: new BudgetExceededError({ message, toolName: rt.name }) },
      };
    }
    if (action !== 'block') rt.tripped(action, message, s);
  }
  return ending;
}

export function recordTransition(
  rt: GuardRuntime,
  s: CallState,
  transition: CircuitTransition,
): void {
  rt.breakerState = transition.to;
  s.decide({
    guard: 'circuit_breaker',
    event: 'transition',
    from: transition.from,
    to: transition.to,
    reason: transition.reason,
    at: new Date(transition.at).toISOString(),
  });
  const onStateChange = rt.breaker?.onStateChange;
  if (onStateChange !== undefined) {
    try {
      onStateChange({ ...transition, toolName: rt.name });
    } catch (error) {
      rt.warnOnce(
        'onStateChange',
        error,
        `onStateChange of tool "${rt.name}" threw: ${errorMessage(error)}`,
        { tool: rt.name },
      );
    }
  }
}

export function recordBreakerOutcome(
  rt: GuardRuntime,
  s: CallState,
  outcome: 'success' | 'failure' | 'ignore',
): MaybePromise<void> {
  const admission = s.admission!;
  s.admission = undefined;
  const transition = rt.breakerStore!.record(
    rt.breakerKey,
    rt.breakerLimits!,
    admission,
    outcome,
    outcome === 'success' && admission.state === 'closed' && rt.breakerSkipsClockOnClosedSuccess
      ? s.startMs
      : rt.clock(),
  );
  if (transition instanceof Promise) {
    return transition.then((t) => {
      if (t !== undefined) recordTransition(rt, s, t);
    });
  }
  if (transition !== undefined) recordTransition(rt, s, transition);
}
