import type { PolicyAction, PolicyDetectors, PolicyEventType } from '../policy-types.js';
import type { EventStore } from './event-store.js';

/** @internal Marks a binding slot that has not been evaluated for the current assignment. */
export const UNSET: unique symbol = Symbol('unset');

/** @internal A host function a policy may call (`options.functions`). */
export type PolicyFunction = (...args: unknown[]) => unknown;

/** @internal Everything one evaluation run shares. */
export interface RunState {
  store: EventStore;
  input: Record<string, unknown>;
  globals: Map<string, unknown>;
  detectors: PolicyDetectors;
  functions: Record<string, PolicyFunction>;
}

/** @internal The evaluation context of compiled expressions. */
export interface EvalContext {
  frame: unknown[];
  /** Collects character ranges while a violation is being described; undefined otherwise. */
  ranges: string[] | undefined;
  run: RunState;
}

/** @internal A compiled expression. */
export type Compiled = (ctx: EvalContext) => unknown;
/** @internal A compiled condition. */
export type Test = (ctx: EvalContext) => boolean;

/** @internal A quantified variable of a rule or quantifier block. */
export interface PlanVariable {
  name: string;
  type: PolicyEventType;
  slot: number;
  /** Only events of this tool can match (index key). */
  toolName: string | undefined;
  /** Conditions on this variable alone; a session runs them once per event and keeps the result. */
  filters: Test[];
  /**
   * Conditions on this variable alone that read the whole trace (quantifier blocks): their value
   * for an event changes as the trace grows, so they run anew at each evaluation and are never
   * kept per event.
   */
  wholeTraceFilters: Test[];
}

/** @internal `from -> to` (or `~>` when immediate) between two variables, by variable index. */
export interface FlowConstraint {
  from: number;
  to: number;
  immediate: boolean;
}

/** @internal A condition on several variables (bitmask of variable indexes). */
export interface JoinCondition {
  mask: number;
  test: Test;
}

/**
 * @internal A typed member `(name: T) in collection`: bound, after the event variables, to each
 * element of type `T` of the collection in turn.
 */
export interface MemberStep {
  name: string;
  /** `str`, `dict`, `int`, `float`, `bool`, `list` or an event type. */
  type: string;
  slot: number;
  /** Frame slot of the element's location in the trace (for ranges and chained members). */
  locationSlot: number;
  /** The collection, with its location. */
  collection: (ctx: EvalContext) => [unknown, string | undefined];
  /** Conditions whose last member is this one, tested once it is bound. */
  tests: Test[];
}

/** @internal How to enumerate the satisfying assignments of a set of variables. */
export interface EnumerationPlan {
  variables: PlanVariable[];
  /** Typed members, in the order of their lines (each may read the ones before). */
  members: MemberStep[];
  flows: FlowConstraint[];
  joins: JoinCondition[];
  /** Conditions on no variable of this plan. */
  constants: Test[];
  /** Binding slots to reset before each assignment is tested. */
  resetSlots: number[];
}

/** @internal A compiled rule: the same shape for text rules and builder rules. */
export interface RulePlan extends EnumerationPlan {
  index: number;
  name: string | undefined;
  message: string;
  action: PolicyAction;
  frameSize: number;
  /** Depends on events it does not bind (quantifier blocks): incremental checks re-run it. */
  wholeTrace: boolean;
  describe:
    | ((ctx: EvalContext) => { args: unknown[]; namedArgs: Record<string, unknown> })
    | undefined;
}

