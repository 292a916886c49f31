import { plainArgument } from '../runtime/operators.js';
import { builtins } from '../runtime/policy-functions.js';
import { callMethod, methodNames } from '../runtime/policy-methods.js';
import type { EvalContext } from '../runtime/rule-plan.js';
import { compileBuiltinCall } from './compile-builtin-call.js';
import {
  type CompileContext,
  type CompiledExpr,
  type Env,
  type Scope,
  typeError,
  union,
} from './compile-context.js';
import { compileExpression } from './compile-expression.js';
import { compilePredicate } from './compile-predicate.js';
import type { Expr } from './policy-ast.js';

/**
 * @internal Compiles a call: `json.loads(...)` (after `import json`), a whitelisted method, a
 * predicate of the policy, a built-in (imported aliases resolved) or a host function from
 * `options.functions`, checking arguments at compile time where it can.
 */
export function compileCall(
  context: CompileContext,
  expr: Extract<Expr, { kind: 'call' }>,
  scope: Scope,
  env: Env,
): CompiledExpr {
  const callee = expr.callee;
  if (
    callee.kind === 'member' &&
    callee.object.kind === 'name' &&
    callee.object.name === 'json' &&
    scope.lookup('json') === undefined
  ) {
    if (!context.imported.json)
      typeError("json is not imported; add 'import json' to the policy", callee.object);
    if (callee.name !== 'loads')
      typeError(`json.${callee.name} is not available; expected json.loads(...)`, callee);
    return compileCall(
      context,
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
    const target = compileExpression(context, callee.object, scope, env);
    const args = expr.args.map((a) => compileExpression(context, a, scope, env));
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
    symbol === undefined && !context.predicates.has(callee.name)
      ? (context.imported.aliases.get(callee.name) ?? callee.name)
      : callee.name;
  if (symbol !== undefined) typeError(`${name} is a variable, not a function`, callee);
  if (context.predicates.has(name)) {
    const info = compilePredicate(context, name, callee);
    if (expr.namedArgs.length > 0) typeError(`predicate ${name} takes no named arguments`, expr);
    if (expr.args.length !== info.item.params.length) {
      typeError(
        `predicate ${name} takes ${info.item.params.length} argument(s), found ${expr.args.length}`,
        expr,
      );
    }
    const args = expr.args.map((a) => compileExpression(context, a, scope, env));
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
  if (builtin !== undefined && Object.hasOwn(builtins, name))
    return compileBuiltinCall(context, name, builtin, expr, scope, env);
  const host = Object.hasOwn(context.options.functions, name)
    ? context.options.functions[name]
    : undefined;
  if (host !== undefined) {
    if (expr.namedArgs.length > 0) typeError(`function ${name} takes no named arguments`, expr);
    const args = expr.args.map((a) => compileExpression(context, a, scope, env));
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
