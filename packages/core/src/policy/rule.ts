import type { EventMatcher } from './event-matchers.js';
import { PolicyError } from './policy-error.js';
import type { PolicyAction } from './policy-types.js';

/** `from` comes before `to` in the trace (`->`), or immediately before (`~>`). */
export interface FlowCondition<Name extends string = string> {
  readonly kind: 'flow';
  readonly from: Name;
  readonly to: Name;
  readonly immediate: boolean;
}

/** The bound event data of a typed rule, by variable name. */
export type RuleBindings<Vars extends Record<string, EventMatcher>> = {
  [K in keyof Vars]: Vars[K] extends EventMatcher<infer T> ? T : never;
};

/** A condition of a typed rule: a flow between two variables or a predicate over the bindings. */
export type RuleCondition<Vars extends Record<string, EventMatcher>> =
  | FlowCondition<keyof Vars & string>
  | ((bindings: RuleBindings<Vars>) => boolean);

/** What {@link rule} takes. */
export interface RuleSpec<Vars extends Record<string, EventMatcher>> {
  /** The violation message. */
  message: string;
  /** Optional rule name (reported in violations, usable as an actions key). */
  name?: string;
  /**
   * What happens when the rule fires.
   * @default 'block'
   */
  action?: PolicyAction;
  /** The quantified variables, each ranging over the events its matcher selects. */
  vars: Vars;
  /** Conditions on the variables, ANDed; flows restrict the pairing through the event order. */
  when?: readonly RuleCondition<Vars>[];
}

/** A typed rule, ready for {@link definePolicy}. */
export interface RuleDefinition {
  readonly message: string;
  readonly name: string | undefined;
  readonly action: PolicyAction;
  readonly vars: Readonly<Record<string, EventMatcher>>;
  readonly flows: readonly FlowCondition[];
  readonly predicates: readonly ((bindings: Record<string, unknown>) => boolean)[];
}

/**
 * `a` comes before `b` in the trace (Invariant's `a -> b`), or immediately before with
 * `{ immediate: true }` (`a ~> b`).
 * @param from - the earlier variable
 * @param to - the later variable
 * @param options - `immediate`: `from` must be the event right before `to`
 * @returns a flow condition for {@link RuleSpec.when}
 * @example
 * ```ts
 * flow('out', 'call')
 * ```
 */
export function flow<A extends string, B extends string>(
  from: A,
  to: B,
  options: { immediate?: boolean } = {},
): FlowCondition<A | B> {
  return { kind: 'flow', from, to, immediate: options.immediate ?? false };
}

/**
 * Defines a typed rule: the same semantics as a text rule (one violation per satisfying
 * assignment), compiled to the same evaluator by {@link definePolicy}.
 * @param spec - message, action, variables and conditions
 * @returns the rule definition
 * @throws PolicyError `POLICY_TYPE` when a flow names an unknown variable
 * @example
 * ```ts
 * const noExfiltration = rule({
 *   message: 'web content flowed into an outside email',
 *   vars: { out: toolOutput('fetch_url'), call: toolCall('send_email', { to: /@(?!corp\.com$)/ }) },
 *   when: [flow('out', 'call')],
 * });
 * ```
 */
export function rule<Vars extends Record<string, EventMatcher>>(
  spec: RuleSpec<Vars>,
): RuleDefinition {
  const flows: FlowCondition[] = [];
  const predicates: ((bindings: Record<string, unknown>) => boolean)[] = [];
  for (const condition of spec.when ?? []) {
    if (typeof condition === 'function') {
      predicates.push(condition as unknown as (bindings: Record<string, unknown>) => boolean);
      continue;
    }
    for (const name of [condition.from, condition.to]) {
      if (!Object.hasOwn(spec.vars, name)) {
        throw new PolicyError({
          code: 'POLICY_TYPE',
          message: `rule ${JSON.stringify(spec.message)}: flow names ${JSON.stringify(name)}, which is not a variable; expected one of ${Object.keys(spec.vars).join(', ')}`,
        });
      }
    }
    flows.push(condition);
  }
  return {
    message: spec.message,
    name: spec.name,
    action: spec.action ?? 'block',
    vars: spec.vars,
    flows,
    predicates,
  };
}