/** @internal First index in sorted `list` whose value is >= `target`. */
function lowerBound(list: readonly number[], target: number, from = 0, to = list.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** @internal Resets binding slots before an assignment is evaluated. */
export function resetBindings(ctx: EvalContext, slots: readonly number[]): void {
  for (const slot of slots) ctx.frame[slot] = UNSET;
}

/**
 * Enumerates assignments of `plan.variables` to positions: each variable ranges over its sorted
 * `candidates` within [lo, hi), restricted by flow constraints through binary search, with
 * multi-variable conditions tested as soon as their variables are bound. Variables are bound
 * smallest candidate set first. `visit` gets positions in variable order; returning false stops.
 * @internal
 */
export function enumerateAssignments(
  plan: EnumerationPlan,
  candidates: readonly (readonly number[])[],
  lo: readonly number[],
  hi: readonly number[],
  ctx: EvalContext,
  visit: (positions: readonly number[]) => boolean,
): void {
  const count = plan.variables.length;
  const ranges: [number, number][] = [];
  for (let v = 0; v < count; v++) {
    const list = candidates[v] as readonly number[];
    const start = lowerBound(list, lo[v] as number);
    const end = lowerBound(list, hi[v] as number, start);
    if (start >= end) return;
    ranges.push([start, end]);
  }
  const order = [...Array(count).keys()].sort((a, b) => {
    const [sa, ea] = ranges[a] as [number, number];
    const [sb, eb] = ranges[b] as [number, number];
    return ea - sa - (eb - sb) || a - b;
  });
  // joins to test at each depth (when their last variable is bound)
  const joinsAt: JoinCondition[][] = order.map(() => []);
  const flowsAt: FlowConstraint[][] = order.map(() => []);
  const depthOf: number[] = [];
  order.forEach((v, d) => {
    depthOf[v] = d;
  });
  for (const join of plan.joins) {
    let last = 0;
    for (let v = 0; v < count; v++)
      if (join.mask & (1 << v)) last = Math.max(last, depthOf[v] as number);
    joinsAt[last]?.push(join);
  }
  for (const flow of plan.flows) {
    const d = Math.max(depthOf[flow.from] as number, depthOf[flow.to] as number);
    flowsAt[d]?.push(flow);
  }
  const positions: number[] = new Array(count).fill(-1);
  const store = ctx.run.store;
  let stopped = false;

  const bind = (depth: number): void => {
    if (depth === count) {
      if (!visit(positions)) stopped = true;
      return;
    }
    const v = order[depth] as number;
    const variable = plan.variables[v] as (typeof plan.variables)[number];
    const list = candidates[v] as readonly number[];
    let [start, end] = ranges[v] as [number, number];
    let exact = -1;
    for (const flow of flowsAt[depth] as FlowConstraint[]) {
      if (flow.to === v) {
        const other = positions[flow.from] as number;
        if (flow.immediate) exact = exact === -1 || exact === other + 1 ? other + 1 : -2;
        else start = Math.max(start, lowerBound(list, other + 1, start, end));
      } else {
        const other = positions[flow.to] as number;
        if (flow.immediate) exact = exact === -1 || exact === other - 1 ? other - 1 : -2;
        else end = Math.min(end, lowerBound(list, other, start, end));
      }
    }
    if (exact === -2) return;
    if (exact >= 0) {
      const at = lowerBound(list, exact, start, end);
      if (at < end && list[at] === exact) {
        start = at;
        end = at + 1;
      } else return;
    }
    const joins = joinsAt[depth] as JoinCondition[];
    for (let k = start; k < end && !stopped; k++) {
      const position = list[k] as number;
      positions[v] = position;
      ctx.frame[variable.slot] = store.event(position);
      if (joins.length > 0) {
        resetBindings(ctx, plan.resetSlots);
        let ok = true;
        for (const join of joins) {
          if (!join.test(ctx)) {
            ok = false;
            break;
          }
        }
        if (!ok) continue;
      }
      bind(depth + 1);
    }
    positions[v] = -1;
  };
  bind(0);
}

/**
 * The candidates of a variable that pass its filters, evaluated now (no cache): used by
 * quantifier blocks, whose filters may read outer variables.
 * @internal
 */
export function filterCandidates(
  variable: PlanVariable,
  ctx: EvalContext,
  resetSlots: readonly number[],
): number[] {
  const source = ctx.run.store.candidates(variable.type, variable.toolName);
  const passing = filterPositions(source, variable, variable.filters, ctx, resetSlots);
  return filterPositions(passing, variable, variable.wholeTraceFilters, ctx, resetSlots);
}

/**
 * The positions among `positions` whose event, bound to `variable`, passes every one of
 * `filters`, evaluated now.
 * @internal
 */
export function filterPositions(
  positions: readonly number[],
  variable: PlanVariable,
  filters: readonly Test[],
  ctx: EvalContext,
  resetSlots: readonly number[],
): number[] {
  if (filters.length === 0) return positions as number[];
  const out: number[] = [];
  const store = ctx.run.store;
  for (const position of positions) {
    ctx.frame[variable.slot] = store.probe(position);
    resetBindings(ctx, resetSlots);
    let ok = true;
    for (const filter of filters) {
      if (!filter(ctx)) {
        ok = false;
        break;
      }
    }
    if (ok) out.push(position);
  }
  return out;
}
