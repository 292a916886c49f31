import type { BuiltinFunction } from '../runtime/builtin-function.js';
import { compilePolicyRegex } from '../runtime/policy-regex.js';
import { compileAddressedExpression } from './compile-addressed-expression.js';
import {
  type CompileContext,
  type CompiledExpr,
  type Env,
  type Scope,
  typeError,
  union,
} from './compile-context.js';
import { compileExpression } from './compile-expression.js';
import type { Expr } from './policy-ast.js';

/**
 * @internal Compiles a call of a built-in function: checks its arity, named arguments and literal
 * regular expressions at compile time; built-ins that mark ranges get their arguments' trace
 * addresses.
 */
export function compileBuiltinCall(
  context: CompileContext,
  name: string,
  builtin: BuiltinFunction,
  expr: Extract<Expr, { kind: 'call' }>,
  scope: Scope,
  env: Env,
): CompiledExpr {
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
  const args = expr.args.map((a) => compileAddressedExpression(context, a, scope, env));
  const named = expr.namedArgs.map((n) => ({
    name: n.name,
    value: compileExpression(context, n.value, scope, env),
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
