import { parseComprehensionTail } from './parse-comprehension-tail.js';
import { parseExpression } from './parse-expression.js';
import type { Expr } from './policy-ast.js';
import { keywords, type TokenStream } from './token-stream.js';

/** @internal The arguments of a call. */
export interface ParsedArguments {
  args: Expr[];
  namedArgs: { name: string; value: Expr }[];
}

/**
 * @internal After '(' : positional and named arguments, or a single generator expression, then
 * ')'. Rules (`PolicyViolation(...)`) and `count(...)` read their arguments here too.
 */
export function parseArguments(stream: TokenStream): ParsedArguments {
  const args: Expr[] = [];
  const namedArgs: { name: string; value: Expr }[] = [];
  while (!stream.isOp(')')) {
    const token = stream.peek();
    if (token.kind === 'name' && !keywords.has(token.value) && stream.isOp('=', 1)) {
      stream.next();
      stream.next();
      namedArgs.push({ name: token.value, value: parseExpression(stream) });
    } else {
      if (namedArgs.length > 0) stream.fail('a named argument (positional arguments go first)');
      const value = parseExpression(stream);
      if (stream.isName('for') && args.length === 0) {
        args.push(parseComprehensionTail(stream, value, token));
        break;
      }
      args.push(value);
    }
    if (!stream.isOp(',')) break;
    stream.next();
  }
  stream.expectOp(')', ' to close the argument list');
  return { args, namedArgs };
}
