import { parseArguments } from './parse-arguments.js';
import { parsePrimary } from './parse-primary.js';
import { parseToolPattern } from './parse-tool-pattern.js';
import type { CompareOperator, Expr, Position } from './policy-ast.js';
import type { TokenStream } from './token-stream.js';
import type { Token } from './tokenize-policy.js';

/**
 * @internal Parses an expression with Python's precedence, from conditional expressions
 * (`a if cond else b`) through `or`, `and`, `not`, comparison chains and tool patterns,
 * arithmetic, signs and `**`, down to member access, indexes and calls on a primary.
 */
export function parseExpression(stream: TokenStream): Expr {
  stream.enter();
  const value = parseDisjunction(stream);
  let expr = value;
  if (stream.isName('if')) {
    // `a if cond else b`, Python's conditional expression
    const token = stream.next();
    const condition = parseDisjunction(stream);
    if (!stream.isName('else'))
      stream.fail("'else' in a conditional expression (a if cond else b)");
    stream.next();
    const otherwise = parseExpression(stream);
    expr = {
      kind: 'conditional',
      condition,
      whenTrue: value,
      otherwise,
      line: token.line,
      column: token.column,
    };
  }
  stream.leave();
  return expr;
}

/**
 * Operators grouped from the left, by precedence, loosest first: each level's operands are
 * expressions of the next level, `not ...` after `and`, signed operands after `*`.
 */
const operatorLevels: readonly {
  kind: 'logical' | 'binary';
  /** `or`/`and` are names; arithmetic operators are operator tokens. */
  token: 'name' | 'op';
  operators: readonly string[];
}[] = [
  { kind: 'logical', token: 'name', operators: ['or'] },
  { kind: 'logical', token: 'name', operators: ['and'] },
  { kind: 'binary', token: 'op', operators: ['+', '-'] },
  { kind: 'binary', token: 'op', operators: ['*', '/', '//', '%'] },
];
const conjunction = 1;
const sum = 2;
const product = 3;

/**
 * @internal `a or b or ...`: an expression without a conditional, as in a comprehension's
 * iterable and condition.
 */
export function parseDisjunction(stream: TokenStream): Expr {
  return parseOperators(stream, 0);
}

/**
 * One level of {@link operatorLevels}. Each operator is one level of nesting (see
 * `MAX_POLICY_NESTING`), released when the chain ends. Operands are parsed here, not through a
 * helper: every stack frame per nesting level counts, as deep nesting must reach that limit (a
 * positioned error) before the stack ends (a RangeError).
 */
function parseOperators(stream: TokenStream, level: number): Expr {
  const { kind, token, operators } = operatorLevels[level] as (typeof operatorLevels)[number];
  let left: Expr | undefined;
  let operator: Token | undefined;
  let levels = 0;
  for (;;) {
    const right =
      level === conjunction
        ? parseNegation(stream)
        : level === product
          ? parseUnary(stream)
          : parseOperators(stream, level + 1);
    left =
      left === undefined || operator === undefined
        ? right
        : ({ kind, operator: operator.value, left, right, ...at(operator) } as Expr);
    const next = stream.peek();
    if (next.kind !== token || !operators.includes(next.value)) break;
    operator = stream.next();
    stream.enter(operator);
    levels++;
  }
  stream.leave(levels);
  return left;
}

function parseNegation(stream: TokenStream): Expr {
  if (stream.isName('not') && !stream.isName('in', 1)) {
    const op = stream.next();
    stream.enter(op);
    const operand = parseNegation(stream);
    stream.leave();
    return { kind: 'unary', operator: 'not', operand, ...at(op) };
  }
  return parseComparison(stream);
}

