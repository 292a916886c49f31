import { builtins } from '../runtime/policy-functions.js';
import { compileBinding } from './compile-binding.js';
import {
  type CompileContext,
  type CompiledExpr,
  type Env,
  type Scope,
  typeError,
} from './compile-context.js';
import { compileGlobal } from './compile-global.js';
import type { Expr } from './policy-ast.js';

/**
 * @internal Compiles a name (or a typed declaration `(x: T)` where it is read): a quantified
 * variable, a comprehension or predicate local, a binding, a global binding or `input`. A name of
 * a function, or an unknown one, is a `POLICY_TYPE` error that says what was expected.
 */
export function compileName(
  context: CompileContext,
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
    return compileBinding(context, symbol);
  }
  if (context.globals.has(expr.name)) {
    const evaluate = compileGlobal(context, expr.name, expr);
    return { fn: evaluate, deps: new Set(), wholeTrace: false };
  }
  if (expr.name === 'input')
    return { fn: (ctx) => ctx.run.input, deps: new Set(), wholeTrace: false };
  if (
    context.predicates.has(expr.name) ||
    Object.hasOwn(builtins, expr.name) ||
    Object.hasOwn(context.options.functions, expr.name)
  ) {
    typeError(`${expr.name} is a function; call it as ${expr.name}(...)`, expr);
  }
  return typeError(
    `unknown name ${expr.name}; expected a declared variable (${expr.name}: Type), a binding, a parameter or input`,
    expr,
  );
}
