import { convertToChatEvents } from '../../model/foreign-chat-events.js';
import { PolicyError } from '../policy-error.js';
import type { PolicyBinding, PolicyDetectors, PolicyViolation } from '../policy-types.js';
import { EventStore } from './event-store.js';
import { isRecord } from './is-record.js';
import { enumerateMembers, rebindMembers } from './member-variables.js';
import { PolicyEvent } from './policy-event.js';
import { toPlain } from './policy-values.js';
import {
  type EvalContext,
  enumerateAssignments,
  filterPositions,
  type PlanVariable,
  type PolicyFunction,
  type RulePlan,
  type RunState,
  resetBindings,
  UNSET,
} from './rule-plan.js';
import { boundRange } from './value-locations.js';

interface RuleState {
  /** Per variable: positions that pass the variable's own conditions (sorted). */
  filtered: number[][];
  /** Per variable: how far into its candidate list the filters have run. */
  cursors: number[];
}

/** @internal Settings shared by every session of a policy. */
export interface SessionSettings {
  detectors: PolicyDetectors;
  functions: Record<string, PolicyFunction>;
  /** The most violations one check returns (see `ParsePolicyOptions.maxViolations`). */
  maxViolations: number;
}

/** @internal One satisfying assignment: event positions, then member element indexes. */
interface Assignment {
  positions: number[];
  members: number[];
}

/** @internal Violations of one evaluation, and whether the cap cut them short. */
export interface Evaluation {
  errors: PolicyViolation[];
  truncated: boolean;
}

/**
 * The evaluation state of a policy over one growing trace: the indexed events and, per rule and
 * variable, the events that pass the variable's own conditions. New events are filtered once;
 * new violations are found semi-naively (each assignment with at least one new event, once).
 * @internal
 */
export class PolicySession {
  readonly store = new EventStore();
  private readonly states: RuleState[];
  private readonly run: RunState;
  private readonly maxViolations: number;

  constructor(
    private readonly plans: readonly RulePlan[],
    settings: SessionSettings,
    input: unknown,
  ) {
    this.maxViolations = settings.maxViolations;
    if (input !== undefined && !isRecord(input)) {
      throw new PolicyError({
        code: 'POLICY_INPUT',
        message: `policy input must be an object of parameters, found ${typeof input}`,
      });
    }
    this.run = {
      store: this.store,
      input: input ?? {},
      globals: new Map(),
      detectors: settings.detectors,
      functions: settings.functions,
    };
    this.states = plans.map((plan) => ({
      filtered: plan.variables.map(() => []),
      cursors: plan.variables.map(() => 0),
    }));
  }

  appendAll(entries: readonly unknown[]): void {
    if (!Array.isArray(entries)) {
      throw new PolicyError({
        code: 'POLICY_INPUT',
        message: `a trace must be an array of events, found ${typeof entries}`,
      });
    }
    // an Anthropic Messages API run or an OpenAI Responses API item list, as chat events
    const events = convertToChatEvents(entries)?.events ?? entries;
    this.store.reserve(events.length);
    for (const entry of events) this.store.append(entry);
  }

  /** Drops cached filter results at or beyond `events` (after a store rollback). */
  truncate(events: number): void {
    for (const [r, state] of this.states.entries()) {
      const plan = this.plans[r] as RulePlan;
      state.filtered.forEach((list, v) => {
        while (list.length > 0 && (list[list.length - 1] as number) >= events) list.pop();
        const variable = plan.variables[v];
        if (variable === undefined) return;
        const source = this.store.candidates(variable.type, variable.toolName);
        state.cursors[v] = Math.min(state.cursors[v] as number, source.length);
      });
    }
  }

  private context(plan: RulePlan): EvalContext {
    return { frame: new Array(plan.frameSize).fill(UNSET), ranges: undefined, run: this.run };
  }

  private updateFilters(r: number, ctx: EvalContext): void {
    const plan = this.plans[r] as RulePlan;
    for (let v = 0; v < plan.variables.length; v++) this.updateVariable(r, v, ctx);
  }

