import type { ToolCallStatus } from '../model/tool-records.js';
import { isPlainObject } from '../validation/is-record.js';
import { abortableSleep, sleepUnlessAborted } from './abortable-sleep.js';
import { type BudgetReservation, defaultBudgetSession } from './budget.js';
import { BudgetExceededError } from './budget-exceeded-error.js';
import type { CallState, Ending } from './call-state.js';
import type { CircuitAdmission } from './circuit-breaker-store.js';
import { CircuitOpenError } from './circuit-open-error.js';
import { executeAttempts } from './execute-attempts.js';
import { finishCall } from './finish-call.js';
import type { GuardRuntime } from './guard-runtime.js';
import { GuardTimeoutError } from './guard-timeout-error.js';
import { HallucinationError } from './hallucination-error.js';
import { RateLimitedError } from './rate-limited-error.js';
import { burstHint } from './resolve-rate-limit.js';
import { runValidators } from './run-validators.js';
import { recordBreakerOutcome, recordTransition, settleCall } from './settle-call.js';
import type { MaybePromise } from './types.js';
import { ValidationFailedError } from './validation-failed-error.js';

/**
 * The general path, from `stage` on: 0 from the start; 1, 2, 3 with `pending` the breaker
 * admission, rate-limit wait or budget reservation the fast path already asked for.
 */
