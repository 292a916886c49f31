import { AttemptContext, deadlineReason } from './attempt-context.js';
import { defaultBudgetSession } from './budget.js';
import type { CallState } from './call-state.js';
import { DeadlineQueue } from './deadline-queue.js';
import { executeAttempts } from './execute-attempts.js';
import { finishCall } from './finish-call.js';
import type { GuardRuntime } from './guard-runtime.js';
import { isThenable } from './is-thenable.js';
import { completeCall, runGeneralPath } from './run-general-path.js';
import { settleCall } from './settle-call.js';

// The fast path: steps 1–3 and the first attempt of a guard whose every step is in memory, with
// no `async` layer, handing over to the general path at the first step that is not the plain
// case. A first-attempt success in memory (`quietSuccess`) finishes here too.

const noResolver = (_value: unknown): void => {};

/**
 * The fast path's first attempt racing its deadline: one timer, cleared on settle. It is also
 * the attempt's context (one object per call instead of two; decision 080, guard path).
 */
export class FirstAttemptRace extends AttemptContext {
  // set in the constructor, as AttemptContext's fields: field initializers in a derived class
  // made `new FirstAttemptRace` cost ~40 ns more per timed call (decision 080, timeout path)
  declare done: boolean;
  declare deadline: number;
  declare resolve: (value: unknown) => void;
  declare reject: (reason: unknown) => void;

  constructor(call: CallState) {
    super(call, 1);
    this.done = false;
    this.deadline = 0;
    this.resolve = noResolver;
    this.reject = noResolver;
  }
}

/** The race whose resolvers {@link captureResolvers} stores (the executor runs synchronously). */
let capturing: FirstAttemptRace | undefined;
function captureResolvers(
  resolve: (value: unknown) => void,
  reject: (reason: unknown) => void,
): void {
  const race = capturing!;
  race.resolve = resolve;
  race.reject = reject;
}

/**
 * Deadline of the fast path's first attempt: the callback of every guard's {@link DeadlineQueue}
 * (one shared function: no closure per call or guard).
 */
export function onFastDeadline(race: FirstAttemptRace): void {
  const s = race.call;
  const rt = s.runtime;
  const timeoutMs = rt.timeoutMs;
  const action = rt.options.timeout?.onTimeout ?? 'block';
  s.decide({ guard: 'timeout', event: 'deadline', action, attempt: 1, timeout_ms: timeoutMs });
  if (action !== 'block') {
    rt.tripped(
      action,
      `Tool "${rt.name}" passed its ${timeoutMs} ms timeout; still waiting because onTimeout is "${action}".`,
      s,
    );
    // still waiting: marks the race so the settle that comes later still answers the call
    race.deadline = -1;
    return;
  }
  race.abort(deadlineReason);
  race.resolve(resume(rt, s, deadlineReason));
}

/** Steps 1–3 and the first attempt without `await`; hands over to {@link runGeneralPath} at the first unusual result. */
export function runFastPath(rt: GuardRuntime, s: CallState): Promise<unknown> {
  // 1. circuit breaker: only a closed (or already half-open, admitted) breaker with no transition stays here
  const breakerStore = rt.breakerStore;
  if (breakerStore !== undefined) {
    const admission = breakerStore.acquire(rt.breakerKey, rt.breakerLimits!, s.startMs);
    if (admission instanceof Promise || !admission.allowed || admission.transition !== undefined)
      return runGeneralPath(rt, s, 1, admission);
    rt.breakerState = admission.state;
    s.admission = admission;
  }
  // 2. rate limit
  const bucketStore = rt.bucketStore;
  if (bucketStore !== undefined) {
    const wait = bucketStore.take(rt.bucketKey, rt.bucketLimits, s.startMs);
    if (wait !== 0) return runGeneralPath(rt, s, 2, wait);
  }
  return fromBudget(rt, s);
}

