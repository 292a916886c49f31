import { detectPii } from '../detectors/detect-pii.js';
import { detectSecrets } from '../detectors/detect-secrets.js';
import { PolicyError } from '../policy-error.js';
import type { PolicyAction, PolicyEventType } from '../policy-types.js';
import { isRecord } from '../runtime/is-record.js';
import { allMembersHold, enumerateMembers, memberValueTypes } from '../runtime/member-variables.js';
import { PolicyEvent } from '../runtime/policy-event.js';
import {
  builtins,
  callLocatedMethod,
  callMethod,
  locatedMethods,
  methodNames,
} from '../runtime/policy-functions.js';
import { compilePolicyRegex, type PolicyRegex } from '../runtime/policy-regex.js';
import {
  compareOrder,
  getIndex,
  getMember,
  isForbiddenMember,
  parseJsonText,
  textsOf,
  toText,
  truthy,
  valuesEqual,
} from '../runtime/policy-values.js';
import {
  type Compiled,
  type EnumerationPlan,
  type EvalContext,
  enumerateAssignments,
  type FlowConstraint,
  filterCandidates,
  type MemberStep,
  type PlanVariable,
  type PolicyFunction,
  type RulePlan,
  resetBindings,
  type Test,
  UNSET,
} from '../runtime/rule-plan.js';
import { elementLocation, isSpan, markRange } from '../runtime/value-locations.js';
import type {
  Expr,
  PatternValue,
  Position,
  Statement,
  ToolPattern,
  TopLevel,
} from './policy-ast.js';
import { checkImport, type ImportedNames } from './policy-imports.js';

const eventTypes: ReadonlySet<string> = new Set([
  'Message',
  'ToolCall',
  'ToolOutput',
  'Tool',
  'Event',
]);
const maxVariables = 30;

interface Block {
  variables: VariableSymbol[];
  /** Typed members `(x: T) in ...`, in line order. */
  members: VariableSymbol[];
}

interface VariableSymbol {
  kind: 'variable';
  name: string;
  type: PolicyEventType;
  slot: number;
  block: Block;
  /** Index in the block's variables, or in its members for a member. */
  index: number;
  /** Set for a typed member: its element type and the slot of the element's location. */
  member: { type: string; locationSlot: number; statement: Statement } | undefined;
}

interface BindingSymbol {
  kind: 'binding';
  name: string;
  slot: number;
  /** Slot of the bound value's location in the trace (a binding keeps its address). */
  locationSlot: number;
  expr: Expr;
  scope: Scope;
  frame: Frame;
  state: 'new' | 'compiling' | 'done';
  compiled: CompiledExpr | undefined;
  located: ((ctx: EvalContext) => [unknown, string | undefined]) | undefined;
  at: Position;
}

interface LocalSymbol {
  kind: 'local';
  slot: number;
}

type NameSymbol = VariableSymbol | BindingSymbol | LocalSymbol;

interface CompiledExpr {
  fn: Compiled;
  deps: Set<VariableSymbol>;
  wholeTrace: boolean;
}

class Scope {
  readonly names = new Map<string, NameSymbol>();
  constructor(readonly parent: Scope | undefined) {}
  lookup(name: string): NameSymbol | undefined {
    return this.names.get(name) ?? this.parent?.lookup(name);
  }
}

class Frame {
  size = 0;
  readonly bindingSlots: number[] = [];
  allocate(): number {
    return this.size++;
  }
}

interface Env {
  frame: Frame;
  /** Typed declarations `(x: T)` are allowed here (rule bodies and quantifier blocks). */
  declarations: boolean;
}

/** @internal Options the compiler needs. */
export interface CompileOptions {
  actions: Readonly<Record<string | number, PolicyAction>>;
  functions: Readonly<Record<string, PolicyFunction>>;
}

interface PredicateInfo {
  item: Extract<TopLevel, { kind: 'predicate' }>;
  state: 'new' | 'compiling' | 'done';
  call: ((ctx: EvalContext, args: unknown[]) => boolean) | undefined;
  wholeTrace: boolean;
}

interface GlobalInfo {
  item: Extract<TopLevel, { kind: 'binding' }>;
  state: 'new' | 'compiling' | 'done';
  evaluate: Compiled | undefined;
}

function typeError(message: string, at: Position): never {
  throw new PolicyError({ code: 'POLICY_TYPE', message, line: at.line, column: at.column });
}

const constant = (value: unknown): CompiledExpr => ({
  fn: () => value,
  deps: new Set(),
  wholeTrace: false,
});