export async function runGeneralPath(
  rt: GuardRuntime,
  s: CallState,
  stage: 0 | 1 | 2 | 3,
  pending: unknown,
): Promise<unknown> {
  const args = s.args;
  const signal = s.callerSignal;
  if (stage === 0 && signal?.aborted)
    return finishCall(
      rt,
      s,
      { status: 'failure', value: null, error: signal.reason, thrown: { error: signal.reason } },
      true,
    );

  // 1. circuit breaker
  if (rt.breakerStore !== undefined && stage <= 1) {
    let admission =
      stage === 1
        ? (pending as MaybePromise<CircuitAdmission>)
        : rt.breakerStore.acquire(rt.breakerKey, rt.breakerLimits!, s.startMs);
    if (admission instanceof Promise) admission = await admission;
    if (admission.transition !== undefined) recordTransition(rt, s, admission.transition);
    rt.breakerState = admission.state;
    if (admission.allowed) s.admission = admission;
    else {
      const action = rt.onOpen;
      s.decide({ guard: 'circuit_breaker', event: 'refused', action, state: admission.state });
      const message = `Circuit breaker of tool "${rt.name}" is ${admission.state === 'open' ? 'open' : 'half-open with every probe slot taken'} after repeated failures; ${action === 'block' ? `the call was not run. Retry after the recovery timeout (${rt.breakerLimits!.recoveryTimeoutMs / 1000} s).` : `the call runs (onOpen: '${action}').`}`;
      if (action === 'block')
        return refuse(rt, s, 'circuit_open', new CircuitOpenError({ message, toolName: rt.name }));
      rt.tripped(action, message, s);
    }
  }

  // 2. rate limit
  if (rt.bucketStore !== undefined && stage <= 2) {
    let wait =
      stage === 2
        ? (pending as MaybePromise<number>)
        : rt.bucketStore.take(rt.bucketKey, rt.bucketLimits, s.startMs);
    if (wait instanceof Promise) wait = await wait;
    if (wait > 0) {
      const refusal = await waitForToken(rt, s, wait);
      if (refusal !== undefined) return refusal;
    }
  }

  // 3. budget reservation
  const budget = rt.budget;
  if (budget !== undefined && stage <= 3) {
    const onExceed = budget.limits.onExceed;
    let reservation =
      stage === 3
        ? (pending as MaybePromise<BudgetReservation>)
        : budget.reserve(undefined, rt.reserveOptions(s.sessionId));
    if (reservation instanceof Promise) reservation = await reservation;
    if (reservation.ok) {
      s.reservation = reservation;
      if (s.track) s.noteReservation(reservation);
      if (reservation.exceeded !== undefined) {
        const message = `Budget exceeded (${reservation.exceeded}) for tool "${rt.name}" in session "${reservation.sessionId}"; the call runs because onExceed is "${onExceed}".`;
        s.decide({
          guard: 'budget',
          event: 'exceeded',
          action: onExceed,
          limit: reservation.exceeded,
        });
        rt.tripped(onExceed, message, s);
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
      return refuse(
        rt,
        s,
        'budget_exceeded',
        new BudgetExceededError({ message: reservation.message, toolName: rt.name }),
      );
    }
  }

  // 4. input validation
  if (rt.inputValidators !== undefined) {
    const results = await runValidators(
      rt.inputValidators,
      s.argCount === 1 && isPlainObject(args[0]) ? args[0] : s.positional(),
      {
        phase: 'input',
        toolName: rt.name,
        args: s.positional(),
        kwargs: s.keywords(),
      },
    );
    s.validations = results;
    const failed = results.find((r) => !r.valid);
    if (failed !== undefined) {
      const action = rt.options.validators?.onInvalid ?? 'block';
      const message = `Input of tool "${rt.name}" failed validation: ${failed.message}. Fix the arguments and call again.`;
      s.decide({
        guard: 'validation',
        event: 'input_invalid',
        action,
        failed: results.filter((r) => !r.valid).length,
      });
      if (action === 'block')
        return refuse(
          rt,
          s,
          'validation_failed',
          new ValidationFailedError({ message, toolName: rt.name }),
        );
      rt.tripped(action, message, s);
    }
  }

  if (rt.options.beforeCall !== undefined) {
    try {
      await rt.options.beforeCall(s.call());
    } catch (error) {
      // beforeCall ran for this call: afterCall runs too (with the failure), not a refusal
      return refuse(rt, s, 'failure', error, false);
    }
  }

  // 5. execution under retry × timeout
  await executeAttempts(rt, s, false, undefined);
  return completeCall(rt, s);
}

/** Steps 6–10 after execution: output validation, hallucination check, then `settleCall`. */
export async function completeCall(rt: GuardRuntime, s: CallState): Promise<unknown> {
  const { outcome, value, failure } = s;
  // 6.–7. output validation, hallucination check
  let ending: Ending;
  if (outcome === 'success') {
    ending = { status: 'success', value, error: undefined };
    if (rt.outputValidators !== undefined) {
      const results = await runValidators(rt.outputValidators, value, {
        phase: 'output',
        toolName: rt.name,
        args: s.positional(),
        kwargs: s.keywords(),
      });
      s.validations = s.validations === undefined ? results : [...s.validations, ...results];
      const failed = results.find((r) => !r.valid);
      if (failed !== undefined) {
        const action = rt.options.validators?.onInvalid ?? 'block';
        const message = `Result of tool "${rt.name}" failed validation: ${failed.message}. The result was not returned.`;
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
            thrown: { error: new ValidationFailedError({ message, toolName: rt.name }) },
          };
        } else rt.tripped(action, message, s);
      }
    }
    if (rt.detector !== undefined && ending.thrown === undefined)
      ending = await checkHallucination(rt, s, ending);
  } else if (outcome === 'timeout') {
    ending = rt.timeoutBlocks
      ? {
          status: 'timeout',
          value: null,
          error: failure,
          thrown: {
            error: new GuardTimeoutError({
              message: `Tool "${rt.name}" did not finish within ${rt.timeoutMs} ms${s.retries > 0 ? ` (${s.retries + 1} attempts)` : ''}. Raise timeout.timeoutSeconds or make the tool faster.`,
              toolName: rt.name,
            }),
          },
        }
      : { status: 'failure', value: null, error: failure, thrown: { error: failure } };
  } else {
    ending = { status: 'failure', value: null, error: failure, thrown: { error: failure } };
  }

  return settleCall(rt, s, outcome, ending);
}

