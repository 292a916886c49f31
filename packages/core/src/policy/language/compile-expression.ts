import { arithmetic } from '../runtime/operators.js';
import { PolicyEvent } from '../runtime/policy-event.js';
import { toText, truthy } from '../runtime/policy-values.js';
import { compileAddressedExpression } from './compile-addressed-expression.js';
import { compileCall } from './compile-call.js';
import { compileComparison } from './compile-comparison.js';
import {
  type CompileContext,
  type CompiledExpr,
  constant,
  type Env,
  Scope,
  union,
} from './compile-context.js';
import { compileName } from './compile-name.js';
import { compileToolPattern } from './compile-tool-pattern.js';
import type { Expr } from './policy-ast.js';

/**
 * @internal Compiles an expression to a closure, with the quantified variables it reads and
 * whether it reads the whole trace. Literals, displays, comprehensions and operators are compiled
 * here; names, comparisons, calls and member chains by their own parts.
 */
export function compileExpression(
  context: CompileContext,
  expr: Expr,
  scope: Scope,
  env: Env,
): CompiledExpr {
  switch (expr.kind) {
    case 'literal':
      return constant(expr.value);
    case 'name':
    case 'declaration':
      return compileName(context, expr, scope, env);
    case 'list': {
      const items = expr.items.map((item) => compileExpression(context, item, scope, env));
      const fns = items.map((i) => i.fn);
      return { fn: (ctx) => fns.map((f) => f(ctx)), ...union(items) };
    }
    case 'dict': {
      const entries = expr.entries.map((e) => ({
        key: compileExpression(context, e.key, scope, env),
        value: compileExpression(context, e.value, scope, env),
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
    case 'comprehension':
      return compileComprehension(context, expr, scope, env);
    case 'unary': {
      const operand = compileExpression(context, expr.operand, scope, env);
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
      const left = compileExpression(context, expr.left, scope, env);
      const right = compileExpression(context, expr.right, scope, env);
      const operator = expr.operator;
      return {
        fn: (ctx) => arithmetic(operator, left.fn(ctx), right.fn(ctx)),
        ...union([left, right]),
      };
    }
    case 'logical': {
      const leftCompiled = compileExpression(context, expr.left, scope, env);
      const rightCompiled = compileExpression(context, expr.right, scope, env);
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
      return compileComparison(context, expr, scope, env);
    case 'conditional': {
      const condition = compileExpression(context, expr.condition, scope, env);
      const whenTrue = compileExpression(context, expr.whenTrue, scope, env);
      const otherwise = compileExpression(context, expr.otherwise, scope, env);
      const test = condition.fn;
      const a = whenTrue.fn;
      const b = otherwise.fn;
      return {
        fn: (ctx) => (truthy(test(ctx)) ? a(ctx) : b(ctx)),
        ...union([condition, whenTrue, otherwise]),
      };
    }
    case 'pattern': {
      const subject = compileExpression(context, expr.subject, scope, env);
      const matcher = compileToolPattern(expr.pattern);
      const negated = expr.negated;
      const fn = subject.fn;
      return { ...subject, fn: (ctx) => matcher(fn(ctx), ctx) !== negated };
    }
    case 'member':
    case 'index':
      return compileAddressedExpression(context, expr, scope, env).compiled;
    case 'call':
      return compileCall(context, expr, scope, env);
    default: {
      const never: never = expr;
      return never;
    }
  }
}

/** `[element for variable in iterable if condition]`: the variable is a local of the frame. */
function compileComprehension(
  context: CompileContext,
  expr: Extract<Expr, { kind: 'comprehension' }>,
  scope: Scope,
  env: Env,
): CompiledExpr {
  const iterable = compileExpression(context, expr.iterable, scope, env);
  const inner = new Scope(scope);
  const slot = env.frame.allocate();
  inner.names.set(expr.variable, { kind: 'local', slot });
  const innerEnv: Env = { frame: env.frame, declarations: false };
  const element = compileExpression(context, expr.element, inner, innerEnv);
  const condition =
    expr.condition === undefined
      ? undefined
      : compileExpression(context, expr.condition, inner, innerEnv);
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