function union(parts: CompiledExpr[]): { deps: Set<VariableSymbol>; wholeTrace: boolean } {
  const deps = new Set<VariableSymbol>();
  let wholeTrace = false;
  for (const part of parts) {
    for (const dep of part.deps) deps.add(dep);
    wholeTrace ||= part.wholeTrace;
  }
  return { deps, wholeTrace };
}

function contains(
  container: unknown,
  item: unknown,
  ctx: EvalContext,
  address: string | undefined,
): boolean {
  if (container === null || container === undefined) return false;
  if (typeof item === 'string' && typeof container === 'string' && ctx.ranges === undefined)
    return container.includes(item);
  if (typeof item === 'string') {
    const isChunks =
      Array.isArray(container) &&
      container.length > 0 &&
      container.every(
        (c) =>
          typeof c === 'object' && c !== null && typeof (c as { type?: unknown }).type === 'string',
      );
    if (typeof container === 'string' || container instanceof PolicyEvent || isChunks) {
      const pieces =
        typeof container === 'string'
          ? [{ text: container, address }]
          : container instanceof PolicyEvent
            ? textsOf(container, address)
            : (container as { type: string; text?: unknown }[]).flatMap((chunk, i) =>
                chunk.type === 'text' && typeof chunk.text === 'string'
                  ? [
                      {
                        text: chunk.text,
                        address: address === undefined ? undefined : `${address}.${i}.text`,
                      },
                    ]
                  : [],
              );
      let found = false;
      for (const piece of pieces) {
        let at = piece.text.indexOf(item);
        if (at < 0) continue;
        found = true;
        if (ctx.ranges === undefined) return true;
        while (at >= 0 && piece.address !== undefined && item !== '') {
          markRange(ctx.ranges, piece.address, at, at + item.length);
          at = piece.text.indexOf(item, at + item.length);
        }
      }
      return found;
    }
  }
  if (Array.isArray(container)) return container.some((c) => valuesEqual(c, item));
  if (typeof container === 'object' && !(container instanceof PolicyEvent)) {
    return typeof item === 'string' && Object.hasOwn(container, item);
  }
  return false;
}

function arithmetic(operator: string, a: unknown, b: unknown): unknown {
  if (operator === '+') {
    if (typeof a === 'number' && typeof b === 'number') return a + b;
    if (typeof a === 'string' && typeof b === 'string') return a + b;
    if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
    return null;
  }
  if (operator === '*') {
    if (typeof a === 'number' && typeof b === 'number') return a * b;
    if (typeof a === 'string' && typeof b === 'number')
      return b > 0 && b < 1e6 ? a.repeat(Math.floor(b)) : '';
    return null;
  }
  if (typeof a !== 'number' || typeof b !== 'number') return null;
  switch (operator) {
    case '**':
      return a === 0 && b < 0 ? null : a ** b;
    case '-':
      return a - b;
    case '/':
      return b === 0 ? null : a / b;
    case '//':
      return b === 0 ? null : Math.floor(a / b);
    default:
      return b === 0 ? null : a - b * Math.floor(a / b);
  }
}

/** Compiles the syntax tree of a policy into rule plans. @internal */
export class PolicyCompiler {
  private readonly predicates = new Map<string, PredicateInfo>();
  private readonly globals = new Map<string, GlobalInfo>();
  private readonly imported: ImportedNames = { json: false, aliases: new Map() };

  constructor(
    private readonly items: TopLevel[],
    private readonly options: CompileOptions,
  ) {
    for (const item of items) {
      if (item.kind === 'import') checkImport(item, this.imported);
      else if (item.kind === 'predicate') {
        if (this.predicates.has(item.name) || this.globals.has(item.name)) {
          typeError(`${item.name} is defined twice; give the predicate another name`, item);
        }
        if (Object.hasOwn(builtins, item.name))
          typeError(`${item.name} is a built-in function; give the predicate another name`, item);
        this.predicates.set(item.name, { item, state: 'new', call: undefined, wholeTrace: false });
      } else if (item.kind === 'binding') {
        if (this.predicates.has(item.name) || this.globals.has(item.name)) {
          typeError(`${item.name} is defined twice; give the binding another name`, item);
        }
        if (item.name === 'input')
          typeError('input is the policy parameters and cannot be assigned', item);
        this.globals.set(item.name, { item, state: 'new', evaluate: undefined });
      }
    }
  }