  /** Runs variable `v`'s own conditions on its candidates appended since the last update. */
  private updateVariable(r: number, v: number, ctx: EvalContext): void {
    const state = this.states[r] as RuleState;
    const variable = (this.plans[r] as RulePlan).variables[v] as PlanVariable;
    const source = this.store.candidates(variable.type, variable.toolName);
    const out = state.filtered[v] as number[];
    for (let k = state.cursors[v] as number; k < source.length; k++) {
      const position = source[k] as number;
      if (this.passes(r, v, position, ctx)) out.push(position);
    }
    state.cursors[v] = source.length;
  }

  /** Whether the event at `position` passes variable `v`'s own conditions. */
  private passes(r: number, v: number, position: number, ctx: EvalContext): boolean {
    const plan = this.plans[r] as RulePlan;
    const variable = plan.variables[v] as PlanVariable;
    const filters = variable.filters;
    if (filters.length === 0) return true;
    ctx.frame[variable.slot] = this.store.probe(position);
    resetBindings(ctx, plan.resetSlots);
    for (const filter of filters) if (!filter(ctx)) return false;
    return true;
  }

  /**
   * The candidates of variable `v` at or after `from` that pass its own conditions, read on
   * the spot and not kept: for a variable that no assignment with a new event binds to an
   * older one.
   */
  private passingFrom(r: number, v: number, from: number, ctx: EvalContext): number[] {
    const variable = (this.plans[r] as RulePlan).variables[v] as PlanVariable;
    const source = this.store.candidates(variable.type, variable.toolName);
    const out: number[] = [];
    for (let k = firstAtOrAfter(source, from); k < source.length; k++) {
      const position = source[k] as number;
      if (this.passes(r, v, position, ctx)) out.push(position);
    }
    return out;
  }

  /**
   * Whether an assignment with a new event (at or after `newFrom`) can bind variable `v` to an
   * older one: some other variable of the rule has a candidate among the new events. When none
   * has, `v` itself must take the new event, and its conditions need not run on the older ones
   * (a proposed call: the rule's `call` is the proposal, so `user_requested` is not asked of
   * every earlier call of the trace).
   */
  private bindsOlder(plan: RulePlan, v: number, newFrom: number): boolean {
    return plan.variables.some((other, k) => {
      if (k === v) return false;
      const source = this.store.candidates(other.type, other.toolName);
      return source.length > 0 && (source[source.length - 1] as number) >= newFrom;
    });
  }

  /**
   * Violations of rule `r` with at least one variable bound at a position >= `newFrom` (all when
   * `newFrom` is 0), sorted by the bound positions in variable order, then by member elements.
   * At most `limit` are found (enumeration stops there, so memory stays bounded); `truncated`
   * says whether more were left.
   */
  evaluateRule(r: number, newFrom: number, limit: number): Evaluation {
    const plan = this.plans[r] as RulePlan;
    const ctx = this.context(plan);
    const state = this.states[r] as RuleState;
    let candidates: number[][] = state.filtered;
    if (newFrom <= 0) this.updateFilters(r, ctx);
    else {
      // only assignments with a new event count: a variable that no such assignment binds to an
      // older event is read from the new events alone
      candidates = plan.variables.map((_, v) => {
        if (!this.bindsOlder(plan, v, newFrom)) return this.passingFrom(r, v, newFrom, ctx);
        this.updateVariable(r, v, ctx);
        return state.filtered[v] as number[];
      });
    }
    // conditions that read the whole trace hold or not for an event as the trace is now: they run
    // on the kept candidates at each evaluation
    candidates = candidates.map((list, v) => {
      const variable = plan.variables[v] as PlanVariable;
      return filterPositions(list, variable, variable.wholeTraceFilters, ctx, plan.resetSlots);
    });
    resetBindings(ctx, plan.resetSlots);
    for (const constant of plan.constants)
      if (!constant(ctx)) return { errors: [], truncated: false };
    const count = plan.variables.length;
    const found: Assignment[] = [];
    let truncated = false;
    const members = plan.members;
    const visit = (positions: readonly number[]): boolean => {
      if (members.length === 0) {
        if (found.length >= limit) {
          truncated = true;
          return false;
        }
        found.push({ positions: [...positions], members: [] });
        return true;
      }
      return enumerateMembers(members, ctx, plan.resetSlots, (indexes) => {
        if (found.length >= limit) {
          truncated = true;
          return false;
        }
        found.push({ positions: [...positions], members: [...indexes] });
        return true;
      });
    };
    if (count === 0) {
      visit([]);
      return { errors: found.map((a) => this.describe(plan, a, ctx)), truncated };
    }
    const infinity = Number.POSITIVE_INFINITY;
    if (newFrom <= 0) {
      enumerateAssignments(
        plan,
        candidates,
        new Array(count).fill(0),
        new Array(count).fill(infinity),
        ctx,
        visit,
      );
    } else {
      for (let k = 0; k < count; k++) {
        const lo: number[] = [];
        const hi: number[] = [];
        for (let v = 0; v < count; v++) {
          lo.push(v === k ? newFrom : 0);
          hi.push(v < k ? newFrom : infinity);
        }
        if (truncated) break;
        enumerateAssignments(plan, candidates, lo, hi, ctx, visit);
      }
    }
    found.sort((a, b) => {
      for (let v = 0; v < a.positions.length; v++) {
        const d = (a.positions[v] as number) - (b.positions[v] as number);
        if (d !== 0) return d;
      }
      for (let m = 0; m < a.members.length; m++) {
        const d = (a.members[m] as number) - (b.members[m] as number);
        if (d !== 0) return d;
      }
      return 0;
    });
    return { errors: found.map((a) => this.describe(plan, a, ctx)), truncated };
  }

