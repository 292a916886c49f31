import { PolicyError } from '../policy-error.js';
import type { CompareOperator, Expr, PatternValue, Position, ToolPattern } from './policy-ast.js';
import { keywords, TokenStream } from './token-stream.js';

/**
 * @internal Parses expressions with Python's precedence, from conditional expressions down to
 * primaries, and tool patterns with their argument patterns.
 */
export class ExpressionParser extends TokenStream {
  parseExpression(): Expr {
    this.enter();
    const value = this.parseOr();
    let expr = value;
    if (this.isName('if')) {
      // `a if cond else b`, Python's conditional expression
      const token = this.next();
      const condition = this.parseOr();
      if (!this.isName('else')) this.fail("'else' in a conditional expression (a if cond else b)");
      this.next();
      const otherwise = this.parseExpression();
      expr = {
        kind: 'conditional',
        condition,
        whenTrue: value,
        otherwise,
        line: token.line,
        column: token.column,
      };
    }
    this.leave();
    return expr;
  }

  protected parseOr(): Expr {
    let left = this.parseAnd();
    let levels = 0;
    while (this.isName('or')) {
      const op = this.next();
      this.enter(op);
      levels++;
      const right = this.parseAnd();
      left = { kind: 'logical', operator: 'or', left, right, line: op.line, column: op.column };
    }
    this.leave(levels);
    return left;
  }

  protected parseAnd(): Expr {
    let left = this.parseNot();
    let levels = 0;
    while (this.isName('and')) {
      const op = this.next();
      this.enter(op);
      levels++;
      const right = this.parseNot();
      left = { kind: 'logical', operator: 'and', left, right, line: op.line, column: op.column };
    }
    this.leave(levels);
    return left;
  }

  protected parseNot(): Expr {
    if (this.isName('not') && !this.isName('in', 1)) {
      const op = this.next();
      this.enter(op);
      const operand = this.parseNot();
      this.leave();
      return { kind: 'unary', operator: 'not', operand, line: op.line, column: op.column };
    }
    return this.parseComparison();
  }

  protected compareOperator(): CompareOperator | undefined {
    const token = this.peek();
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
    if (token.value === 'not' && this.isName('in', 1)) return 'not in';
    if (token.value === 'is') return this.isName('not', 1) ? 'is not' : 'is';
    return undefined;
  }

  protected parseComparison(): Expr {
    const first = this.parseArithmetic();
    const operators: CompareOperator[] = [];
    const operatorPositions: Position[] = [];
    const operands: Expr[] = [first];
    let levels = 0;
    for (;;) {
      const operator = this.compareOperator();
      if (operator === undefined) break;
      const token = this.next();
      this.enter(token);
      levels++;
      if (operator === 'not in' || operator === 'is not') this.next();
      if (
        (operator === 'is' || operator === 'is not') &&
        this.isName('tool') &&
        this.isOp(':', 1)
      ) {
        if (operators.length > 0)
          this.fail('a single comparison before a tool pattern (use and)', token);
        const pattern = this.parseToolPattern();
        this.leave(levels);
        return {
          kind: 'pattern',
          subject: first,
          pattern,
          negated: operator === 'is not',
          line: token.line,
          column: token.column,
        };
      }
      operators.push(operator);
      operatorPositions.push({ line: token.line, column: token.column });
      operands.push(this.parseArithmetic());
    }
    this.leave(levels);
    if (operators.length === 0) return first;
    const at = operatorPositions[0] as Position;
    return {
      kind: 'compare',
      operators,
      operands,
      operatorPositions,
      line: at.line,
      column: at.column,
    };
  }

  protected parseToolPattern(): ToolPattern {
    const tool = this.next(); // tool
    this.next(); // :
    const nameToken = this.peek();
    let name: string;
    let plainName = false;
    if (nameToken.kind === 'name') {
      name = this.next().value;
      plainName = true;
      // allow dotted / dashed tool names written plainly: tool:mcp.read_file
      while (this.isOp('.') && this.peek(1).kind === 'name') {
        this.next();
        name += `\\.${this.next().value}`;
        plainName = false;
      }
    } else if (nameToken.kind === 'string') {
      name = this.next().value;
      plainName = /^[A-Za-z0-9_-]+$/.test(name);
    } else {
      return this.fail('a tool name after tool:', nameToken);
    }
    let args: PatternValue | undefined;
    if (this.isOp('(')) {
      this.next();
      if (!this.isOp(')')) args = this.parsePatternValue();
      this.expectOp(')', ' to close the tool pattern');
      if (args !== undefined && args.kind !== 'dict') {
        throw new PolicyError({
          code: 'POLICY_SYNTAX',
          message: 'expected a dict of argument patterns inside tool:name({...})',
          line: args.line,
          column: args.column,
        });
      }
    }
    return { name, plainName, arguments: args, line: tool.line, column: tool.column };
  }

  protected parsePatternValue(): PatternValue {
    this.enter();
    const value = this.parsePatternValueInner();
    this.leave();
    return value;
  }

