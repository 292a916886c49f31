import { ambientScope } from '../tracing/with-trace.js';
import { defaultBudgetSession } from './budget.js';
import { CallState } from './call-state.js';
import {
  asMemoryCircuitBreakerStore,
  type MemoryAdmission,
  type MemoryBreaker,
  type MemoryCircuitBreakerStore,
} from './circuit-breaker-store.js';
import type { LedgerSnapshot } from './cost-ledger.js';
import type { GuardRuntime } from './guard-runtime.js';
import { isThenable } from './is-thenable.js';
import type { PlainBudgetTerms } from './memory-budget.js';
import {
  type BucketState,
  type MemoryBuckets,
  memoryBucketsOf,
  takeFrom,
} from './rate-limit-store.js';
import { firstRejected, fromBudget, resume, runFastPath, succeeded } from './run-fast-path.js';
import { runGeneralPath } from './run-general-path.js';

// The quiet plan: a guard whose every step is in memory, with nobody listening and no timeout,
// made when the guard is made. Its calls do steps 1–3 and 8–9 on the state the in-memory stores
// keep for the guard's key and session, held across calls, instead of asking each store by key
// through its interface: in place, those three asks cost ~250 ns per call where the lean
// hand-written floor spends ~15 (bench/guards.bench.ts; decision 080, fifth pass). Anything
// else (a refusal, a breaker not closed, an alert in reach, a tracer in scope, a failure) goes
// to the fast or general path's own code, from the step it reached, with nothing done twice.

/**
 * Steps 1–3 and 8–9 of an untracked call for a guard whose stores are the in-memory ones. Made
 * by {@link quietPlanOf}; a held state is fetched again whenever its store was reset.
 */
export class QuietPlan {
  private breaker: MemoryBreaker | undefined = undefined;
  private breakerResets = -1;
  private bucket: BucketState | undefined = undefined;
  private bucketResets = -1;
  private session: LedgerSnapshot | undefined = undefined;
  private sessionResets = -1;
  private readonly sessionId: string;

  constructor(
    private readonly runtime: GuardRuntime,
    private readonly breakers: MemoryCircuitBreakerStore | undefined,
    private readonly buckets: MemoryBuckets | undefined,
    private readonly terms: PlainBudgetTerms | undefined,
  ) {
    this.sessionId = runtime.sessionId ?? defaultBudgetSession;
  }

  /** The breaker of the guard's key, as the store holds it now. */
  private currentBreaker(): MemoryBreaker {
    const store = this.breakers!;
    if (this.breakerResets !== store.resets || this.breaker === undefined) {
      this.breaker = store.breakerOf(this.runtime.breakerKey);
      this.breakerResets = store.resets;
    }
    return this.breaker;
  }

  /** The buckets of the guard's key, as the store holds them now (made at `now` when missing). */
  private currentBucket(now: number): BucketState {
    const buckets = this.buckets!;
    if (this.bucketResets !== buckets.resets || this.bucket === undefined) {
      this.bucket = buckets.stateOf(this.runtime.bucketKey, this.runtime.bucketLimits, now);
      this.bucketResets = buckets.resets;
    }
    return this.bucket;
  }

  /** The figures of the guard's own session, as the ledger holds them now. */
  private currentSession(): LedgerSnapshot {
    const ledger = this.terms!.ledger;
    if (this.sessionResets !== ledger.resets || this.session === undefined) {
      this.session = ledger.snapshotOf(this.sessionId);
      this.sessionResets = ledger.resets;
    }
    return this.session;
  }