async function waitForToken(rt: GuardRuntime, s: CallState, firstWait: number): Promise<unknown> {
  const rate = rt.rateLimit!;
  const maxWaitMs = rate.maxWaitMs;
  const store = rt.bucketStore!;
  let wait = firstWait;
  let waited = 0;
  while (wait > 0 && waited + wait <= maxWaitMs) {
    try {
      await sleepUnlessAborted(rt.options.sleep ?? abortableSleep, wait, s.callerSignal);
    } catch (error) {
      return refuse(rt, s, 'failure', error);
    }
    // at least 1 ms a wait: a store that answers sub-millisecond waits (1e-9) would otherwise
    // take ~forever to add up to maxWaitMs
    waited += Math.max(wait, 1);
    let next = store.take(rt.bucketKey, rt.bucketLimits, rt.clock());
    if (next instanceof Promise) next = await next;
    wait = next;
  }
  if (waited > 0)
    s.decide({ guard: 'rate_limit', event: 'waited', wait_ms: waited, key: rt.bucketKey });
  if (wait === 0) return undefined;
  const action = rate.onLimit;
  s.decide({
    guard: 'rate_limit',
    event: 'refused',
    action,
    key: rt.bucketKey,
    retry_in_ms: wait,
    waited_ms: waited,
  });
  const message = `Rate limit reached for tool "${rt.name}" (bucket "${rt.bucketKey}"); next token in ${wait} ms (${burstHint(rt.bucketLimits)}). Slow down, raise the limit, or set rateLimit.maxWaitMs to wait.`;
  if (action === 'block')
    return refuse(rt, s, 'rate_limited', new RateLimitedError({ message, toolName: rt.name }));
  rt.tripped(action, message, s);
  return undefined;
}

async function checkHallucination(rt: GuardRuntime, s: CallState, ending: Ending): Promise<Ending> {
  const options = rt.options.hallucination!;
  const sessionId = s.sessionId ?? defaultBudgetSession;
  const tracer = s.tracer;
  let result: Awaited<ReturnType<NonNullable<GuardRuntime['detector']>['check']>>;
  try {
    result = await rt.detector!.check(
      {
        toolName: rt.name,
        args: s.positional(),
        kwargs: s.keywords(),
        sessionId,
        result: ending.value,
        latencyMs: s.lastLatency,
        traceText: tracer === undefined ? undefined : () => JSON.stringify(tracer.blocks()),
      },
      options,
    );
  } catch (error) {
    // a detector that throws cannot vouch for the result: the call fails with what it threw
    // (as is, however unreadable), and its bookkeeping ends as for any failure
    s.decide({ guard: 'hallucination', event: 'check_failed', action: 'block' });
    return { status: 'failure', value: null, error, thrown: { error } };
  }
  s.hallucination = result;
  if (!result.is_hallucinated) {
    rt.detector!.observe(ending.value, sessionId);
    return ending;
  }
  const action = options.onHallucination ?? 'block';
  const message = `Tool "${rt.name}" call judged hallucinated (confidence ${result.confidence}): ${result.reason}. Check the tool name and arguments against the conversation.`;
  s.decide({ guard: 'hallucination', event: 'detected', action, confidence: result.confidence });
  if (action === 'block') {
    return {
      ...ending,
      status: 'hallucinated',
      thrown: { error: new HallucinationError({ message, toolName: rt.name }) },
    };
  }
  rt.tripped(action, message, s);
  return ending;
}

/**
 * Refuses a call that did not run: frees its probe slot and reservation, records, throws.
 * @param refused - false for a call `beforeCall` was called for (it failed the call): its
 *   `afterCall` runs (see `finishCall`)
 */
async function refuse(
  rt: GuardRuntime,
  s: CallState,
  status: ToolCallStatus,
  error: unknown,
  refused = true,
): Promise<unknown> {
  if (s.admission !== undefined) await recordBreakerOutcome(rt, s, 'ignore');
  if (s.reservation !== undefined && rt.budget !== undefined) {
    const released = rt.budget.release(s.reservation);
    if (released instanceof Promise) await released;
    s.reservation = undefined;
  }
  return finishCall(rt, s, { status, value: null, error, thrown: { error } }, refused);
}
