import { type EvalContext, UNSET } from '../runtime/rule-plan.js';
import { compileAddressedExpression } from './compile-addressed-expression.js';
import {
  type BindingSymbol,
  type CompileContext,
  type CompiledExpr,
  typeError,
} from './compile-context.js';

/**
 * @internal Compiles a binding `name := ...` of a block on first use: its value is computed once
 * per assignment (cached in its frame slot) and its trace location only when something asks for it.
 */
export function compileBinding(context: CompileContext, symbol: BindingSymbol): CompiledExpr {
  if (symbol.state === 'done') return symbol.compiled as CompiledExpr;
  if (symbol.state === 'compiling') typeError(`binding ${symbol.name} refers to itself`, symbol.at);
  symbol.state = 'compiling';
  const located = compileAddressedExpression(context, symbol.expr, symbol.scope, {
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
  symbol.located = (ctx: EvalContext) => {
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