  /** Re-evaluates one assignment with range marking on, and builds its violation. */
  private describe(plan: RulePlan, assignment: Assignment, ctx: EvalContext): PolicyViolation {
    const store = this.store;
    const positions = assignment.positions;
    plan.variables.forEach((variable, v) => {
      ctx.frame[variable.slot] = store.event(positions[v] as number);
    });
    resetBindings(ctx, plan.resetSlots);
    const ranges: string[] = [];
    ctx.ranges = ranges;
    for (const constant of plan.constants) constant(ctx);
    for (const variable of plan.variables) {
      for (const filter of variable.filters) filter(ctx);
      for (const filter of variable.wholeTraceFilters) filter(ctx);
    }
    for (const join of plan.joins) join.test(ctx);
    const members = rebindMembers(plan.members, assignment.members, ctx, plan.resetSlots);
    const extra = plan.describe?.(ctx);
    ctx.ranges = undefined;
    // a member's own place in the trace comes first among the ranges it contributes
    const memberRanges: string[] = [];
    for (const member of members)
      if (member.location !== undefined)
        memberRanges.push(boundRange(member.value, member.location));
    ranges.unshift(...memberRanges);
    const bindings: Record<string, PolicyBinding> = {};
    const addresses: string[] = [];
    const indexes: number[] = [];
    plan.variables.forEach((variable, v) => {
      const event = store.event(positions[v] as number);
      bindings[variable.name] = {
        type: variable.type,
        index: event.index,
        position: event.position,
        address: event.address,
        value: event.data,
      };
      indexes.push(event.index);
      if (!addresses.includes(event.address)) addresses.push(event.address);
    });
    // a member counts in the key as its event's index when it is an event, else as -1
    for (const member of members)
      indexes.push(member.value instanceof PolicyEvent ? member.value.index : -1);
    const uniqueRanges = [...new Set(ranges)];
    for (const range of uniqueRanges) if (!addresses.includes(range)) addresses.push(range);
    return {
      message: plan.message,
      args: (extra?.args ?? []).map((value) => toPlain(value)),
      namedArgs: Object.fromEntries(
        Object.entries(extra?.namedArgs ?? {}).map(([k, v]) => [k, toPlain(v)]),
      ),
      bindings,
      addresses,
      ranges: uniqueRanges,
      key: `${plan.index}:[${indexes.join(',')}]`,
      rule: { index: plan.index, name: plan.name, message: plan.message },
      action: plan.action,
    };
  }