  /** One call of the guarded function (no invoke options). */
  run(args: unknown[]): Promise<unknown> {
    const rt = this.runtime;
    try {
      // a tracer in scope (withTrace) tracks the call, an adapter's tool call gives its id: the
      // usual path
      if (ambientScope() !== undefined) return rt.run(args, undefined);
      const s = new CallState(rt, args, args.length, rt.sessionId, false, rt.clock());
      rt.stats.calls++;
      // 1. circuit breaker: closed admits every call with the breaker's shared admission
      if (this.breakers !== undefined) {
        const breaker = this.currentBreaker();
        if (breaker.state !== 'closed') return runFastPath(rt, s);
        rt.breakerState = 'closed';
        s.admission = breaker.closedAdmission;
      }
      // 2. rate limit
      if (this.buckets !== undefined) {
        const wait = takeFrom(this.currentBucket(s.startMs), rt.bucketLimits, s.startMs);
        if (wait !== 0) return runGeneralPath(rt, s, 2, wait);
      }
      // 3. budget: hold the estimate as `holdPlainly` does, or let the fast path reserve
      const terms = this.terms;
      if (terms !== undefined) {
        const session = this.currentSession();
        if (
          session.calls + 1 > terms.maxCalls ||
          session.spentMicroUsd + session.reservedMicroUsd + terms.estimate > terms.maxSpend
        )
          return fromBudget(rt, s);
        session.reservedMicroUsd += terms.estimate;
        session.calls++;
        s.heldPlainly = true;
      }
      // 5. first attempt
      rt.stats.attempts++;
      let result: unknown;
      try {
        result = rt.callTool(s.args, s.argCount, s);
      } catch (error) {
        return resume(rt, s, error);
      }
      if (!isThenable(result)) return Promise.resolve(succeeded(rt, s, result));
      const promise = result instanceof Promise ? result : Promise.resolve(result);
      return promise.then(quietFulfilled.bind(s), firstRejected.bind(s));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Steps 8–9 of a success as `quietSuccess` does them, on the held state: the budget settles
   * at its fixed cost while no alert is in reach, the closed breaker clears its failure count.
   * False, having changed nothing, when the general code must settle.
   */
  settle(s: CallState): boolean {
    const terms = this.terms;
    if (s.heldPlainly) {
      const session = this.currentSession();
      if (
        session.spentMicroUsd + terms!.cost >= terms!.alertSpend ||
        session.calls >= terms!.alertCalls
      )
        return false;
      session.reservedMicroUsd -= terms!.estimate;
      session.spentMicroUsd += terms!.cost;
      s.heldPlainly = false;
    }
    const admission = s.admission;
    if (admission !== undefined) {
      s.admission = undefined;
      // the store's `record` of a success admitted closed: only when nothing moved since
      const breaker = this.currentBreaker();
      if (
        breaker.generation === (admission as MemoryAdmission).generation &&
        breaker.state === 'closed'
      )
        breaker.failures = 0;
    }
    return true;
  }
}

function quietFulfilled(this: CallState, value: unknown): unknown {
  const rt = this.runtime;
  if (rt.quietPlan!.settle(this)) {
    rt.stats.byStatus.success++;
    return value;
  }
  return succeeded(rt, this, value);
}

/**
 * The guard's quiet plan, or undefined when its calls cannot all start on it: a listener or
 * signal set on the guard, a timeout, validators, hallucination checks, latency bounds, a
 * custom breaker failure test, a store or budget that is not in memory, a cost not fixed.
 */
export function quietPlanOf(rt: GuardRuntime): QuietPlan | undefined {
  if (!rt.fast || !rt.quiet || rt.listenersFixed || rt.signal !== undefined) return undefined;
  if (rt.timeoutMs !== undefined) return undefined;
  let breakers: MemoryCircuitBreakerStore | undefined;
  if (rt.breakerStore !== undefined) {
    breakers = asMemoryCircuitBreakerStore(rt.breakerStore);
    if (breakers === undefined) return undefined;
  }
  let buckets: MemoryBuckets | undefined;
  if (rt.bucketStore !== undefined) {
    buckets = memoryBucketsOf(rt.bucketStore);
    if (buckets === undefined) return undefined;
  }
  let terms: PlainBudgetTerms | undefined;
  if (rt.budget !== undefined) {
    terms = rt.plainBudget?.plainTerms();
    if (terms === undefined) return undefined;
  }
  return new QuietPlan(rt, breakers, buckets, terms);
}
