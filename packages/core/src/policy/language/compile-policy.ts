import type { PolicyAction, PolicyEventType } from '../policy-types.js';
import {
  allMembersHold,
  enumerateMembers,
  memberValueTypes,
  someMembersHold,
} from '../runtime/member-variables.js';
import { matchesType } from '../runtime/operators.js';
import { builtins } from '../runtime/policy-functions.js';
import { truthy } from '../runtime/policy-values.js';
import {
  type EnumerationPlan,
  type EvalContext,
  enumerateAssignments,
  type FlowConstraint,
  filterCandidates,
  type MemberStep,
  type PlanVariable,
  type RulePlan,
  resetBindings,
  type Test,
  UNSET,
} from '../runtime/rule-plan.js';
import {
  type BindingSymbol,
  type Block,
  type CompiledExpr,
  type CompileOptions,
  type Env,
  eventTypes,
  Frame,
  maxVariables,
  memberDeclaration,
  type PredicateInfo,
  Scope,
  typeError,
  type VariableSymbol,
} from './compile-context.js';
import { ExpressionCompiler } from './compile-expression.js';
import type { Expr, Position, Statement, TopLevel } from './policy-ast.js';
import { checkImport, type ImportedNames } from './policy-imports.js';

export type { CompileOptions } from './compile-context.js';

/**
 * Compiles the syntax tree of a policy into rule plans: rules, their blocks (event variables,
 * typed members, flows, filters, joins), quantifier blocks and predicates. Expressions are
 * compiled by an {@link ExpressionCompiler} that calls back for predicates.
 * @internal
 */
export class PolicyCompiler {
  private readonly predicates = new Map<string, PredicateInfo>();
  private readonly imported: ImportedNames = { json: false, aliases: new Map() };
  private readonly expressions: ExpressionCompiler;

  constructor(
    private readonly items: TopLevel[],
    private readonly options: CompileOptions,
  ) {
    this.expressions = new ExpressionCompiler({
      options,
      imported: this.imported,
      isPredicate: (name) => this.predicates.has(name),
      predicate: (name, at) => this.predicate(name, at),
    });
    for (const item of items) {
      if (item.kind === 'import') checkImport(item, this.imported);
      else if (item.kind === 'predicate') {
        if (this.predicates.has(item.name) || this.expressions.globals.has(item.name)) {
          typeError(`${item.name} is defined twice; give the predicate another name`, item);
        }
        if (Object.hasOwn(builtins, item.name))
          typeError(`${item.name} is a built-in function; give the predicate another name`, item);
        this.predicates.set(item.name, { item, state: 'new', call: undefined, wholeTrace: false });
      } else if (item.kind === 'binding') {
        if (this.predicates.has(item.name) || this.expressions.globals.has(item.name)) {
          typeError(`${item.name} is defined twice; give the binding another name`, item);
        }
        if (item.name === 'input')
          typeError('input is the policy parameters and cannot be assigned', item);
        this.expressions.declareGlobal(item);
      }
    }
  }

  compile(): RulePlan[] {
    for (const name of this.predicates.keys()) this.predicate(name, { line: 1, column: 1 });
    for (const name of this.expressions.globals.keys())
      this.expressions.global(name, { line: 1, column: 1 });
    const rules: RulePlan[] = [];
    for (const item of this.items)
      if (item.kind === 'rule') rules.push(this.rule(item, rules.length));
    return rules;
  }

  private rule(item: Extract<TopLevel, { kind: 'rule' }>, index: number): RulePlan {
    const frame = new Frame();
    const scope = new Scope(undefined);
    const block: Block = { variables: [], members: [] };
    const env: Env = { frame, declarations: true };
    this.prepass(item.body, scope, block, env);
    const planned = this.planBlock(item.body, scope, block, env, true);
    const argExprs = item.args.map((arg) =>
      this.expressions.expr(arg, scope, { frame, declarations: false }),
    );
    const namedExprs = item.namedArgs.map((arg) => ({
      name: arg.name,
      value: this.expressions.expr(arg.value, scope, { frame, declarations: false }),
    }));
    const name = item.name;
    const configured =
      this.options.actions[item.message] ??
      (name !== undefined ? this.options.actions[name] : undefined) ??
      this.options.actions[index];
    const action: PolicyAction =
      configured ?? (item.action?.value as PolicyAction | undefined) ?? 'block';
    return {
      ...planned.plan,
      index,
      name,
      message: item.message,
      action,
      frameSize: frame.size,
      wholeTrace: planned.wholeTrace || block.variables.length === 0,
      describe:
        argExprs.length === 0 && namedExprs.length === 0
          ? undefined
          : (ctx) => ({
              args: argExprs.map((a) => a.fn(ctx)),
              namedArgs: Object.fromEntries(namedExprs.map((n) => [n.name, n.value.fn(ctx)])),
            }),
    };
  }