function compareOperator(stream: TokenStream): CompareOperator | undefined {
  const token = stream.peek();
  if (token.kind === 'op') {
    switch (token.value) {
      case '==':
      case '!=':
      case '<':
      case '>':
      case '<=':
      case '>=':
      case '->':
      case '~>':
        return token.value;
      default:
        return undefined;
    }
  }
  if (token.kind !== 'name') return undefined;
  if (token.value === 'in') return 'in';
  if (token.value === 'contains_only') return 'contains_only';
  if (token.value === 'not' && stream.isName('in', 1)) return 'not in';
  if (token.value === 'is') return stream.isName('not', 1) ? 'is not' : 'is';
  return undefined;
}

/** A comparison chain `a < b <= c`, or `x is tool:name(...)` (a single comparison). */
function parseComparison(stream: TokenStream): Expr {
  const first = parseOperators(stream, sum);
  const operators: CompareOperator[] = [];
  const operatorPositions: Position[] = [];
  const operands: Expr[] = [first];
  let levels = 0;
  for (;;) {
    const operator = compareOperator(stream);
    if (operator === undefined) break;
    const token = stream.next();
    stream.enter(token);
    levels++;
    if (operator === 'not in' || operator === 'is not') stream.next();
    if (
      (operator === 'is' || operator === 'is not') &&
      stream.isName('tool') &&
      stream.isOp(':', 1)
    ) {
      if (operators.length > 0)
        stream.fail('a single comparison before a tool pattern (use and)', token);
      const pattern = parseToolPattern(stream);
      stream.leave(levels);
      return {
        kind: 'pattern',
        subject: first,
        pattern,
        negated: operator === 'is not',
        ...at(token),
      };
    }
    operators.push(operator);
    operatorPositions.push(at(token));
    operands.push(parseOperators(stream, sum));
  }
  stream.leave(levels);
  if (operators.length === 0) return first;
  const position = operatorPositions[0] as Position;
  return {
    kind: 'compare',
    operators,
    operands,
    operatorPositions,
    line: position.line,
    column: position.column,
  };
}

function parseUnary(stream: TokenStream): Expr {
  if (stream.isOp('-') || stream.isOp('+')) {
    const op = stream.next();
    stream.enter(op);
    const operand = parseUnary(stream);
    stream.leave();
    return { kind: 'unary', operator: op.value as '-' | '+', operand, ...at(op) };
  }
  return parsePower(stream);
}

/** `a ** b`: binds tighter than a sign on its left, right-associative (`-2 ** 2` is -4). */
function parsePower(stream: TokenStream): Expr {
  const base = parsePostfix(stream);
  if (!stream.isOp('**')) return base;
  const op = stream.next();
  stream.enter(op);
  const exponent = parseUnary(stream);
  stream.leave();
  return { kind: 'binary', operator: '**', left: base, right: exponent, ...at(op) };
}

/** A primary followed by `.name`, `[index]` and `(arguments)`, in any number. */
function parsePostfix(stream: TokenStream): Expr {
  let expr = parsePrimary(stream);
  let levels = 0;
  for (;;) {
    if (stream.isOp('.') || stream.isOp('[') || stream.isOp('(')) {
      stream.enter();
      levels++;
    }
    if (stream.isOp('.')) {
      const dot = stream.next();
      const name = stream.peek();
      if (name.kind !== 'name') stream.fail("a member name after '.'");
      stream.next();
      expr = {
        kind: 'member',
        object: expr,
        name: name.value,
        line: dot.line,
        column: dot.column + 1,
      };
    } else if (stream.isOp('[')) {
      const open = stream.next();
      const index = parseExpression(stream);
      stream.expectOp(']', ' to close the index');
      expr = { kind: 'index', object: expr, index, ...at(open) };
    } else if (stream.isOp('(')) {
      const open = stream.next();
      const parsed = parseArguments(stream);
      expr = {
        kind: 'call',
        callee: expr,
        args: parsed.args,
        namedArgs: parsed.namedArgs,
        ...at(open),
      };
    } else {
      stream.leave(levels);
      return expr;
    }
  }
}

function at(token: Token): Position {
  return { line: token.line, column: token.column };
}