  protected parsePatternValueInner(): PatternValue {
    const token = this.peek();
    const at = { line: token.line, column: token.column };
    if (token.kind === 'string') {
      let source = this.next().value;
      while (this.peek().kind === 'string') source += this.next().value;
      return { kind: 'regex', source, ...at };
    }
    if (token.kind === 'number') return { kind: 'value', value: Number(this.next().value), ...at };
    if (this.isOp('-') && this.peek(1).kind === 'number') {
      this.next();
      return { kind: 'value', value: -Number(this.next().value), ...at };
    }
    if (token.kind === 'name' && (token.value === 'True' || token.value === 'true')) {
      this.next();
      return { kind: 'value', value: true, ...at };
    }
    if (token.kind === 'name' && (token.value === 'False' || token.value === 'false')) {
      this.next();
      return { kind: 'value', value: false, ...at };
    }
    if (token.kind === 'name' && (token.value === 'None' || token.value === 'null')) {
      this.next();
      return { kind: 'value', value: null, ...at };
    }
    if (this.isOp('*')) {
      this.next();
      return { kind: 'wildcard', ...at };
    }
    if (this.isOp('<') && this.peek(1).kind === 'name' && this.isOp('>', 2)) {
      this.next();
      const entity = this.next().value;
      this.next();
      return { kind: 'placeholder', entity, ...at };
    }
    if (this.isOp('{')) {
      this.next();
      const entries: { key: string; value: PatternValue }[] = [];
      while (!this.isOp('}')) {
        const key = this.peek();
        if (key.kind !== 'name' && key.kind !== 'string')
          this.fail('an argument name (name or string) in the pattern dict');
        this.next();
        this.expectOp(':', ' after the argument name');
        entries.push({ key: key.value, value: this.parsePatternValue() });
        if (!this.isOp(',')) break;
        this.next();
      }
      this.expectOp('}', ' to close the pattern dict');
      return { kind: 'dict', entries, ...at };
    }
    if (this.isOp('[')) {
      this.next();
      const items: PatternValue[] = [];
      while (!this.isOp(']')) {
        items.push(this.parsePatternValue());
        if (!this.isOp(',')) break;
        this.next();
      }
      this.expectOp(']', ' to close the pattern list');
      return { kind: 'list', items, ...at };
    }
    return this.fail(
      'a pattern value: a string (full-match regex), number, True/False/None, dict, list, * or <ENTITY>',
    );
  }

