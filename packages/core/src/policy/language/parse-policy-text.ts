import { PolicyError } from '../policy-error.js';
import type {
  CompareOperator,
  Expr,
  Parameter,
  PatternValue,
  PolicyAst,
  Position,
  Statement,
  ToolPattern,
  TopLevel,
} from './policy-ast.js';
import { type LineComment, type Token, tokenizePolicy } from './tokenize-policy.js';

const keywords = new Set([
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

const actions = new Set(['block', 'warn', 'log']);

/**
 * How deep expressions and blocks may nest (brackets, `not`, signs, operator chains, member
 * chains, indented blocks). The parser and the compiled rules recurse once per level, so an
 * unbounded depth would end in a RangeError; 500 is far beyond hand-written policies.
 * @internal
 */
export const MAX_POLICY_NESTING = 500;

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

class Parser {
  private position = 0;
  private depth = 0;
  private readonly commentsByLine = new Map<number, LineComment>();

  constructor(
    private readonly tokens: Token[],
    comments: LineComment[],
  ) {
    for (const comment of comments) this.commentsByLine.set(comment.line, comment);
  }

  private peek(offset = 0): Token {
    return (this.tokens[this.position + offset] ?? this.tokens[this.tokens.length - 1]) as Token;
  }

  /** One level deeper (see {@link MAX_POLICY_NESTING}); pair with {@link Parser.leave}. */
  private enter(token: Token = this.peek()): void {
    this.depth++;
    if (this.depth > MAX_POLICY_NESTING) {
      throw new PolicyError({
        code: 'POLICY_SYNTAX',
        message: `the policy nests deeper than MAX_POLICY_NESTING (${MAX_POLICY_NESTING} levels of brackets, operators, 'not' or blocks); split the expression with bindings (name := ...) or predicates`,
        line: token.line,
        column: token.column,
      });
    }
  }

  private leave(levels = 1): void {
    this.depth -= levels;
  }

  private next(): Token {
    const token = this.peek();
    if (this.position < this.tokens.length - 1) this.position++;
    return token;
  }

  private isOp(value: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'op' && token.value === value;
  }

  private isName(value: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'name' && token.value === value;
  }

  private fail(expected: string, token: Token = this.peek()): never {
    throw new PolicyError({
      code: 'POLICY_SYNTAX',
      message: `expected ${expected}, found ${describe(token)}`,
      line: token.line,
      column: token.column,
    });
  }

  private expectOp(value: string, context = ''): Token {
    if (!this.isOp(value)) this.fail(`'${value}'${context}`);
    return this.next();
  }

  private expectName(what = 'a name'): Token {
    const token = this.peek();
    if (token.kind !== 'name' || keywords.has(token.value)) this.fail(what);
    return this.next();
  }

  private expectNewline(): void {
    const token = this.peek();
    if (token.kind === 'newline') {
      this.next();
      return;
    }
    if (token.kind === 'eof' || token.kind === 'dedent') return;
    this.fail('end of line');
  }

  parsePolicy(): PolicyAst {
    const items: TopLevel[] = [];
    for (;;) {
      const token = this.peek();
      if (token.kind === 'eof') break;
      if (token.kind === 'newline') {
        this.next();
        continue;
      }
      if (token.kind === 'indent') {
        this.fail(
          "a rule ('raise'), predicate, binding or import at the start of the line (unexpected indentation)",
        );
      }
      items.push(this.parseTopLevel());
    }
    return { items };
  }

  private parseTopLevel(): TopLevel {
    const token = this.peek();
    const at = { line: token.line, column: token.column };
    if (token.kind === 'name') {
      switch (token.value) {
        case 'raise':
          return this.parseRule();
        case 'from': {
          this.next();
          const module = this.parseDottedName();
          if (!this.isName('import')) this.fail("'import'");
          this.next();
          const names: { name: string; at: Position }[] = [];
          do {
            if (names.length > 0) this.next();
            const name = this.expectName('an imported name');
            names.push({ name: name.value, at: { line: name.line, column: name.column } });
          } while (this.isOp(','));
          this.expectNewline();
          return { kind: 'import', module, names, ...at };
        }
        case 'import': {
          this.next();
          const module = this.parseDottedName();
          this.expectNewline();
          return { kind: 'import', module, names: [], ...at };
        }
        case 'def': {
          this.next();
          const name = this.expectName('a predicate name');
          const params = this.parseParameters();
          this.expectOp(':', ' after the parameters of a def');
          const body = this.parseBlock();
          return { kind: 'predicate', name: name.value, params, body, ...at };
        }
        default:
          break;
      }
      if (!keywords.has(token.value)) {
        if (this.isOp(':=', 1)) {
          this.next();
          this.next();
          const expr = this.parseExpression();
          this.expectNewline();
          return { kind: 'binding', name: token.value, expr, ...at };
        }
        if (this.isOp('(', 1)) {
          this.next();
          const params = this.parseParameters();
          this.expectOp(':=', ' after the parameters of a predicate');
          let body: Statement[];
          if (this.peek().kind === 'newline') body = this.parseBlock();
          else {
            const expr = this.parseExpression();
            this.expectNewline();
            body = [{ kind: 'condition', expr, line: expr.line, column: expr.column }];
          }
          return { kind: 'predicate', name: token.value, params, body, ...at };
        }
      }
    }
    return this.fail(
      "'raise', 'def', a predicate 'name(...) :=', a binding 'name := ...' or an import",
    );
  }

  private parseDottedName(): string {
    let name = this.expectName('a module name').value;
    while (this.isOp('.')) {
      this.next();
      name += `.${this.expectName('a module name').value}`;
    }
    return name;
  }

  private parseParameters(): Parameter[] {
    this.expectOp('(', ' to open the parameter list');
    const params: Parameter[] = [];
    while (!this.isOp(')')) {
      const name = this.expectName('a parameter name');
      let type: string | undefined;
      if (this.isOp(':')) {
        this.next();
        type = this.expectName('a parameter type').value;
      }
      params.push({ name: name.value, type, line: name.line, column: name.column });
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expectOp(')', ' to close the parameter list');
    return params;
  }

  private annotationsBefore(line: number): {
    action: { value: string; position: Position } | undefined;
    name: string | undefined;
  } {
    let action: { value: string; position: Position } | undefined;
    let name: string | undefined;
    for (let l = line - 1; ; l--) {
      const comment = this.commentsByLine.get(l);
      if (comment === undefined) break;
      const m = /^\s*(action|name)\s*:\s*(.*?)\s*$/i.exec(comment.text);
      if (m === null) continue;
      const key = (m[1] as string).toLowerCase();
      const value = m[2] as string;
      if (key === 'action') {
        if (!actions.has(value)) {
          throw new PolicyError({
            code: 'POLICY_SYNTAX',
            message: `unknown rule action ${JSON.stringify(value)}; expected block, warn or log`,
            line: comment.line,
            column: comment.column,
          });
        }
        action ??= { value, position: { line: comment.line, column: comment.column } };
      } else {
        name ??= value;
      }
    }
    return { action, name };
  }

  private parseRule(): TopLevel {
    const raise = this.next();
    const at = { line: raise.line, column: raise.column };
    let message: string;
    let args: Expr[] = [];
    let namedArgs: { name: string; value: Expr }[] = [];
    const target = this.peek();
    if (target.kind === 'string') {
      message = this.next().value;
      while (this.peek().kind === 'string') message += this.next().value;
    } else if (target.kind === 'name' && !keywords.has(target.value) && this.isOp('(', 1)) {
      this.next();
      this.next();
      const parsed = this.parseArguments();
      const first = parsed.args[0];
      if (first === undefined) {
        // keyword arguments only: the arguments carry the meaning, the message is empty
        message = '';
      } else if (first.kind !== 'literal' || typeof first.value !== 'string') {
        throw new PolicyError({
          code: 'POLICY_SYNTAX',
          message: `expected the violation message as a string literal first argument of ${target.value}(...), or keyword arguments only`,
          line: first.line,
          column: first.column,
        });
      } else {
        message = first.value;
      }
      args = parsed.args.slice(1);
      namedArgs = parsed.namedArgs;
    } else {
      return this.fail('a message string or PolicyViolation("message", ...) after raise');
    }
    if (!this.isName('if')) this.fail("'if' after the raise message");
    this.next();
    this.expectOp(':', " after 'raise ... if'");
    const body = this.parseBlock();
    const { action, name } = this.annotationsBefore(raise.line);
    return { kind: 'rule', message, args, namedArgs, body, action, name, ...at };
  }

  /** After a ':' either an indented block or a single statement on the same line. */
  private parseBlock(): Statement[] {
    this.enter();
    const body = this.parseBlockBody();
    this.leave();
    return body;
  }

  private parseBlockBody(): Statement[] {
    if (this.peek().kind !== 'newline') {
      if (this.peek().kind === 'eof') this.fail("an indented block or a condition after ':'");
      return [this.parseStatement()];
    }
    this.next();
    if (this.peek().kind !== 'indent') this.fail("an indented block after ':'");
    this.next();
    const body: Statement[] = [];
    while (this.peek().kind !== 'dedent' && this.peek().kind !== 'eof') {
      if (this.peek().kind === 'newline') {
        this.next();
        continue;
      }
      if (this.peek().kind === 'indent')
        this.fail('a condition at the indentation of the block (unexpected indentation)');
      body.push(this.parseStatement());
    }
    if (this.peek().kind === 'dedent') this.next();
    return body;
  }

  private isQuantifierHead(): boolean {
    let offset = 0;
    if (this.isName('not')) offset = 1;
    const head = this.peek(offset);
    if (head.kind !== 'name') return false;
    if (head.value === 'forall' || head.value === 'exists') return this.isOp(':', offset + 1);
    if (head.value !== 'count' || !this.isOp('(', offset + 1)) return false;
    // find the matching ')' and check for ':'
    let depth = 0;
    for (let k = offset + 1; ; k++) {
      const token = this.peek(k);
      if (token.kind === 'eof' || token.kind === 'newline') return false;
      if (token.kind !== 'op') continue;
      if (token.value === '(' || token.value === '[' || token.value === '{') depth++;
      else if (token.value === ')' || token.value === ']' || token.value === '}') {
        depth--;
        if (depth === 0) return this.isOp(':', k + 1);
      }
    }
  }

  private parseStatement(): Statement {
    const token = this.peek();
    const at = { line: token.line, column: token.column };
    if (this.isQuantifierHead()) {
      let negated = false;
      if (this.isName('not')) {
        this.next();
        negated = true;
      }
      const head = this.next();
      let min: Expr | undefined;
      let max: Expr | undefined;
      if (head.value === 'count') {
        this.next(); // (
        const parsed = this.parseArguments();
        if (parsed.args.length > 0) {
          const first = parsed.args[0] as Expr;
          throw new PolicyError({
            code: 'POLICY_SYNTAX',
            message:
              'count(...) takes only min= and max= arguments; expected count(min=..., max=...)',
            line: first.line,
            column: first.column,
          });
        }
        for (const named of parsed.namedArgs) {
          if (named.name === 'min') min = named.value;
          else if (named.name === 'max') max = named.value;
          else {
            throw new PolicyError({
              code: 'POLICY_SYNTAX',
              message: `unknown count argument ${JSON.stringify(named.name)}; expected min= or max=`,
              line: named.value.line,
              column: named.value.column,
            });
          }
        }
      }
      this.expectOp(':', ` after ${head.value}`);
      const body = this.parseBlock();
      if (body.length === 0) this.fail(`a condition inside ${head.value}:`);
      return {
        kind: 'quantifier',
        quantifier: head.value as 'forall' | 'exists' | 'count',
        min,
        max,
        negated,
        body,
        ...at,
      };
    }
    if (token.kind === 'name' && !keywords.has(token.value) && this.isOp(':=', 1)) {
      this.next();
      this.next();
      const expr = this.parseExpression();
      this.expectNewline();
      return { kind: 'binding', name: token.value, expr, ...at };
    }
    const expr = this.parseExpression();
    this.expectNewline();
    return { kind: 'condition', expr, ...at };
  }

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

  private parseOr(): Expr {
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

  private parseAnd(): Expr {
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

  private parseNot(): Expr {
    if (this.isName('not') && !this.isName('in', 1)) {
      const op = this.next();
      this.enter(op);
      const operand = this.parseNot();
      this.leave();
      return { kind: 'unary', operator: 'not', operand, line: op.line, column: op.column };
    }
    return this.parseComparison();
  }

  private compareOperator(): CompareOperator | undefined {
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

  private parseComparison(): Expr {
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

  private parseToolPattern(): ToolPattern {
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

  private parsePatternValue(): PatternValue {
    this.enter();
    const value = this.parsePatternValueInner();
    this.leave();
    return value;
  }

  private parsePatternValueInner(): PatternValue {
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

  private parseArithmetic(): Expr {
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

  private parseTerm(): Expr {
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

  private parseUnary(): Expr {
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
  private parsePower(): Expr {
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

  private parsePostfix(): Expr {
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
  private parseArguments(): { args: Expr[]; namedArgs: { name: string; value: Expr }[] } {
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

  private parseComprehensionTail(element: Expr, at: Position): Expr {
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

  private parsePrimary(): Expr {
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

/**
 * Parses policy text into its syntax tree. Throws {@link PolicyError} `POLICY_SYNTAX` with the
 * line and column of the first problem.
 * @internal
 */
export function parsePolicyText(text: string): PolicyAst {
  const { tokens, comments } = tokenizePolicy(text);
  return new Parser(tokens, comments).parsePolicy();
}
