import { arithmetic, contains, containsOnly, plainArgument } from '../runtime/operators.js';
import { PolicyEvent } from '../runtime/policy-event.js';
import { builtins } from '../runtime/policy-functions.js';
import {
  callLocatedMethod,
  callMethod,
  locatedMethods,
  methodNames,
} from '../runtime/policy-methods.js';
import { compilePolicyRegex } from '../runtime/policy-regex.js';
import {
  compareOrder,
  getIndex,
  getMember,
  isForbiddenMember,
  toText,
  truthy,
  valuesEqual,
} from '../runtime/policy-values.js';
import { type Compiled, type EvalContext, UNSET } from '../runtime/rule-plan.js';
import { elementLocation, isSpan } from '../runtime/value-locations.js';
import {
  type BindingSymbol,
  type CompiledExpr,
  type CompileOptions,
  constant,
  type Env,
  Frame,
  type GlobalInfo,
  type PredicateInfo,
  Scope,
  typeError,
  union,
} from './compile-context.js';
import { compileToolPattern } from './compile-tool-pattern.js';
import type { Expr, Position, TopLevel } from './policy-ast.js';
import type { ImportedNames } from './policy-imports.js';

/** @internal What expressions need from the rest of the compiler. */
export interface ExpressionContext {
  options: CompileOptions;
  imported: ImportedNames;
  isPredicate(name: string): boolean;
  /** Compiles a predicate on first use (predicates may call each other, in any order). */
  predicate(name: string, at: Position): PredicateInfo;
}

/**
 * @internal Compiles expressions to closures: names, bindings (with their trace locations),
 * global bindings, operators, comparisons, calls of methods, built-ins, predicates and host
 * functions, and tool patterns.
 */
export class ExpressionCompiler {
  readonly globals = new Map<string, GlobalInfo>();

  constructor(private readonly context: ExpressionContext) {}

  /** Registers a top-level binding `name := ...` (compiled on first use). */
  declareGlobal(item: Extract<TopLevel, { kind: 'binding' }>): void {
    this.globals.set(item.name, { item, state: 'new', evaluate: undefined });
  }

  binding(symbol: BindingSymbol): CompiledExpr {
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

  global(name: string, at: Position): Compiled {
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

  /** Compiles an expression and also tracks the trace address of member chains on events. */
  addressed(
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

  expr(expr: Expr, scope: Scope, env: Env): CompiledExpr {
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
        const matcher = compileToolPattern(expr.pattern);
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
      this.context.isPredicate(expr.name) ||
      Object.hasOwn(builtins, expr.name) ||
      Object.hasOwn(this.context.options.functions, expr.name)
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
      if (!this.context.imported.json)
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
      symbol === undefined && !this.context.isPredicate(callee.name)
        ? (this.context.imported.aliases.get(callee.name) ?? callee.name)
        : callee.name;
    if (symbol !== undefined) typeError(`${name} is a variable, not a function`, callee);
    if (this.context.isPredicate(name)) {
      const info = this.context.predicate(name, callee);
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
    const host = Object.hasOwn(this.context.options.functions, name)
      ? this.context.options.functions[name]
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
}