  /** Declares a typed member `(name: T) in ...` of a block. */
  private declareMember(
    declaration: Extract<Expr, { kind: 'declaration' }>,
    statement: Statement,
    scope: Scope,
    block: Block,
    env: Env,
  ): void {
    const { name, type } = declaration;
    if (!memberValueTypes.has(type) && !eventTypes.has(type)) {
      typeError(
        `unknown member type ${type}; expected str, dict, int, float, bool, list or an event type`,
        declaration.typePosition,
      );
    }
    if (scope.lookup(name) !== undefined)
      typeError(`${name} is already defined; a typed member needs a name of its own`, declaration);
    if (block.members.length >= maxVariables)
      typeError(`too many typed members; at most ${maxVariables} per block`, declaration);
    const symbol: VariableSymbol = {
      kind: 'variable',
      name,
      type: eventTypes.has(type) ? (type as PolicyEventType) : 'Event',
      slot: env.frame.allocate(),
      block,
      index: block.members.length,
      member: { type, locationSlot: env.frame.allocate(), statement },
    };
    block.members.push(symbol);
    scope.names.set(name, symbol);
  }

  /** Declares the typed variables and bindings of a block (so later lines may be referenced first). */
  private prepass(body: Statement[], scope: Scope, block: Block, env: Env): void {
    const visit = (expr: Expr): void => {
      switch (expr.kind) {
        case 'declaration': {
          if (!env.declarations) {
            typeError(
              `a typed variable (${expr.name}: ${expr.type}) can only be declared in a rule body or quantifier block`,
              expr,
            );
          }
          if (!eventTypes.has(expr.type)) {
            typeError(
              memberValueTypes.has(expr.type)
                ? `a typed member (${expr.name}: ${expr.type}) must be the left side of 'in' on a line of its own, like (${expr.name}: ${expr.type}) in msg.content.splitlines()`
                : `unknown event type ${expr.type}; expected Message, ToolCall, ToolOutput, Tool or Event`,
              expr.typePosition,
            );
          }
          const existing = scope.lookup(expr.name);
          if (existing !== undefined) {
            if (existing.kind === 'variable' && existing.member !== undefined)
              typeError(
                `${expr.name} is already a typed member; choose another variable name`,
                expr,
              );
            if (existing.kind !== 'variable')
              typeError(
                `${expr.name} is already defined as a binding; choose another variable name`,
                expr,
              );
            if (existing.type !== expr.type) {
              typeError(
                `${expr.name} is already declared as ${existing.type}; expected the same type, found ${expr.type}`,
                expr.typePosition,
              );
            }
            return;
          }
          if (block.variables.length >= maxVariables)
            typeError(`too many quantified variables; at most ${maxVariables} per block`, expr);
          const symbol: VariableSymbol = {
            kind: 'variable',
            name: expr.name,
            type: expr.type as PolicyEventType,
            slot: env.frame.allocate(),
            block,
            index: block.variables.length,
            member: undefined,
          };
          block.variables.push(symbol);
          scope.names.set(expr.name, symbol);
          return;
        }
        case 'list':
          expr.items.forEach(visit);
          return;
        case 'dict':
          for (const entry of expr.entries) {
            visit(entry.key);
            visit(entry.value);
          }
          return;
        case 'comprehension':
          visit(expr.iterable);
          return;
        case 'unary':
          visit(expr.operand);
          return;
        case 'binary':
        case 'logical':
          visit(expr.left);
          visit(expr.right);
          return;
        case 'compare':
          expr.operands.forEach(visit);
          return;
        case 'pattern':
          visit(expr.subject);
          return;
        case 'member':
          visit(expr.object);
          return;
        case 'index':
          visit(expr.object);
          visit(expr.index);
          return;
        case 'call':
          visit(expr.callee);
          expr.args.forEach(visit);
          for (const named of expr.namedArgs) visit(named.value);
          return;
        default:
          return;
      }
    };
    for (const statement of body) {
      const member = memberDeclaration(statement);
      if (member !== undefined) {
        this.declareMember(member.declaration, statement, scope, block, env);
        visit(member.collection);
        continue;
      }
      if (statement.kind === 'binding') {
        if (statement.name === 'input')
          typeError('input is the policy parameters and cannot be assigned', statement);
        const existing = scope.names.get(statement.name);
        if (existing !== undefined)
          typeError(
            `${statement.name} is already defined in this block; choose another name`,
            statement,
          );
        visit(statement.expr);
        const slot = env.frame.allocate();
        const locationSlot = env.frame.allocate();
        env.frame.bindingSlots.push(slot, locationSlot);
        scope.names.set(statement.name, {
          kind: 'binding',
          name: statement.name,
          slot,
          locationSlot,
          located: undefined,
          expr: statement.expr,
          scope,
          frame: env.frame,
          state: 'new',
          compiled: undefined,
          at: { line: statement.line, column: statement.column },
        });
      } else if (statement.kind === 'condition') {
        visit(statement.expr);
      }
    }
  }

