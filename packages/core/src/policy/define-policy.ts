import { Policy } from './policy.js';
import { PolicyError } from './policy-error.js';
import type { PolicyDetectors } from './policy-types.js';
import type { RuleDefinition } from './rule.js';
import type { PolicyEvent } from './runtime/policy-event.js';
import { resolveMaxViolations } from './runtime/resolve-max-violations.js';
import type {
  EvalContext,
  FlowConstraint,
  JoinCondition,
  PlanVariable,
  RulePlan,
} from './runtime/rule-plan.js';

/** Options of {@link definePolicy}. */
export interface DefinePolicyOptions {
  /**
   * Replacements for the built-in detectors (used by text rules mixed in later; kept for symmetry).
   * @default {}
   */
  detectors?: PolicyDetectors;
  /**
   * The most violations one check returns; past it the result says `truncated: true`.
   * @default 10000
   */
  maxViolations?: number;
}

const eventOf = (ctx: EvalContext, slot: number): PolicyEvent => ctx.frame[slot] as PolicyEvent;

/**
 * Compiles typed rules ({@link rule}) into a {@link Policy}: the same evaluator, indexes and
 * results as {@link parsePolicy}.
 * @param rules - typed rule definitions
 * @param options - detectors
 * @returns the compiled policy
 * @example
 * ```ts
 * const policy = definePolicy([
 *   rule({ message: 'loop', vars: { a: toolCall('search'), b: toolCall('search') },
 *          when: [flow('a', 'b', { immediate: true })] }),
 * ]);
 * ```
 */
export function definePolicy(
  rules: readonly RuleDefinition[],
  options: DefinePolicyOptions = {},
): Policy {
  const plans = rules.map((definition, index): RulePlan => {
    const names = Object.keys(definition.vars);
    if (names.length > 30) {
      throw new PolicyError({
        code: 'POLICY_TYPE',
        message: `rule ${JSON.stringify(definition.message)} has ${names.length} variables; at most 30`,
      });
    }
    const variables: PlanVariable[] = names.map((name, slot) => {
      const matcher = definition.vars[name] as RuleDefinition['vars'][string];
      return {
        name,
        type: matcher.type,
        slot,
        toolName: typeof matcher.tool === 'string' ? matcher.tool : undefined,
        filters: [(ctx) => matcher.matches(eventOf(ctx, slot))],
        wholeTraceFilters: [],
      };
    });
    const flows: FlowConstraint[] = definition.flows.map((f) => ({
      from: names.indexOf(f.from),
      to: names.indexOf(f.to),
      immediate: f.immediate,
    }));
    const all = names.reduce((mask, _, v) => mask | (1 << v), 0);
    const joins: JoinCondition[] = definition.predicates.map((predicate) => ({
      mask: all,
      test: (ctx) => {
        const bindings: Record<string, unknown> = {};
        names.forEach((name, slot) => {
          bindings[name] = eventOf(ctx, slot).data;
        });
        return predicate(bindings) === true;
      },
    }));
    return {
      index,
      name: definition.name,
      message: definition.message,
      action: definition.action,
      variables,
      members: [],
      flows: flows.filter((f) => f.from !== f.to),
      joins,
      constants:
        names.length === 0
          ? definition.predicates.map((predicate) => () => predicate({}) === true)
          : flows.some((f) => f.from === f.to)
            ? [() => false]
            : [],
      resetSlots: [],
      frameSize: names.length,
      wholeTrace: names.length === 0,
      describe: undefined,
    };
  });
  return new Policy(plans, {
    detectors: options.detectors ?? {},
    functions: {},
    maxViolations: resolveMaxViolations(options.maxViolations),
  });
}