  compile(): RulePlan[] {
    for (const name of this.predicates.keys()) this.predicate(name, { line: 1, column: 1 });
    for (const name of this.globals.keys()) this.global(name, { line: 1, column: 1 });
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
    const argExprs = item.args.map((arg) => this.expr(arg, scope, { frame, declarations: false }));
    const namedExprs = item.namedArgs.map((arg) => ({
      name: arg.name,
      value: this.expr(arg.value, scope, { frame, declarations: false }),
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
        const collection = this.addressed(member.collection, scope, env);
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
        const c = this.binding(symbol);
        for (const dep of c.deps) if (dep.block !== block) outer.add(dep);
        wholeTrace ||= c.wholeTrace;
        continue;
      }
      if (statement.kind === 'quantifier') {
        compiled = this.quantifier(statement, scope, env);
      } else {
        expr = statement.expr;
        const flows = useIndexes ? this.flowsOf(expr, scope, block) : undefined;
        compiled = this.expr(expr, scope, env);
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
        (ctx) =>
          ctx.ranges !== undefined || !enumerateMembers(members, ctx, resetSlots, () => false),
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
      const c = this.expr(expr, outerScope, { frame: outerEnv.frame, declarations: false });
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

  private binding(symbol: BindingSymbol): CompiledExpr {
    if (symbol.state === 'done') return symbol.compiled as CompiledExpr;
    if (symbol.state === 'compiling')
      typeError(`binding ${symbol.name} refers to itself`, symbol.at);
    symbol.state = 'compiling';
    const located = this.addressed(symbol.expr, symbol.scope, {
      frame: symbol.frame,
      declarations: true,
    });
    const inner = located.compiled;
    const slot = symbol.slot;
    const locationSlot = symbol.locationSlot;
    const evaluate = inner.fn;
    const evaluateLocated = located.fn;
    symbol.compiled = {
      fn: (ctx) => {
        const cached = ctx.frame[slot];
        if (cached !== UNSET) return cached;
        const value = evaluate(ctx);
        ctx.frame[slot] = value;
        return value;
      },
      deps: inner.deps,
      wholeTrace: inner.wholeTrace,
    };
    // the location is computed only when something asks for it (ranges, members, detectors)
    symbol.located = (ctx) => {
      if (ctx.frame[locationSlot] === UNSET) {
        const [value, location] = evaluateLocated(ctx);
        ctx.frame[slot] = value;
        ctx.frame[locationSlot] = location;
      }
      return [ctx.frame[slot], ctx.frame[locationSlot] as string | undefined];
    };
    symbol.state = 'done';
    return symbol.compiled;
  }

  private global(name: string, at: Position): Compiled {
    const info = this.globals.get(name) as GlobalInfo;
    if (info.state === 'done') return info.evaluate as Compiled;
    if (info.state === 'compiling') typeError(`binding ${name} refers to itself`, at);
    info.state = 'compiling';
    const frame = new Frame();
    const inner = this.expr(info.item.expr, new Scope(undefined), { frame, declarations: false });
    const evaluate = inner.fn;
    const size = frame.size;
    info.evaluate = (ctx) => {
      const globals = ctx.run.globals;
      if (globals.has(name)) return globals.get(name);
      const value = evaluate({
        frame: new Array(size).fill(UNSET),
        ranges: undefined,
        run: ctx.run,
      });
      globals.set(name, value);
      return value;
    };
    info.state = 'done';
    return info.evaluate;
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
      if (members.length === 0) return true;
      let found = false;
      enumerateMembers(members, inner, resetSlots, () => {
        found = true;
        return false;
      });
      return found;
    };
    info.wholeTrace = wholeTrace;
    info.state = 'done';
    return info;
  }

  /** Compiles an expression and also tracks the trace address of member chains on events. */
  private addressed(
    expr: Expr,
    scope: Scope,
    env: Env,
  ): { fn: (ctx: EvalContext) => [unknown, string | undefined]; compiled: CompiledExpr } {
    if (expr.kind === 'member' || expr.kind === 'index') {
      const object = this.addressed(expr.object, scope, env);
      const key = expr.kind === 'member' ? constant(expr.name) : this.expr(expr.index, scope, env);
      if (expr.kind === 'member' && isForbiddenMember(expr.name))
        typeError(`member ${expr.name} is not accessible in policies`, expr);
      const parts = union([object.compiled, key]);
      const get = expr.kind === 'member' ? getMember : getIndex;
      const fn = (ctx: EvalContext): [unknown, string | undefined] => {
        const [value, address] = object.fn(ctx);
        const k = key.fn(ctx);
        const result = get(value, k as string);
        if (Array.isArray(value) && typeof k === 'number' && Number.isInteger(k)) {
          return [result, elementLocation(value, k < 0 ? value.length + k : k, address)];
        }
        const keepAddress =
          address !== undefined &&
          !isSpan(address) &&
          typeof value !== 'string' &&
          (typeof k === 'string' || typeof k === 'number');
        return [result, keepAddress ? `${address}.${String(k)}` : undefined];
      };
      const objectValue = object.compiled.fn;
      const keyValue = key.fn;
      return {
        fn,
        compiled: { fn: (ctx) => get(objectValue(ctx), keyValue(ctx) as string), ...parts },
      };
    }
    if (expr.kind === 'name') {
      const symbol = scope.lookup(expr.name);
      if (symbol?.kind === 'binding') {
        const compiled = this.binding(symbol);
        return {
          fn: symbol.located as (ctx: EvalContext) => [unknown, string | undefined],
          compiled,
        };
      }
      if (symbol?.kind === 'variable' && symbol.member !== undefined) {
        const compiled = this.expr(expr, scope, env);
        const { slot } = symbol;
        const { locationSlot } = symbol.member;
        return {
          fn: (ctx) => [ctx.frame[slot], ctx.frame[locationSlot] as string | undefined],
          compiled,
        };
      }
    }
    if (
      expr.kind === 'call' &&
      expr.callee.kind === 'member' &&
      locatedMethods.has(expr.callee.name) &&
      expr.namedArgs.length === 0
    ) {
      // string methods whose results are parts of the receiver keep their place in the trace
      const compiled = this.expr(expr, scope, env);
      const receiver = this.addressed(expr.callee.object, scope, env);
      const args = expr.args.map((a) => this.expr(a, scope, env).fn);
      const name = expr.callee.name;
      return {
        fn: (ctx) => {
          const [target, location] = receiver.fn(ctx);
          return callLocatedMethod(
            target,
            location,
            name,
            args.map((a) => a(ctx)),
          );
        },
        compiled,
      };
    }
    const compiled = this.expr(expr, scope, env);
    const inner = compiled.fn;
    return {
      fn: (ctx) => {
        const value = inner(ctx);
        return [value, value instanceof PolicyEvent ? value.address : undefined];
      },
      compiled,
    };
  }

  private expr(expr: Expr, scope: Scope, env: Env): CompiledExpr {
    switch (expr.kind) {
      case 'literal':
        return constant(expr.value);
      case 'name':
      case 'declaration':
        return this.name(expr, scope, env);
      case 'list': {
        const items = expr.items.map((item) => this.expr(item, scope, env));
        const fns = items.map((i) => i.fn);
        return { fn: (ctx) => fns.map((f) => f(ctx)), ...union(items) };
      }
      case 'dict': {
        const entries = expr.entries.map((e) => ({
          key: this.expr(e.key, scope, env),
          value: this.expr(e.value, scope, env),
        }));
        return {
          fn: (ctx) =>
            Object.fromEntries(
              entries.map((e) => {
                const key = e.key.fn(ctx);
                return [typeof key === 'string' ? key : toText(key), e.value.fn(ctx)];
              }),
            ),
          ...union(entries.flatMap((e) => [e.key, e.value])),
        };
      }
      case 'comprehension': {
        const iterable = this.expr(expr.iterable, scope, env);
        const inner = new Scope(scope);
        const slot = env.frame.allocate();
        inner.names.set(expr.variable, { kind: 'local', slot });
        const innerEnv: Env = { frame: env.frame, declarations: false };
        const element = this.expr(expr.element, inner, innerEnv);
        const condition =
          expr.condition === undefined ? undefined : this.expr(expr.condition, inner, innerEnv);
        const parts = union([iterable, element, ...(condition === undefined ? [] : [condition])]);
        return {
          fn: (ctx) => {
            const source = iterable.fn(ctx);
            const items = Array.isArray(source)
              ? source
              : typeof source === 'string'
                ? [...source]
                : typeof source === 'object' && source !== null && !(source instanceof PolicyEvent)
                  ? Object.keys(source)
                  : [];
            const out: unknown[] = [];
            for (const item of items) {
              ctx.frame[slot] = item;
              if (condition !== undefined && !truthy(condition.fn(ctx))) continue;
              out.push(element.fn(ctx));
            }
            return out;
          },
          ...parts,
        };
      }
      case 'unary': {
        const operand = this.expr(expr.operand, scope, env);
        const fn = operand.fn;
        if (expr.operator === 'not') return { ...operand, fn: (ctx) => !truthy(fn(ctx)) };
        const sign = expr.operator === '-' ? -1 : 1;
        return {
          ...operand,
          fn: (ctx) => {
            const value = fn(ctx);
            return typeof value === 'number' ? sign * value : null;
          },
        };
      }
      case 'binary': {
        const left = this.expr(expr.left, scope, env);
        const right = this.expr(expr.right, scope, env);
        const operator = expr.operator;
        return {
          fn: (ctx) => arithmetic(operator, left.fn(ctx), right.fn(ctx)),
          ...union([left, right]),
        };
      }
      case 'logical': {
        const leftCompiled = this.expr(expr.left, scope, env);
        const rightCompiled = this.expr(expr.right, scope, env);
        const left = leftCompiled.fn;
        const right = rightCompiled.fn;
        const parts = union([leftCompiled, rightCompiled]);
        if (expr.operator === 'and') {
          return {
            fn: (ctx) => {
              const a = left(ctx);
              return truthy(a) ? right(ctx) : a;
            },
            ...parts,
          };
        }
        return {
          fn: (ctx) => {
            const a = left(ctx);
            return truthy(a) ? a : right(ctx);
          },
          ...parts,
        };
      }
      case 'compare':
        return this.compare(expr, scope, env);
      case 'conditional': {
        const condition = this.expr(expr.condition, scope, env);
        const whenTrue = this.expr(expr.whenTrue, scope, env);
        const otherwise = this.expr(expr.otherwise, scope, env);
        const test = condition.fn;
        const a = whenTrue.fn;
        const b = otherwise.fn;
        return {
          fn: (ctx) => (truthy(test(ctx)) ? a(ctx) : b(ctx)),
          ...union([condition, whenTrue, otherwise]),
        };
      }
      case 'pattern': {
        const subject = this.expr(expr.subject, scope, env);
        const matcher = this.toolPattern(expr.pattern);
        const negated = expr.negated;
        const fn = subject.fn;
        return { ...subject, fn: (ctx) => matcher(fn(ctx), ctx) !== negated };
      }
      case 'member':
      case 'index':
        return this.addressed(expr, scope, env).compiled;
      case 'call':
        return this.call(expr, scope, env);
      default: {
        const never: never = expr;
        return never;
      }
    }
  }

  private name(
    expr: Extract<Expr, { kind: 'name' | 'declaration' }>,
    scope: Scope,
    env: Env,
  ): CompiledExpr {
    const symbol = scope.lookup(expr.name);
    if (
      expr.kind === 'declaration' &&
      (symbol === undefined || symbol.kind !== 'variable' || !env.declarations)
    ) {
      typeError(
        `a typed variable (${expr.name}: ${expr.type}) can only be declared in a rule body or quantifier block`,
        expr,
      );
    }
    if (symbol !== undefined) {
      if (symbol.kind === 'variable') {
        const slot = symbol.slot;
        return { fn: (ctx) => ctx.frame[slot], deps: new Set([symbol]), wholeTrace: false };
      }
      if (symbol.kind === 'local') {
        const slot = symbol.slot;
        return { fn: (ctx) => ctx.frame[slot], deps: new Set(), wholeTrace: false };
      }
      return this.binding(symbol);
    }
    if (this.globals.has(expr.name)) {
      const evaluate = this.global(expr.name, expr);
      return { fn: evaluate, deps: new Set(), wholeTrace: false };
    }
    if (expr.name === 'input')
      return { fn: (ctx) => ctx.run.input, deps: new Set(), wholeTrace: false };
    if (
      this.predicates.has(expr.name) ||
      Object.hasOwn(builtins, expr.name) ||
      Object.hasOwn(this.options.functions, expr.name)
    ) {
      typeError(`${expr.name} is a function; call it as ${expr.name}(...)`, expr);
    }
    return typeError(
      `unknown name ${expr.name}; expected a declared variable (${expr.name}: Type), a binding, a parameter or input`,
      expr,
    );
  }

  private compare(expr: Extract<Expr, { kind: 'compare' }>, scope: Scope, env: Env): CompiledExpr {
    const operands = expr.operands.map((operand, k) => {
      // the right side of `in` keeps its address so substring matches mark ranges
      const operator = expr.operators[k - 1];
      if (operator === 'in' || operator === 'not in') return this.addressed(operand, scope, env);
      const compiled = this.expr(operand, scope, env);
      const fn = compiled.fn;
      return {
        fn: (ctx: EvalContext): [unknown, string | undefined] => [fn(ctx), undefined],
        compiled,
      };
    });
    const parts = union(operands.map((o) => o.compiled));
    expr.operators.forEach((operator, k) => {
      if (operator === 'is' || operator === 'is not') {
        const right = expr.operands[k + 1] as Expr;
        if (
          right.kind !== 'literal' ||
          (right.value !== null && typeof right.value !== 'boolean')
        ) {
          typeError(
            `'${operator}' compares with None, True, False or a tool pattern (tool:name); use == for values`,
            right,
          );
        }
      }
    });
    const operators = expr.operators;
    const single = operators.length === 1 ? operators[0] : undefined;
    const apply = (
      operator: string,
      a: unknown,
      b: unknown,
      address: string | undefined,
      ctx: EvalContext,
    ): unknown => {
      switch (operator) {
        case '==':
          return valuesEqual(a, b);
        case '!=':
          return !valuesEqual(a, b);
        case '<':
        case '>':
        case '<=':
        case '>=':
          return compareOrder(a, b, operator);
        case 'in':
          if (Array.isArray(a) && single === 'in')
            return a.map((item) => contains(b, item, ctx, address));
          return contains(b, a, ctx, address);
        case 'contains_only':
          return containsOnly(a, b, ctx);
        case 'not in':
          return !contains(b, a, ctx, address);
        case 'is':
          return valuesEqual(a, b);
        case 'is not':
          return !valuesEqual(a, b);
        case '->':
          return a instanceof PolicyEvent && b instanceof PolicyEvent && a.position < b.position;
        default:
          return (
            a instanceof PolicyEvent && b instanceof PolicyEvent && a.position + 1 === b.position
          );
      }
    };
    const plain = operands.map((o) => o.compiled.fn);
    return {
      fn: (ctx) => {
        if (ctx.ranges === undefined) {
          // addresses only serve range marking: skip them (and their tuples) otherwise
          let left = (plain[0] as Compiled)(ctx);
          let result: unknown = true;
          for (let k = 0; k < operators.length; k++) {
            const right = (plain[k + 1] as Compiled)(ctx);
            result = apply(operators[k] as string, left, right, undefined, ctx);
            if (!truthy(result)) return result;
            left = right;
          }
          return result;
        }
        let [left] = (operands[0] as (typeof operands)[number]).fn(ctx);
        let result: unknown = true;
        for (let k = 0; k < operators.length; k++) {
          const [right, address] = (operands[k + 1] as (typeof operands)[number]).fn(ctx);
          result = apply(operators[k] as string, left, right, address, ctx);
          if (!truthy(result)) return result;
          left = right;
        }
        return result;
      },
      ...parts,
    };
  }

  private call(expr: Extract<Expr, { kind: 'call' }>, scope: Scope, env: Env): CompiledExpr {
    const callee = expr.callee;
    if (
      callee.kind === 'member' &&
      callee.object.kind === 'name' &&
      callee.object.name === 'json' &&
      scope.lookup('json') === undefined
    ) {
      if (!this.imported.json)
        typeError("json is not imported; add 'import json' to the policy", callee.object);
      if (callee.name !== 'loads')
        typeError(`json.${callee.name} is not available; expected json.loads(...)`, callee);
      return this.call(
        {
          ...expr,
          callee: { kind: 'name', name: 'json_loads', line: callee.line, column: callee.column },
        },
        scope,
        env,
      );
    }
    if (callee.kind === 'member') {
      if (!methodNames.has(callee.name)) {
        typeError(
          `unknown method ${callee.name}; expected one of ${[...methodNames].sort().join(', ')}`,
          callee,
        );
      }
      if (expr.namedArgs.length > 0)
        typeError(`method ${callee.name} takes no named arguments`, expr);
      const target = this.expr(callee.object, scope, env);
      const args = expr.args.map((a) => this.expr(a, scope, env));
      const name = callee.name;
      return {
        fn: (ctx) =>
          callMethod(
            target.fn(ctx),
            name,
            args.map((a) => a.fn(ctx)),
          ),
        ...union([target, ...args]),
      };
    }
    if (callee.kind !== 'name')
      return typeError('only named functions and methods can be called', expr);
    const symbol = scope.lookup(callee.name);
    const name =
      symbol === undefined && !this.predicates.has(callee.name)
        ? (this.imported.aliases.get(callee.name) ?? callee.name)
        : callee.name;
    if (symbol !== undefined) typeError(`${name} is a variable, not a function`, callee);
    const predicate = this.predicates.get(name);
    if (predicate !== undefined) {
      const info = this.predicate(name, callee);
      if (expr.namedArgs.length > 0) typeError(`predicate ${name} takes no named arguments`, expr);
      if (expr.args.length !== info.item.params.length) {
        typeError(
          `predicate ${name} takes ${info.item.params.length} argument(s), found ${expr.args.length}`,
          expr,
        );
      }
      const args = expr.args.map((a) => this.expr(a, scope, env));
      const call = info.call as (ctx: EvalContext, args: unknown[]) => boolean;
      const parts = union(args);
      return {
        fn: (ctx) =>
          call(
            ctx,
            args.map((a) => a.fn(ctx)),
          ),
        deps: parts.deps,
        wholeTrace: parts.wholeTrace || info.wholeTrace,
      };
    }
    const builtin = builtins[name];
    if (builtin !== undefined && Object.hasOwn(builtins, name)) {
      if (expr.args.length < builtin.min || expr.args.length > builtin.max) {
        const expected =
          builtin.min === builtin.max ? `${builtin.min}` : `${builtin.min} to ${builtin.max}`;
        typeError(`${name}() takes ${expected} argument(s), found ${expr.args.length}`, expr);
      }
      for (const named of expr.namedArgs) {
        if (!builtin.named?.includes(named.name)) {
          typeError(
            `${name}() has no argument ${named.name}${builtin.named === undefined ? '' : `; expected ${builtin.named.join(', ')}`}`,
            named.value,
          );
        }
      }
      if ((name === 'match' || name === 'find') && expr.args[0]?.kind === 'literal') {
        const source = (expr.args[0] as { value: unknown }).value;
        const problem =
          typeof source === 'string' ? compilePolicyRegex(source, 'none') : 'not a string';
        if (typeof problem === 'string') {
          typeError(
            `unusable regular expression ${JSON.stringify(source)} in ${name}(): ${problem}`,
            expr.args[0] as Expr,
          );
        }
      }
      const args = expr.args.map((a) => this.addressed(a, scope, env));
      const named = expr.namedArgs.map((n) => ({
        name: n.name,
        value: this.expr(n.value, scope, env),
      }));
      const parts = union([...args.map((a) => a.compiled), ...named.map((n) => n.value)]);
      const call = builtin.call;
      if (builtin.addressed) {
        return {
          fn: (ctx) => {
            const values: unknown[] = [];
            const addresses: (string | undefined)[] = [];
            for (const a of args) {
              const [value, address] = a.fn(ctx);
              values.push(value);
              addresses.push(address);
            }
            const namedValues: Record<string, unknown> = {};
            for (const n of named) namedValues[n.name] = n.value.fn(ctx);
            return call(ctx, values, namedValues, addresses);
          },
          ...parts,
        };
      }
      const plain = args.map((a) => a.compiled.fn);
      return {
        fn: (ctx) => {
          const namedValues: Record<string, unknown> = {};
          for (const n of named) namedValues[n.name] = n.value.fn(ctx);
          return call(
            ctx,
            plain.map((f) => f(ctx)),
            namedValues,
            [],
          );
        },
        ...parts,
      };
    }
    const host = Object.hasOwn(this.options.functions, name)
      ? this.options.functions[name]
      : undefined;
    if (host !== undefined) {
      if (expr.namedArgs.length > 0) typeError(`function ${name} takes no named arguments`, expr);
      const args = expr.args.map((a) => this.expr(a, scope, env));
      return {
        fn: (ctx) => host(...args.map((a) => plainArgument(a.fn(ctx)))) ?? null,
        ...union(args),
      };
    }
    return typeError(
      `unknown function ${name}; expected a predicate defined in the policy, a built-in (${Object.keys(builtins).join(', ')}) or one passed in options.functions`,
      callee,
    );
  }

  private toolPattern(pattern: ToolPattern): (value: unknown, ctx: EvalContext) => boolean {
    const nameRegex = regexOrFail(pattern.name, 'tool name pattern', pattern);
    const args = pattern.arguments === undefined ? undefined : this.patternValue(pattern.arguments);
    const plain = pattern.plainName ? pattern.name : undefined;
    return (value, ctx) => {
      let call: Record<string, unknown> | undefined;
      if (value instanceof PolicyEvent) {
        const event = value;
        // an output carries the name of the call it answers
        if (event.kind === 'ToolOutput' ? event.callPosition < 0 : event.kind !== 'ToolCall')
          return false;
        const name = event.toolName;
        if (plain !== undefined ? name !== plain : !nameRegex?.test(name ?? '')) return false;
        if (args === undefined) return true;
        call = (event.kind === 'ToolOutput' ? ctx.run.store.event(event.callPosition) : event).data;
      } else if (isRecord(value)) {
        call = value;
        const name = getMember(call.function, 'name');
        if (typeof name !== 'string' || !nameRegex?.test(name)) return false;
        if (args === undefined) return true;
      } else {
        return false;
      }
      return args(getMember(call.function, 'arguments'), ctx);
    };
  }

  private patternValue(pattern: PatternValue): (value: unknown, ctx: EvalContext) => boolean {
    switch (pattern.kind) {
      case 'wildcard':
        return () => true;
      case 'value': {
        const expected = pattern.value;
        return (value) => valuesEqual(value, expected);
      }
      case 'regex': {
        const regex = regexOrFail(pattern.source, 'regular expression in tool pattern', pattern);
        return (value) => {
          if (typeof value === 'string') return regex.test(value);
          if (typeof value === 'number' || typeof value === 'boolean')
            return regex.test(toText(value));
          return false;
        };
      }
      case 'placeholder': {
        const entity = pattern.entity;
        return (value, ctx) => {
          if (typeof value !== 'string') return false;
          const pii = (ctx.run.detectors.pii ?? detectPii)(value);
          if (pii.some((f) => f.type === entity)) return true;
          return (ctx.run.detectors.secrets ?? detectSecrets)(value).some((f) => f.type === entity);
        };
      }
      case 'list': {
        const items = pattern.items.map((item) => this.patternValue(item));
        return (value, ctx) =>
          Array.isArray(value) &&
          value.length === items.length &&
          items.every((m, k) => m(value[k], ctx));
      }
      case 'dict': {
        const entries = pattern.entries.map((e) => {
          if (isForbiddenMember(e.key))
            typeError(`argument ${e.key} is not accessible in policies`, e.value);
          return { key: e.key, match: this.patternValue(e.value) };
        });
        return (value, ctx) => {
          const record =
            typeof value === 'string'
              ? parseJsonText(value)
              : value instanceof PolicyEvent
                ? value.data
                : value;
          if (typeof record !== 'object' || record === null || Array.isArray(record)) return false;
          return entries.every(
            (e) =>
              Object.hasOwn(record, e.key) &&
              e.match((record as Record<string, unknown>)[e.key], ctx),
          );
        };
      }
      default: {
        const never: never = pattern;
        return never;
      }
    }
  }
}

function matchesType(value: unknown, type: PolicyEventType): boolean {
  if (!(value instanceof PolicyEvent)) return false;
  const kind = value.kind;
  return type === 'Event' || kind === type || (type === 'Message' && kind === 'ToolOutput');
}

function plainArgument(value: unknown): unknown {
  if (value instanceof PolicyEvent) return value.data;
  if (Array.isArray(value)) return value.map(plainArgument);
  return value;
}

/** A line `(name: T) in collection`: a typed member of the block. */
function memberDeclaration(
  statement: Statement,
): { declaration: Extract<Expr, { kind: 'declaration' }>; collection: Expr } | undefined {
  if (statement.kind !== 'condition') return undefined;
  const expr = statement.expr;
  if (expr.kind !== 'compare' || expr.operators.length !== 1 || expr.operators[0] !== 'in')
    return undefined;
  const [declaration, collection] = expr.operands;
  if (declaration?.kind !== 'declaration' || collection === undefined) return undefined;
  return { declaration, collection };
}

/** Python's `all(el in a for el in b)`, which is what Invariant evaluates `a contains_only b` as. */
function containsOnly(container: unknown, items: unknown, ctx: EvalContext): boolean {
  const elements = Array.isArray(items)
    ? items
    : typeof items === 'string'
      ? [...items]
      : typeof items === 'object' && items !== null && !(items instanceof PolicyEvent)
        ? Object.keys(items)
        : undefined;
  if (elements === undefined) return false;
  return elements.every((item) => contains(container, item, ctx, undefined));
}

/** A full-match pattern of a tool pattern, or a `POLICY_TYPE` error saying why it is unusable. */
function regexOrFail(source: string, what: string, at: Position): PolicyRegex {
  const regex = compilePolicyRegex(source, 'full');
  if (typeof regex === 'string')
    typeError(`unusable ${what} ${JSON.stringify(source)}: ${regex}`, at);
  return regex;
}