  /**
   * Every violation of every rule (a one-shot check: no de-duplication), up to the cap. A rule
   * that hits a limit (`POLICY_LIMIT`) does not stop the others: the limit is thrown at the end,
   * naming the rule, with the other rules' violations as its `partial`.
   */
  evaluateAll(): Evaluation {
    const errors: PolicyViolation[] = [];
    let failed: { rule: string; error: PolicyError } | undefined;
    let truncated = false;
    for (let r = 0; r < this.plans.length; r++) {
      let result: Evaluation;
      try {
        result = this.evaluateRule(r, 0, this.maxViolations - errors.length);
      } catch (error) {
        if (!PolicyError.isInstance(error) || error.code !== 'POLICY_LIMIT') throw error;
        const plan = this.plans[r] as RulePlan;
        failed ??= {
          rule: plan.name === undefined ? `#${plan.index}` : `"${plan.name}" (#${plan.index})`,
          error,
        };
        continue;
      }
      for (const error of result.errors) errors.push(error);
      if (result.truncated) {
        truncated = true;
        break;
      }
    }
    if (failed !== undefined)
      throw new PolicyError({
        code: 'POLICY_LIMIT',
        message: `rule ${failed.rule} could not be checked: ${failed.error.message}${this.plans.length > 1 ? " (the other rules were checked: their violations are the error's partial result)" : ''}`,
        partial: { errors, truncated },
        cause: failed.error,
      });
    return { errors, truncated };
  }

  /**
   * Violations that involve an event at a position >= `newFrom`; rules that depend on the whole
   * trace (quantifier blocks, no variables) are re-run and kept when their key is not in `known`.
   * Each key is reported once (added to `known`), except with `reportNew`: then a violation that
   * binds an event at or after `newFrom` is always reported (a proposed call added to the last
   * assistant message shares its index, so its violations' keys may be ones `known` holds).
   */
  evaluateNew(newFrom: number, known: Set<string>, reportNew = false): Evaluation {
    const errors: PolicyViolation[] = [];
    for (let r = 0; r < this.plans.length; r++) {
      const plan = this.plans[r] as RulePlan;
      const result = this.evaluateRule(
        r,
        plan.wholeTrace ? 0 : newFrom,
        this.maxViolations - errors.length,
      );
      for (const violation of result.errors) {
        const bindsNew =
          reportNew && Object.values(violation.bindings).some((b) => b.position >= newFrom);
        if (known.has(violation.key) && !bindsNew) continue;
        known.add(violation.key);
        errors.push(violation);
      }
      if (result.truncated) return { errors, truncated: true };
    }
    return { errors, truncated: false };
  }

  /** Keys of the current violations of the whole-trace rules (the baseline before new events). */
  wholeTraceKeys(): Set<string> {
    const keys = new Set<string>();
    this.plans.forEach((plan, r) => {
      if (!plan.wholeTrace) return;
      for (const violation of this.evaluateRule(r, 0, this.maxViolations).errors)
        keys.add(violation.key);
    });
    return keys;
  }

  /**
   * Updates every rule's filters for the events appended so far, before new events are
   * appended. With `proposed` (a tool call about to be proposed), only the variables that an
   * assignment with that call can bind to an older event (`bindsOlder`): a rule's other
   * variables are read from the new events alone.
   */
  prime(proposed?: { toolName: string }): void {
    this.plans.forEach((plan, r) => {
      const ctx = this.context(plan);
      if (proposed === undefined || plan.wholeTrace) {
        this.updateFilters(r, ctx);
        return;
      }
      plan.variables.forEach((_, v) => {
        const older = plan.variables.some(
          (other, k) => k !== v && bindsProposedCall(other, proposed.toolName),
        );
        if (older) this.updateVariable(r, v, ctx);
      });
    });
  }
}

/** The index of the first position at or after `from` in a sorted list. */
function firstAtOrAfter(positions: readonly number[], from: number): number {
  let lo = 0;
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((positions[mid] as number) < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Whether a variable can bind an event a proposed call appends: the call itself, or the
 * assistant message that carries it.
 */
function bindsProposedCall(variable: PlanVariable, toolName: string): boolean {
  switch (variable.type) {
    case 'ToolCall':
      return variable.toolName === undefined || variable.toolName === toolName;
    case 'Message':
    case 'Event':
      return true;
    default:
      return false;
  }
}
