import { textPartKey } from '../../model/text-part-key.js';
import { PolicyEvent } from '../runtime/policy-event.js';
import { callLocatedMethod, locatedMethods } from '../runtime/policy-methods.js';
import { getIndex, getMember, isForbiddenMember } from '../runtime/policy-values.js';
import type { EvalContext } from '../runtime/rule-plan.js';
import { elementLocation, isSpan } from '../runtime/value-locations.js';
import { checkEventField, staticEventType } from './check-event-field.js';
import { compileBinding } from './compile-binding.js';
import {
  type CompileContext,
  type CompiledExpr,
  constant,
  type Env,
  type Scope,
  typeError,
  union,
} from './compile-context.js';
import { compileExpression } from './compile-expression.js';
import type { Expr } from './policy-ast.js';

/** @internal An expression compiled twice: with its trace address, and plainly. */
export interface AddressedExpr {
  /** The value and its address in the trace (`undefined` when it has none). */
  fn: (ctx: EvalContext) => [unknown, string | undefined];
  compiled: CompiledExpr;
}

/**
 * @internal Compiles an expression and also tracks the trace address of its value: member chains
 * on events, elements of lists, bindings and typed members, and string methods whose results are
 * parts of the receiver. Addresses let violations mark the characters they are about.
 */
export function compileAddressedExpression(
  context: CompileContext,
  expr: Expr,
  scope: Scope,
  env: Env,
): AddressedExpr {
  if (expr.kind === 'member' || expr.kind === 'index') {
    const object = compileAddressedExpression(context, expr.object, scope, env);
    const key =
      expr.kind === 'member'
        ? constant(expr.name)
        : compileExpression(context, expr.index, scope, env);
    if (expr.kind === 'member' && isForbiddenMember(expr.name))
      typeError(`member ${expr.name} is not accessible in policies`, expr);
    if (expr.kind === 'member') {
      const type = staticEventType(expr.object, scope);
      if (type !== undefined) checkEventField(type, expr.name, expr);
    }
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
      // a part's `text` read from AgentDojo's `content` is addressed by that key
      const field = k === 'text' ? textPartKey(value) : String(k);
      return [result, keepAddress ? `${address}.${field}` : undefined];
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
      const compiled = compileBinding(context, symbol);
      return {
        fn: symbol.located as (ctx: EvalContext) => [unknown, string | undefined],
        compiled,
      };
    }
    if (symbol?.kind === 'variable' && symbol.member !== undefined) {
      const compiled = compileExpression(context, expr, scope, env);
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
    const compiled = compileExpression(context, expr, scope, env);
    const receiver = compileAddressedExpression(context, expr.callee.object, scope, env);
    const args = expr.args.map((a) => compileExpression(context, a, scope, env).fn);
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
  const compiled = compileExpression(context, expr, scope, env);
  const inner = compiled.fn;
  return {
    fn: (ctx) => {
      const value = inner(ctx);
      return [value, value instanceof PolicyEvent ? value.address : undefined];
    },
    compiled,
  };
}
