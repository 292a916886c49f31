import { TracewardenError } from '../errors/tracewarden-error.js';
import { abortableSleep, sleepUnlessAborted } from './abortable-sleep.js';
import { AttemptContext, deadlineReason } from './attempt-context.js';
import { backoffDelay } from './backoff-delay.js';
import type { CallState, Outcome } from './call-state.js';
import { errorMessage } from './error-message.js';
import { errorType } from './error-type.js';
import type { GuardRuntime } from './guard-runtime.js';
import { isThenable } from './is-thenable.js';
import { retryAfterMs } from './retry-after-ms.js';
import type { GuardAttemptRecord } from './types.js';

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
 * Step 5, execution under retry × timeout; leaves `outcome`, `value` and `failure` on `s`.
 * With `firstFailed`, attempt 1 already ran (on the fast path) and threw `firstError`.
 */
export async function executeAttempts(
  rt: GuardRuntime,
  s: CallState,
  firstFailed: boolean,
  firstError: unknown,
): Promise<void> {
  const signal = s.callerSignal;
  for (let attempt = 1; ; attempt++) {
    const measure = s.track || rt.needsLatency;
    let error: unknown;
    if (attempt === 1 && firstFailed) error = firstError;
    else {
      rt.stats.attempts++;
      if (measure) s.attemptStart = attempt === 1 ? s.startTick : rt.tick();
      try {
        s.value = await runAttempt(rt, s, attempt);
        s.outcome = 'success';
        if (measure) {
          const duration = rt.tick() - s.attemptStart;
          s.lastLatency = duration;
          if (s.track) s.recordAttempt({ attempt, outcome: 'success', duration_ms: duration });
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
    const now = rt.clock();
    const record: GuardAttemptRecord = {
      attempt,
      outcome,
      duration_ms: measure ? rt.tick() - s.attemptStart : now - s.startMs,
      error: errorMessage(error),
      error_type: errorType(error),
    };
    s.recordAttempt(record);
    const delay = retryDelay(rt, s, error, outcome, attempt, record, now);
    if (delay === undefined) return;
    record.delay_ms = delay;
    if (s.track) s.decide({ guard: 'retry', event: 'backoff', attempt, delay_ms: delay });
    try {
      await sleepUnlessAborted(rt.options.sleep ?? abortableSleep, delay, signal);
    } catch (sleepError) {
      s.outcome = 'aborted';
      s.failure = signal?.aborted === true ? signal.reason : sleepError;
      return;
    }
    s.retries++;
    rt.stats.retries++;
  }
}

/** Runs one attempt, racing the deadline and the caller's signal when there is one. */
function runAttempt(rt: GuardRuntime, s: CallState, attempt: number): unknown {
  const callerSignal = s.callerSignal;
  const timeoutMs = rt.timeoutMs;
  const context = new AttemptContext(s, attempt);
  const result = rt.callTool(s.args, s.argCount, context);
  if (!isThenable(result) || (timeoutMs === undefined && callerSignal === undefined)) return result;
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
        const action = rt.options.timeout?.onTimeout ?? 'block';
        s.decide({ guard: 'timeout', event: 'deadline', action, attempt, timeout_ms: timeoutMs });
        if (action !== 'block') {
          rt.tripped(
            action,
            `Tool "${rt.name}" passed its ${timeoutMs} ms timeout; still waiting because onTimeout is "${action}".`,
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
function retryDelay(
  rt: GuardRuntime,
  s: CallState,
  error: unknown,
  outcome: Outcome,
  attempt: number,
  record: GuardAttemptRecord,
  now: number,
): number | undefined {
  if (outcome === 'aborted' || attempt > rt.maxRetries) return undefined;
  if (outcome === 'failure' && TracewardenError.isInstance(error)) return undefined;
  const retryOn = rt.retry?.retryOn;
  // an empty list is the seed's default (`retryable_exceptions = ()`): every error, as no list
  if (retryOn !== undefined && (typeof retryOn === 'function' || retryOn.length > 0)) {
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
  if (rt.retryBlockedBySideEffect) {
    s.decide({
      guard: 'retry',
      event: 'skipped',
      reason: 'side_effect',
      side_effect: rt.sideEffect,
    });
    return undefined;
  }
  const backoff = backoffDelay(attempt, rt.retry, rt.options.random ?? Math.random);
  const serverDelay = retryAfterMs(error, now);
  if (serverDelay === undefined) return backoff;
  record.retry_after_ms = serverDelay;
  const maxDelayMs = (rt.retry?.maxDelay ?? 60) * 1000;
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