  /** The flow constraints of a condition like `(a: X) -> (b: Y)`, or undefined if it is not one. */
  private flowsOf(expr: Expr, scope: Scope, block: Block): FlowConstraint[] | undefined {
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

  private planBlock(
    body: Statement[],
    scope: Scope,
    block: Block,
    env: Env,
    useIndexes: boolean,
  ): {
    plan: EnumerationPlan;
    wholeTrace: boolean;
    outer: Set<VariableSymbol>;
    tests: CompiledExpr[];
  } {
    const variables: PlanVariable[] = block.variables.map((v) => ({
      name: v.name,
      type: v.type,
      slot: v.slot,
      toolName: undefined,
      filters: [],
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
    let wholeTrace = false;
    for (const statement of body) {
      let compiled: CompiledExpr;
      let expr: Expr | undefined;
      const member = memberDeclaration(statement);
      if (member !== undefined) {
        const symbol = scope.names.get(member.declaration.name) as VariableSymbol;
        const collection = this.expressions.addressed(member.collection, scope, env);
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
        (members[symbol.index] as MemberStep).collection = collection.fn;
        continue;
      }
      if (statement.kind === 'binding') {
        const symbol = scope.names.get(statement.name) as BindingSymbol;
        const c = this.expressions.binding(symbol);
        for (const dep of c.deps) if (dep.block !== block) outer.add(dep);
        wholeTrace ||= c.wholeTrace;
        continue;
      }
      if (statement.kind === 'quantifier') {
        compiled = this.quantifier(statement, scope, env);
      } else {
        expr = statement.expr;
        const flows = useIndexes ? this.flowsOf(expr, scope, block) : undefined;
        compiled = this.expressions.expr(expr, scope, env);
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
      // so pairs with other variables are enumerated only for those (and monitors cache it)
      const only = [...memberEventDeps][0] as VariableSymbol;
      const resetSlots = plan.resetSlots;
      (variables[only.index] as PlanVariable).filters.push(
        // when a violation is described the members are rebound to its own elements: marking
        // ranges here would mark another element's
        (ctx) => ctx.ranges !== undefined || someMembersHold(members, ctx, resetSlots),
      );
    }
    return { plan, wholeTrace, outer, tests };
  }

  private quantifier(
    statement: Extract<Statement, { kind: 'quantifier' }>,
    outerScope: Scope,
    outerEnv: Env,
  ): CompiledExpr {
    const scope = new Scope(outerScope);
    const block: Block = { variables: [], members: [] };
    const env: Env = { frame: outerEnv.frame, declarations: true };
    this.prepass(statement.body, scope, block, env);
    const forall = statement.quantifier === 'forall';
    const { plan, outer, tests } = this.planBlock(statement.body, scope, block, env, !forall);
    const bound = (expr: Expr | undefined, what: string): CompiledExpr | undefined => {
      if (expr === undefined) return undefined;
      const c = this.expressions.expr(expr, outerScope, {
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
        variables: plan.variables.map((v) => ({ ...v, toolName: undefined, filters: [] })),
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

  private predicate(name: string, at: Position): PredicateInfo {
    const info = this.predicates.get(name) as PredicateInfo;
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
        typeError(
          'quantifier blocks are not allowed in predicates; use them in the rule',
          statement,
        );
    }
    this.prepass(info.item.body, scope, block, env);
    // a predicate has no event variables: every line is a constant test or a member's test, and
    // it holds when some assignment of its members satisfies them (as in Invariant)
    const planned = this.planBlock(info.item.body, scope, block, env, false);
    const tests = planned.plan.constants;
    const members = planned.plan.members;
    const resetSlots = planned.plan.resetSlots;
    const wholeTrace = planned.wholeTrace;
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
    info.wholeTrace = wholeTrace;
    info.state = 'done';
    return info;
  }
}
