import { PolicyError } from '../policy-error.js';
import { parseArguments } from './parse-arguments.js';
import { parseExpression } from './parse-expression.js';
import type { Expr, Parameter, PolicyAst, Position, Statement, TopLevel } from './policy-ast.js';
import { keywords, TokenStream } from './token-stream.js';
import { type LineComment, type Token, tokenizePolicy } from './tokenize-policy.js';

export { MAX_POLICY_NESTING } from './token-stream.js';

const actions = new Set(['block', 'warn', 'log']);

/** Parses a policy: imports, bindings, predicates and rules, their blocks and statements. */
class Parser extends TokenStream {
  private readonly commentsByLine = new Map<number, LineComment>();

  constructor(tokens: Token[], comments: LineComment[]) {
    super(tokens);
    for (const comment of comments) this.commentsByLine.set(comment.line, comment);
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
          const expr = parseExpression(this);
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
            const expr = parseExpression(this);
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
      const parsed = parseArguments(this);
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
        const parsed = parseArguments(this);
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
      const expr = parseExpression(this);
      this.expectNewline();
      return { kind: 'binding', name: token.value, expr, ...at };
    }
    const expr = parseExpression(this);
    this.expectNewline();
    return { kind: 'condition', expr, ...at };
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
