import type { PolicyEventType } from '../policy-types.js';
import { someMembersHold } from '../runtime/member-variables.js';
import { matchesType } from '../runtime/operators.js';
import { type EvalContext, UNSET } from '../runtime/rule-plan.js';
import {
  type Block,
  type CompileContext,
  type Env,
  eventTypes,
  Frame,
  type PredicateInfo,
  Scope,
  typeError,
} from './compile-context.js';
import { declareBlock } from './declare-block.js';
import { planBlock } from './plan-block.js';
import type { Position } from './policy-ast.js';

/**
 * @internal Compiles a predicate on first use (predicates may call each other, in any order, but
 * not themselves). A call runs in a frame of its own; a parameter typed with an event type rejects
 * other values.
 */
export function compilePredicate(
  context: CompileContext,
  name: string,
  at: Position,
): PredicateInfo {
  const info = context.predicates.get(name) as PredicateInfo;
  if (info.state === 'done') return info;
  if (info.state === 'compiling')
    typeError(`predicate ${name} calls itself; recursion is not allowed`, at);
  info.state = 'compiling';
  const frame = new Frame();
  const scope = new Scope(undefined);
  const params = info.item.params.map((param) => {
    if (scope.names.has(param.name)) typeError(`parameter ${param.name} appears twice`, param);
    const slot = frame.allocate();
    scope.names.set(param.name, { kind: 'local', slot });
    const eventType =
      param.type !== undefined && eventTypes.has(param.type)
        ? (param.type as PolicyEventType)
        : undefined;
    return { slot, eventType };
  });
  const env: Env = { frame, declarations: false };
  const block: Block = { variables: [], members: [] };
  for (const statement of info.item.body) {
    if (statement.kind === 'quantifier')
      typeError('quantifier blocks are not allowed in predicates; use them in the rule', statement);
  }
  declareBlock(info.item.body, scope, block, env);
  // a predicate has no event variables: every line is a constant test or a member's test, and
  // it holds when some assignment of its members satisfies them (as in Invariant)
  const planned = planBlock(context, info.item.body, scope, block, env, false);
  const tests = planned.plan.constants;
  const members = planned.plan.members;
  const resetSlots = planned.plan.resetSlots;
  const size = frame.size;
  info.call = (ctx, args) => {
    const inner: EvalContext = {
      frame: new Array(size).fill(UNSET),
      ranges: ctx.ranges,
      run: ctx.run,
    };
    for (let k = 0; k < params.length; k++) {
      const param = params[k] as { slot: number; eventType: PolicyEventType | undefined };
      const value = args[k];
      if (param.eventType !== undefined && !matchesType(value, param.eventType)) return false;
      inner.frame[param.slot] = value;
    }
    for (const t of tests) if (!t(inner)) return false;
    return members.length === 0 || someMembersHold(members, inner, resetSlots);
  };
  info.wholeTrace = planned.wholeTrace;
  info.state = 'done';
  return info;
}
