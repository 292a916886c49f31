import { contains, containsOnly } from '../runtime/operators.js';
import { PolicyEvent } from '../runtime/policy-event.js';
import { compareOrder, truthy, valuesEqual } from '../runtime/policy-values.js';
import type { Compiled, EvalContext } from '../runtime/rule-plan.js';
import { type AddressedExpr, compileAddressedExpression } from './compile-addressed-expression.js';
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
 * @internal Compiles a comparison chain (`a < b <= c`, `x in y`, `a -> b`, `is None`), Python's
 * way: each operator compares its two neighbours and the chain stops at the first false result.
 * The right side of `in` keeps its trace address, so substring matches can mark ranges.
 */
export function compileComparison(
  context: CompileContext,
  expr: Extract<Expr, { kind: 'compare' }>,
  scope: Scope,
  env: Env,
): CompiledExpr {
  const operands = expr.operands.map((operand, k): AddressedExpr => {
    const operator = expr.operators[k - 1];
    if (operator === 'in' || operator === 'not in')
      return compileAddressedExpression(context, operand, scope, env);
    const compiled = compileExpression(context, operand, scope, env);
    const fn = compiled.fn;
    return { fn: (ctx) => [fn(ctx), undefined], compiled };
  });
  const parts = union(operands.map((o) => o.compiled));
  expr.operators.forEach((operator, k) => {
    if (operator === 'is' || operator === 'is not') {
      const right = expr.operands[k + 1] as Expr;
      if (right.kind !== 'literal' || (right.value !== null && typeof right.value !== 'boolean')) {
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
      let [left] = (operands[0] as AddressedExpr).fn(ctx);
      let result: unknown = true;
      for (let k = 0; k < operators.length; k++) {
        const [right, address] = (operands[k + 1] as AddressedExpr).fn(ctx);
        result = apply(operators[k] as string, left, right, address, ctx);
        if (!truthy(result)) return result;
        left = right;
      }
      return result;
    },
    ...parts,
  };
}
