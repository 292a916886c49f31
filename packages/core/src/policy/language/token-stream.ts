import { PolicyError } from '../policy-error.js';
import type { Token } from './tokenize-policy.js';

/** @internal Names that are keywords of the policy language (never variable names). */
export const keywords = new Set([
  'and',
  'or',
  'not',
  'in',
  'is',
  'if',
  'else',
  'for',
  'raise',
  'def',
  'from',
  'import',
  'True',
  'False',
  'None',
  'return',
  'lambda',
]);

/**
 * How deep expressions and blocks may nest (brackets, `not`, signs, operator chains, member
 * chains, indented blocks). The parser and the compiled rules recurse once per level, so an
 * unbounded depth would end in a RangeError. One bracket is ~15 frames of the parser (one per
 * precedence level): at 500, a fresh process (code not yet optimised, larger frames) ran out of
 * stack at ~495 brackets, before the limit could say so. 200 is CPython's own limit on nested
 * brackets, far beyond hand-written policies, and leaves the stack a wide margin.
 * @internal
 */
export const MAX_POLICY_NESTING = 200;

function describe(token: Token): string {
  switch (token.kind) {
    case 'eof':
      return 'end of policy';
    case 'newline':
      return 'end of line';
    case 'indent':
      return 'an indented line';
    case 'dedent':
      return 'the end of the indented block';
    case 'string':
      return `string ${JSON.stringify(token.value.length > 20 ? `${token.value.slice(0, 20)}...` : token.value)}`;
    case 'number':
      return `number ${token.value}`;
    default:
      return `'${token.value}'`;
  }
}

/**
 * @internal The parser's view of the tokens: lookahead, expectations with positioned
 * `POLICY_SYNTAX` errors, and the nesting counter behind {@link MAX_POLICY_NESTING}. It is the one
 * state the parser's parts share: each takes the stream it reads from.
 */
export class TokenStream {
  private position = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  peek(offset = 0): Token {
    return (this.tokens[this.position + offset] ?? this.tokens[this.tokens.length - 1]) as Token;
  }

  /** One level deeper (see {@link MAX_POLICY_NESTING}); pair with {@link TokenStream.leave}. */
  enter(token: Token = this.peek()): void {
    this.depth++;
    if (this.depth > MAX_POLICY_NESTING) {
      throw new PolicyError({
        code: 'POLICY_SYNTAX',
        message: `the policy nests deeper than MAX_POLICY_NESTING (${MAX_POLICY_NESTING} levels of brackets, operators, 'not' or blocks; each 'or' / 'and' of a chain is one level); split the expression with bindings (name := ...) or predicates, and write a long chain of alternatives as a list: any(word in text for word in ["a", "b", ...])`,
        line: token.line,
        column: token.column,
      });
    }
  }

  leave(levels = 1): void {
    this.depth -= levels;
  }

  next(): Token {
    const token = this.peek();
    if (this.position < this.tokens.length - 1) this.position++;
    return token;
  }

  isOp(value: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'op' && token.value === value;
  }

  isName(value: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'name' && token.value === value;
  }

  fail(expected: string, token: Token = this.peek()): never {
    throw new PolicyError({
      code: 'POLICY_SYNTAX',
      message: `expected ${expected}, found ${describe(token)}`,
      line: token.line,
      column: token.column,
    });
  }

  expectOp(value: string, context = ''): Token {
    if (!this.isOp(value)) this.fail(`'${value}'${context}`);
    return this.next();
  }

  expectName(what = 'a name'): Token {
    const token = this.peek();
    if (token.kind !== 'name' || keywords.has(token.value)) this.fail(what);
    return this.next();
  }

  expectNewline(): void {
    const token = this.peek();
    if (token.kind === 'newline') {
      this.next();
      return;
    }
    if (token.kind === 'eof' || token.kind === 'dedent') return;
    this.fail('end of line');
  }
}
