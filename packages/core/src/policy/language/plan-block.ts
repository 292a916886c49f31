import { someMembersHold } from '../runtime/member-variables.js';
import { truthy } from '../runtime/policy-values.js';
import type {
  EnumerationPlan,
  FlowConstraint,
  MemberStep,
  PlanVariable,
  Test,
} from '../runtime/rule-plan.js';
import { compileAddressedExpression } from './compile-addressed-expression.js';
import { compileBinding } from './compile-binding.js';
import {
  type BindingSymbol,
  type Block,
  type CompileContext,
  type CompiledExpr,
  type Env,
  memberDeclaration,
  type Scope,
  typeError,
  type VariableSymbol,
} from './compile-context.js';
import { compileExpression } from './compile-expression.js';
import { compileQuantifier } from './compile-quantifier.js';
import type { Expr, Statement } from './policy-ast.js';

/** @internal A block compiled to an enumeration plan (see {@link planBlock}). */
export interface PlannedBlock {
  plan: EnumerationPlan;
  wholeTrace: boolean;
  /** Variables of enclosing blocks that the block reads. */
  outer: Set<VariableSymbol>;
  /** The conditions that are neither flows nor member tests, compiled. */
  tests: CompiledExpr[];
}

/**
 * @internal Plans a block whose names `declareBlock` declared: each line becomes a flow
 * constraint between two variables, a filter of one variable (which may pick the variable's tool
 * index), a join of several, a constant, or a test of the typed member it reads last. With
 * `useIndexes` false (`forall:` blocks, predicates) lines are never turned into flows or indexes.
 */