/** Step 3 on: the budget's reservation, then the first attempt (see {@link runFastPath}). */
export function fromBudget(rt: GuardRuntime, s: CallState): Promise<unknown> {
  // 3. budget reservation
  const budget = rt.budget;
  const plain = rt.plainBudget;
  const budgetSession = s.sessionId ?? defaultBudgetSession;
  if (plain?.holdPlainly(budgetSession)) {
    // in memory, within every limit: no reservation objects (see quietSuccess)
    s.heldPlainly = true;
    if (s.track)
      s.noteReserved(budgetSession, plain.limits.estimateMicroUsd, plain.spentNow(budgetSession));
  } else if (budget !== undefined) {
    const reservation = budget.reserve(undefined, rt.reserveOptions(s.sessionId));
    if (reservation instanceof Promise || !reservation.ok || reservation.exceeded !== undefined)
      return runGeneralPath(rt, s, 3, reservation);
    s.reservation = reservation;
    if (s.track) s.noteReservation(reservation);
  }
  // 5. first attempt
  rt.stats.attempts++;
  if (s.track) s.attemptStart = s.startTick;
  const timed = rt.timeoutMs !== undefined;
  const context = timed ? new FirstAttemptRace(s) : s;
  let result: unknown;
  try {
    result = rt.callTool(s.args, s.argCount, context);
  } catch (error) {
    return resume(rt, s, error);
  }
  if (!isThenable(result)) {
    try {
      return Promise.resolve(succeeded(rt, s, result));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  // `await` would adopt a foreign thenable the same way
  const promise = result instanceof Promise ? result : Promise.resolve(result);
  // handlers bound to the call instead of two closures over it: 96 bytes per call instead of
  // 160 (bench/guards.bench.ts, decision 080's guard path)
  if (!timed) return promise.then(firstFulfilled.bind(s), firstRejected.bind(s));
  // one shared timer for all of this guard's deadlines; the deadline and the settle race through `race.done`
  const race = context as FirstAttemptRace;
  capturing = race;
  const outer = new Promise(captureResolvers);
  capturing = undefined;
  // the call's start is `Date.now()` of a moment ago: the queue need not read the clock again
  // (unless `Date.now` was replaced since, e.g. by fake timers: the queue reads the current one)
  if (rt.realClock && Date.now === rt.clock) rt.deadlines!.add(race, s.startMs);
  else rt.deadlines!.add(race);
  promise.then(raceFulfilled.bind(race), raceRejected.bind(race));
  return outer;
}

function firstFulfilled(this: CallState, value: unknown): unknown {
  return succeeded(this.runtime, this, value);
}

/** The first attempt's rejection handler (bound to the call). */
export function firstRejected(this: CallState, error: unknown): Promise<unknown> {
  return resume(this.runtime, this, error);
}

function raceFulfilled(this: FirstAttemptRace, value: unknown): void {
  fastSettled(this.call.runtime, this, value, false);
}

function raceRejected(this: FirstAttemptRace, error: unknown): void {
  fastSettled(this.call.runtime, this, error, true);
}

/** The fast path's first attempt succeeded: steps 8–10. */
export function succeeded(rt: GuardRuntime, s: CallState, value: unknown): unknown {
  if (s.track) {
    const end = rt.tick();
    const duration = end - s.attemptStart;
    s.lastLatency = duration;
    s.endTick = end;
    s.noteFirstAttempt(duration);
  }
  if (rt.quiet && quietSuccess(rt, s)) {
    if (s.track) return finishCall(rt, s, { status: 'success', value, error: undefined });
    rt.stats.byStatus.success++;
    return value;
  }
  // the general path may run user code (alerts, warnings, breaker callbacks) before the end
  if (s.track) s.endTick = Number.NaN;
  if (s.heldPlainly) adoptPlainHold(rt, s);
  return settleCall(rt, s, 'success', { status: 'success', value, error: undefined });
}

/**
 * Steps 8–9 of a first-attempt success when each is the plain in-memory case: the budget
 * settles at its fixed cost with no alert or limit in reach (a tracked call notes the
 * settlement as numbers), and the breaker admitted the call closed (a success then only clears
 * the failure count, at no time and with no transition). Returns false, having changed
 * nothing, when any step needs the general code (`settleCall`).
 */
function quietSuccess(rt: GuardRuntime, s: CallState): boolean {
  const admission = s.admission;
  if (admission !== undefined && admission.state !== 'closed') return false;
  if (s.heldPlainly) {
    const plain = rt.plainBudget!;
    const sessionId = s.sessionId ?? defaultBudgetSession;
    const charged = rt.plainCost;
    if (!plain.settlePlainly(sessionId, charged)) return false;
    s.heldPlainly = false;
    if (s.track) {
      // read only by the record: an untracked call does not make the call's details for it
      s.costMicroUsd = charged;
      const spent = plain.spentNow(sessionId);
      const max = plain.limits.maxCostPerSessionMicroUsd;
      s.noteSettled(sessionId, charged, spent, max === undefined ? null : max - spent);
    }
  }
  if (admission !== undefined) {
    s.admission = undefined;
    rt.breakerStore!.record(rt.breakerKey, rt.breakerLimits!, admission, 'success', s.startMs);
  }
  return true;
}

/** Hands a quiet-path hold to the general code as the reservation `reserve` would have made. */
function adoptPlainHold(rt: GuardRuntime, s: CallState): void {
  s.heldPlainly = false;
  s.reservation = rt.plainBudget!.reservationOfHeld(s.sessionId ?? defaultBudgetSession);
}

/** The fast path's first attempt settled before its deadline. */
function fastSettled(
  rt: GuardRuntime,
  race: FirstAttemptRace,
  settled: unknown,
  failed: boolean,
): void {
  // false when the deadline came first: it answered the call, unless it only warned (-1)
  if (!rt.deadlines!.settle(race) && race.deadline !== -1) return;
  if (failed) {
    race.resolve(resume(rt, race.call, settled));
    return;
  }
  try {
    race.resolve(succeeded(rt, race.call, settled));
  } catch (error) {
    race.reject(error);
  }
}

/** The fast path's first attempt failed: retries and the remaining steps on the general path. */
export async function resume(rt: GuardRuntime, s: CallState, error: unknown): Promise<unknown> {
  if (s.heldPlainly) adoptPlainHold(rt, s);
  await executeAttempts(rt, s, true, error);
  return completeCall(rt, s);
}
