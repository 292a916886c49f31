import { parseComprehensionTail } from './parse-comprehension-tail.js';
import { parseExpression } from './parse-expression.js';
import type { Expr } from './policy-ast.js';
import { keywords, type TokenStream } from './token-stream.js';

/**
 * @internal Parses a primary: a literal, a name, a typed declaration `(name: Type)`, a
 * parenthesised expression, a tuple, a list, a dict, or a list comprehension or generator
 * expression.
 */
export function parsePrimary(stream: TokenStream): Expr {
  const token = stream.peek();
  const at = { line: token.line, column: token.column };
  switch (token.kind) {
    case 'number':
      stream.next();
      return { kind: 'literal', value: Number(token.value), ...at };
    case 'string': {
      stream.next();
      let value = token.value;
      while (stream.peek().kind === 'string') value += stream.next().value;
      return { kind: 'literal', value, raw: token.raw, ...at };
    }
    case 'name': {
      switch (token.value) {
        case 'True':
        case 'true':
          stream.next();
          return { kind: 'literal', value: true, ...at };
        case 'False':
        case 'false':
          stream.next();
          return { kind: 'literal', value: false, ...at };
        case 'None':
        case 'null':
          stream.next();
          return { kind: 'literal', value: null, ...at };
        default:
          break;
      }
      if (keywords.has(token.value)) stream.fail('an expression');
      stream.next();
      return { kind: 'name', name: token.value, ...at };
    }
    case 'op':
      break;
    default:
      return stream.fail('an expression');
  }
  if (token.value === '(') {
    // typed declaration (name: Type)
    if (
      stream.peek(1).kind === 'name' &&
      stream.isOp(':', 2) &&
      stream.peek(3).kind === 'name' &&
      stream.isOp(')', 4)
    ) {
      stream.next();
      const name = stream.next();
      if (keywords.has(name.value)) stream.fail('a variable name', name);
      stream.next();
      const type = stream.next();
      stream.next();
      return {
        kind: 'declaration',
        name: name.value,
        type: type.value,
        typePosition: { line: type.line, column: type.column },
        ...at,
      };
    }
    stream.next();
    if (stream.isOp(')')) {
      stream.next();
      return { kind: 'list', items: [], ...at };
    }
    const first = parseExpression(stream);
    if (stream.isName('for')) {
      const comprehension = parseComprehensionTail(stream, first, at);
      stream.expectOp(')', ' to close the generator expression');
      return comprehension;
    }
    if (stream.isOp(',')) {
      const items = [first];
      while (stream.isOp(',')) {
        stream.next();
        if (stream.isOp(')')) break;
        items.push(parseExpression(stream));
      }
      stream.expectOp(')', ' to close the tuple');
      return { kind: 'list', items, ...at };
    }
    stream.expectOp(')', ' to close the parenthesis');
    return first;
  }
  if (token.value === '[') {
    stream.next();
    if (stream.isOp(']')) {
      stream.next();
      return { kind: 'list', items: [], ...at };
    }
    const first = parseExpression(stream);
    if (stream.isName('for')) {
      const comprehension = parseComprehensionTail(stream, first, at);
      stream.expectOp(']', ' to close the list comprehension');
      return comprehension;
    }
    const items = [first];
    while (stream.isOp(',')) {
      stream.next();
      if (stream.isOp(']')) break;
      items.push(parseExpression(stream));
    }
    stream.expectOp(']', ' to close the list');
    return { kind: 'list', items, ...at };
  }
  if (token.value === '{') {
    stream.next();
    const entries: { key: Expr; value: Expr }[] = [];
    while (!stream.isOp('}')) {
      const key = parseExpression(stream);
      stream.expectOp(':', ' between a dict key and its value');
      entries.push({ key, value: parseExpression(stream) });
      if (!stream.isOp(',')) break;
      stream.next();
    }
    stream.expectOp('}', ' to close the dict');
    return { kind: 'dict', entries, ...at };
  }
  return stream.fail('an expression');
}
