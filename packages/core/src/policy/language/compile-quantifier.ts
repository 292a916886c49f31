import { allMembersHold, enumerateMembers } from '../runtime/member-variables.js';
import { truthy } from '../runtime/policy-values.js';
import {
  type EnumerationPlan,
  type EvalContext,
  enumerateAssignments,
  filterCandidates,
  resetBindings,
} from '../runtime/rule-plan.js';
import {
  type Block,
  type CompileContext,
  type CompiledExpr,
  type Env,
  Scope,
  typeError,
} from './compile-context.js';
import { compileExpression } from './compile-expression.js';
import { declareBlock } from './declare-block.js';
import { planBlock } from './plan-block.js';
import type { Expr, Statement } from './policy-ast.js';

/**
 * @internal Compiles a quantifier block (`forall:`, `exists:`, `count(min, max):`, optionally
 * negated) to a condition of the enclosing block. Its variables range over the whole trace, so it
 * is a whole-trace condition: incremental checks re-run the rule that holds it.
 */
export function compileQuantifier(
  context: CompileContext,
  statement: Extract<Statement, { kind: 'quantifier' }>,
  outerScope: Scope,
  outerEnv: Env,
): CompiledExpr {
  const scope = new Scope(outerScope);
  const block: Block = { variables: [], members: [] };
  const env: Env = { frame: outerEnv.frame, declarations: true };
  declareBlock(statement.body, scope, block, env);
  const forall = statement.quantifier === 'forall';
  const { plan, outer, tests } = planBlock(context, statement.body, scope, block, env, !forall);
  const bound = (expr: Expr | undefined, what: string): CompiledExpr | undefined => {
    if (expr === undefined) return undefined;
    const c = compileExpression(context, expr, outerScope, {
      frame: outerEnv.frame,
      declarations: false,
    });
    for (const dep of c.deps) outer.add(dep);
    if (expr.kind === 'literal' && typeof expr.value !== 'number')
      typeError(`count ${what}= must be a number`, expr);
    return c;
  };
  const min = bound(statement.min, 'min');
  const max = bound(statement.max, 'max');
  const resetSlots = plan.resetSlots;
  let holds: (ctx: EvalContext) => boolean;
  const members = plan.members;
  if (forall) {
    const all = tests.map((t) => t.fn);
    const check = (ctx: EvalContext): boolean => {
      resetBindings(ctx, resetSlots);
      for (const t of all) if (!truthy(t(ctx))) return false;
      return members.length === 0 || allMembersHold(members, ctx, resetSlots);
    };
    const domainPlan: EnumerationPlan = {
      variables: plan.variables.map((v) => ({
        ...v,
        toolName: undefined,
        filters: [],
        wholeTraceFilters: [],
      })),
      members: [],
      flows: [],
      joins: [],
      constants: [],
      resetSlots,
    };
    holds = (ctx) => {
      if (domainPlan.variables.length === 0) return check(ctx);
      let ok = true;
      const candidates = domainPlan.variables.map((v) => ctx.run.store.candidates(v.type));
      const lo = candidates.map(() => 0);
      const hi = candidates.map(() => Number.POSITIVE_INFINITY);
      enumerateAssignments(domainPlan, candidates, lo, hi, ctx, () => {
        ok = check(ctx);
        return ok;
      });
      return ok;
    };
  } else {
    const exists = statement.quantifier === 'exists';
    holds = (ctx) => {
      const low = exists ? 1 : min === undefined ? 0 : Number(min.fn(ctx));
      const high = exists
        ? Number.POSITIVE_INFINITY
        : max === undefined
          ? Number.POSITIVE_INFINITY
          : Number(max.fn(ctx));
      resetBindings(ctx, resetSlots);
      for (const c of plan.constants) if (!c(ctx)) return low <= 0 && 0 <= high;
      let count = 0;
      const one = (): boolean => {
        count++;
        return count <= high && (Number.isFinite(high) || count < low);
      };
      // each satisfying assignment of the block's events and members counts once
      const assignment =
        members.length === 0 ? one : () => enumerateMembers(members, ctx, resetSlots, one);
      if (plan.variables.length === 0) assignment();
      else {
        const candidates = plan.variables.map((v) => filterCandidates(v, ctx, resetSlots));
        const lo = candidates.map(() => 0);
        const hi = candidates.map(() => Number.POSITIVE_INFINITY);
        enumerateAssignments(plan, candidates, lo, hi, ctx, assignment);
      }
      return low <= count && count <= high;
    };
  }
  const negated = statement.negated;
  // the block overwrites its own slots; outer bindings are recomputed lazily afterwards
  return {
    fn: (ctx) => {
      const result = holds(ctx);
      resetBindings(ctx, resetSlots);
      return negated ? !result : result;
    },
    deps: outer,
    wholeTrace: true,
  };
}