  protected parseArithmetic(): Expr {
    let left = this.parseTerm();
    let levels = 0;
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next();
      this.enter(op);
      levels++;
      const right = this.parseTerm();
      left = {
        kind: 'binary',
        operator: op.value as '+' | '-',
        left,
        right,
        line: op.line,
        column: op.column,
      };
    }
    this.leave(levels);
    return left;
  }

  protected parseTerm(): Expr {
    let left = this.parseUnary();
    let levels = 0;
    while (this.isOp('*') || this.isOp('/') || this.isOp('//') || this.isOp('%')) {
      const op = this.next();
      this.enter(op);
      levels++;
      const right = this.parseUnary();
      left = {
        kind: 'binary',
        operator: op.value as '*' | '/' | '//' | '%',
        left,
        right,
        line: op.line,
        column: op.column,
      };
    }
    this.leave(levels);
    return left;
  }

  protected parseUnary(): Expr {
    if (this.isOp('-') || this.isOp('+')) {
      const op = this.next();
      this.enter(op);
      const operand = this.parseUnary();
      this.leave();
      return {
        kind: 'unary',
        operator: op.value as '-' | '+',
        operand,
        line: op.line,
        column: op.column,
      };
    }
    return this.parsePower();
  }

  /** `a ** b`: binds tighter than a sign on its left, right-associative (`-2 ** 2` is -4). */
  protected parsePower(): Expr {
    const base = this.parsePostfix();
    if (!this.isOp('**')) return base;
    const op = this.next();
    this.enter(op);
    const exponent = this.parseUnary();
    this.leave();
    return {
      kind: 'binary',
      operator: '**',
      left: base,
      right: exponent,
      line: op.line,
      column: op.column,
    };
  }

  protected parsePostfix(): Expr {
    let expr = this.parsePrimary();
    let levels = 0;
    for (;;) {
      if (this.isOp('.') || this.isOp('[') || this.isOp('(')) {
        this.enter();
        levels++;
      }
      if (this.isOp('.')) {
        const dot = this.next();
        const name = this.peek();
        if (name.kind !== 'name') this.fail("a member name after '.'");
        this.next();
        expr = {
          kind: 'member',
          object: expr,
          name: name.value,
          line: dot.line,
          column: dot.column + 1,
        };
      } else if (this.isOp('[')) {
        const open = this.next();
        const index = this.parseExpression();
        this.expectOp(']', ' to close the index');
        expr = { kind: 'index', object: expr, index, line: open.line, column: open.column };
      } else if (this.isOp('(')) {
        const open = this.next();
        const parsed = this.parseArguments();
        expr = {
          kind: 'call',
          callee: expr,
          args: parsed.args,
          namedArgs: parsed.namedArgs,
          line: open.line,
          column: open.column,
        };
      } else {
        this.leave(levels);
        return expr;
      }
    }
  }

  /** After '(' : positional and named arguments, or a single generator expression, then ')'. */
  protected parseArguments(): { args: Expr[]; namedArgs: { name: string; value: Expr }[] } {
    const args: Expr[] = [];
    const namedArgs: { name: string; value: Expr }[] = [];
    while (!this.isOp(')')) {
      const token = this.peek();
      if (token.kind === 'name' && !keywords.has(token.value) && this.isOp('=', 1)) {
        this.next();
        this.next();
        namedArgs.push({ name: token.value, value: this.parseExpression() });
      } else {
        if (namedArgs.length > 0) this.fail('a named argument (positional arguments go first)');
        const value = this.parseExpression();
        if (this.isName('for') && args.length === 0) {
          args.push(this.parseComprehensionTail(value, token));
          break;
        }
        args.push(value);
      }
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expectOp(')', ' to close the argument list');
    return { args, namedArgs };
  }

  protected parseComprehensionTail(element: Expr, at: Position): Expr {
    this.next(); // for
    const variable = this.expectName('a loop variable after for');
    if (!this.isName('in')) this.fail("'in' after the loop variable");
    this.next();
    const iterable = this.parseOr();
    let condition: Expr | undefined;
    if (this.isName('if')) {
      this.next();
      condition = this.parseOr();
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

  protected parsePrimary(): Expr {
    const token = this.peek();
    const at = { line: token.line, column: token.column };
    switch (token.kind) {
      case 'number':
        this.next();
        return { kind: 'literal', value: Number(token.value), ...at };
      case 'string': {
        this.next();
        let value = token.value;
        while (this.peek().kind === 'string') value += this.next().value;
        return { kind: 'literal', value, raw: token.raw, ...at };
      }
      case 'name': {
        switch (token.value) {
          case 'True':
          case 'true':
            this.next();
            return { kind: 'literal', value: true, ...at };
          case 'False':
          case 'false':
            this.next();
            return { kind: 'literal', value: false, ...at };
          case 'None':
          case 'null':
            this.next();
            return { kind: 'literal', value: null, ...at };
          default:
            break;
        }
        if (keywords.has(token.value)) this.fail('an expression');
        this.next();
        return { kind: 'name', name: token.value, ...at };
      }
      case 'op':
        break;
      default:
        return this.fail('an expression');
    }
    if (token.value === '(') {
      // typed declaration (name: Type)
      if (
        this.peek(1).kind === 'name' &&
        this.isOp(':', 2) &&
        this.peek(3).kind === 'name' &&
        this.isOp(')', 4)
      ) {
        this.next();
        const name = this.next();
        if (keywords.has(name.value)) this.fail('a variable name', name);
        this.next();
        const type = this.next();
        this.next();
        return {
          kind: 'declaration',
          name: name.value,
          type: type.value,
          typePosition: { line: type.line, column: type.column },
          ...at,
        };
      }
      this.next();
      if (this.isOp(')')) {
        this.next();
        return { kind: 'list', items: [], ...at };
      }
      const first = this.parseExpression();
      if (this.isName('for')) {
        const comprehension = this.parseComprehensionTail(first, at);
        this.expectOp(')', ' to close the generator expression');
        return comprehension;
      }
      if (this.isOp(',')) {
        const items = [first];
        while (this.isOp(',')) {
          this.next();
          if (this.isOp(')')) break;
          items.push(this.parseExpression());
        }
        this.expectOp(')', ' to close the tuple');
        return { kind: 'list', items, ...at };
      }
      this.expectOp(')', ' to close the parenthesis');
      return first;
    }
    if (token.value === '[') {
      this.next();
      if (this.isOp(']')) {
        this.next();
        return { kind: 'list', items: [], ...at };
      }
      const first = this.parseExpression();
      if (this.isName('for')) {
        const comprehension = this.parseComprehensionTail(first, at);
        this.expectOp(']', ' to close the list comprehension');
        return comprehension;
      }
      const items = [first];
      while (this.isOp(',')) {
        this.next();
        if (this.isOp(']')) break;
        items.push(this.parseExpression());
      }
      this.expectOp(']', ' to close the list');
      return { kind: 'list', items, ...at };
    }
    if (token.value === '{') {
      this.next();
      const entries: { key: Expr; value: Expr }[] = [];
      while (!this.isOp('}')) {
        const key = this.parseExpression();
        this.expectOp(':', ' between a dict key and its value');
        entries.push({ key, value: this.parseExpression() });
        if (!this.isOp(',')) break;
        this.next();
      }
      this.expectOp('}', ' to close the dict');
      return { kind: 'dict', entries, ...at };
    }
    return this.fail('an expression');
  }
}
