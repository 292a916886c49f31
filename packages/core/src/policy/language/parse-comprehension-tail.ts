import { parseDisjunction } from './parse-expression.js';
import type { Expr, Position } from './policy-ast.js';
import type { TokenStream } from './token-stream.js';

/**
 * @internal `for x in iterable if condition` after the element of a comprehension or generator
 * expression (the stream is at `for`).
 */
export function parseComprehensionTail(stream: TokenStream, element: Expr, at: Position): Expr {
  stream.next(); // for
  const variable = stream.expectName('a loop variable after for');
  if (!stream.isName('in')) stream.fail("'in' after the loop variable");
  stream.next();
  const iterable = parseDisjunction(stream);
  let condition: Expr | undefined;
  if (stream.isName('if')) {
    stream.next();
    condition = parseDisjunction(stream);
  }
  return {
    kind: 'comprehension',
    element,
    variable: variable.value,
    variablePosition: { line: variable.line, column: variable.column },
    iterable,
    condition,
    line: at.line,
    column: at.column,
  };
}
