import { type Compiled, UNSET } from '../runtime/rule-plan.js';
import {
  type CompileContext,
  Frame,
  type GlobalInfo,
  Scope,
  typeError,
} from './compile-context.js';
import { compileExpression } from './compile-expression.js';
import type { Position } from './policy-ast.js';

/**
 * @internal Compiles a top-level binding `name := ...` on first use. Its value is computed once per
 * run (it reads no quantified variable) and kept in the run's globals.
 */
export function compileGlobal(context: CompileContext, name: string, at: Position): Compiled {
  const info = context.globals.get(name) as GlobalInfo;
  if (info.state === 'done') return info.evaluate as Compiled;
  if (info.state === 'compiling') typeError(`binding ${name} refers to itself`, at);
  info.state = 'compiling';
  const frame = new Frame();
  const inner = compileExpression(context, info.item.expr, new Scope(undefined), {
    frame,
    declarations: false,
  });
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