export function planBlock(
  context: CompileContext,
  body: Statement[],
  scope: Scope,
  block: Block,
  env: Env,
  useIndexes: boolean,
): PlannedBlock {
  const variables: PlanVariable[] = block.variables.map((v) => ({
    name: v.name,
    type: v.type,
    slot: v.slot,
    toolName: undefined,
    filters: [],
    wholeTraceFilters: [],
  }));
  const members: MemberStep[] = block.members.map((m) => ({
    name: m.name,
    type: m.member?.type ?? 'Event',
    slot: m.slot,
    locationSlot: m.member?.locationSlot ?? m.slot,
    collection: () => [null, undefined],
    tests: [],
  }));
  const plan: EnumerationPlan = {
    variables,
    members,
    flows: [],
    joins: [],
    constants: [],
    resetSlots: env.frame.bindingSlots,
  };
  const outer = new Set<VariableSymbol>();
  const tests: CompiledExpr[] = [];
  /** Event variables of this block that the members' collections and conditions read. */
  const memberEventDeps = new Set<VariableSymbol>();
  /** Whether a member's collection or condition reads the whole trace (a quantifier block). */
  let membersWholeTrace = false;
  let wholeTrace = false;
  for (const statement of body) {
    let compiled: CompiledExpr;
    let expr: Expr | undefined;
    const member = memberDeclaration(statement);
    if (member !== undefined) {
      const symbol = scope.names.get(member.declaration.name) as VariableSymbol;
      const collection = compileAddressedExpression(context, member.collection, scope, env);
      for (const dep of collection.compiled.deps) {
        if (dep.block !== block) outer.add(dep);
        else if (dep.member === undefined) memberEventDeps.add(dep);
        else if (dep.member !== undefined && dep.index >= symbol.index) {
          typeError(
            `${symbol.name} ranges over ${dep.name}, which is bound on the same or a later line; put the line binding ${dep.name} first`,
            member.collection,
          );
        }
      }
      wholeTrace ||= collection.compiled.wholeTrace;
      membersWholeTrace ||= collection.compiled.wholeTrace;
      (members[symbol.index] as MemberStep).collection = collection.fn;
      continue;
    }
    if (statement.kind === 'binding') {
      const symbol = scope.names.get(statement.name) as BindingSymbol;
      const c = compileBinding(context, symbol);
      for (const dep of c.deps) if (dep.block !== block) outer.add(dep);
      wholeTrace ||= c.wholeTrace;
      continue;
    }
    if (statement.kind === 'quantifier') {
      compiled = compileQuantifier(context, statement, scope, env);
    } else {
      expr = statement.expr;
      const flows = useIndexes ? flowsOf(expr, scope, block) : undefined;
      compiled = compileExpression(context, expr, scope, env);
      if (flows !== undefined) {
        plan.flows.push(...flows);
        continue;
      }
    }
    wholeTrace ||= compiled.wholeTrace;
    const own: VariableSymbol[] = [];
    let lastMember = -1;
    for (const dep of compiled.deps) {
      if (dep.block !== block) outer.add(dep);
      else if (dep.member !== undefined) lastMember = Math.max(lastMember, dep.index);
      else own.push(dep);
    }
    const fn = compiled.fn;
    const test: Test = (ctx) => truthy(fn(ctx));
    if (lastMember >= 0) {
      // tested as soon as its last member is bound, for each element
      (members[lastMember] as MemberStep).tests.push(test);
      membersWholeTrace ||= compiled.wholeTrace;
      for (const dep of own) memberEventDeps.add(dep);
      continue;
    }
    tests.push(compiled);
    if (
      expr !== undefined &&
      (expr.kind === 'declaration' || expr.kind === 'name') &&
      own.length === 1
    )
      continue;
    if (own.length === 0) plan.constants.push(test);
    else if (own.length === 1) {
      const variable = variables[(own[0] as VariableSymbol).index] as PlanVariable;
      if (compiled.wholeTrace) {
        // a quantifier block: its value for an event changes as the trace grows, so it is not
        // one of the filters a session runs once per event and keeps
        variable.wholeTraceFilters.push(test);
        continue;
      }
      variable.filters.push(test);
      if (
        useIndexes &&
        expr?.kind === 'pattern' &&
        !expr.negated &&
        expr.pattern.plainName &&
        variable.toolName === undefined &&
        (variable.type === 'ToolCall' || variable.type === 'ToolOutput') &&
        (expr.subject.kind === 'name' || expr.subject.kind === 'declaration')
      ) {
        variable.toolName = expr.pattern.name;
        // the index now selects exactly the events this line accepts
        const subject = scope.lookup(expr.subject.name);
        if (
          expr.pattern.arguments === undefined &&
          subject?.kind === 'variable' &&
          subject.block === block
        )
          variable.filters.pop();
      }
    } else {
      let mask = 0;
      for (const dep of own) mask |= 1 << dep.index;
      plan.joins.push({ mask, test });
    }
  }
  if (members.length > 0 && memberEventDeps.size === 1) {
    // the members depend on one event: keep only events with at least one satisfying element,
    // so pairs with other variables are enumerated only for those (and monitors cache it, unless
    // the members read the whole trace)
    const only = [...memberEventDeps][0] as VariableSymbol;
    const resetSlots = plan.resetSlots;
    const variable = variables[only.index] as PlanVariable;
    (membersWholeTrace ? variable.wholeTraceFilters : variable.filters).push(
      // when a violation is described the members are rebound to its own elements: marking
      // ranges here would mark another element's
      (ctx) => ctx.ranges !== undefined || someMembersHold(members, ctx, resetSlots),
    );
  }
  return { plan, wholeTrace, outer, tests };
}

/** The flow constraints of a condition like `(a: X) -> (b: Y)`, or undefined if it is not one. */
function flowsOf(expr: Expr, scope: Scope, block: Block): FlowConstraint[] | undefined {
  if (expr.kind !== 'compare' || !expr.operators.every((o) => o === '->' || o === '~>'))
    return undefined;
  const indexes: number[] = [];
  for (const operand of expr.operands) {
    if (operand.kind !== 'name' && operand.kind !== 'declaration') return undefined;
    const symbol = scope.lookup(operand.name);
    if (symbol?.kind !== 'variable' || symbol.block !== block || symbol.member !== undefined)
      return undefined;
    indexes.push(symbol.index);
  }
  const flows: FlowConstraint[] = [];
  for (let k = 0; k < expr.operators.length; k++) {
    const from = indexes[k] as number;
    const to = indexes[k + 1] as number;
    if (from === to) return undefined;
    flows.push({ from, to, immediate: expr.operators[k] === '~>' });
  }
  return flows;
}
