import { PolicyError } from '../policy-error.js';

/** @internal */
export type TokenKind =
  | 'name'
  | 'string'
  | 'number'
  | 'op'
  | 'newline'
  | 'indent'
  | 'dedent'
  | 'eof';

/** @internal A token of policy text with its 1-based position. */
export interface Token {
  kind: TokenKind;
  /** Name, operator text, decoded string value or number source. */
  value: string;
  /** For strings: whether it was a raw string (`r"..."`). */
  raw: boolean;
  line: number;
  column: number;
}

/** @internal A comment on a line of its own (annotations like `# action: warn`). */
export interface LineComment {
  line: number;
  column: number;
  text: string;
}

/** @internal */
export interface TokenizedPolicy {
  tokens: Token[];
  comments: LineComment[];
}

const operators = [
  '**',
  ':=',
  '->',
  '~>',
  '==',
  '!=',
  '<=',
  '>=',
  '//',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ':',
  '.',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
];

const isNameStart = (c: string): boolean => /[A-Za-z_]/.test(c);
const isNamePart = (c: string): boolean => /[A-Za-z0-9_]/.test(c);
const isDigit = (c: string): boolean => c >= '0' && c <= '9';

function describe(c: string): string {
  return c === '\n' ? 'end of line' : JSON.stringify(c);
}

/**
 * Splits policy text into tokens, Python style: INDENT/DEDENT from leading whitespace, NEWLINE at
 * the end of each logical line, no newlines inside brackets. The first indented line sets the base
 * indentation, so policy text embedded in source code needs no dedent and keeps its columns.
 * @internal
 */
export function tokenizePolicy(text: string): TokenizedPolicy {
  const tokens: Token[] = [];
  const comments: LineComment[] = [];
  const indents: number[] = [];
  let base: number | undefined;
  let depth = 0; // bracket nesting
  const brackets: Token[] = [];
  // a byte order mark (editors on Windows write one) is not part of the policy
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let lineStart = i;
  let atLineStart = true;
  const n = text.length;
  const col = (at: number): number => at - lineStart + 1;
  const fail = (message: string, l: number, c: number): never => {
    throw new PolicyError({ code: 'POLICY_SYNTAX', message, line: l, column: c });
  };
  const push = (kind: TokenKind, value: string, l: number, c: number, raw = false): void => {
    tokens.push({ kind, value, raw, line: l, column: c });
  };

  while (i < n) {
    if (atLineStart && depth === 0) {
      // measure indentation of this physical line
      let j = i;
      let width = 0;
      while (j < n && (text[j] === ' ' || text[j] === '\t')) {
        width += text[j] === '\t' ? 8 - (width % 8) : 1;
        j++;
      }
      const c = text[j];
      if (j >= n || c === '\n' || c === '\r' || c === '#') {
        // blank or comment-only line: no indentation change
        if (c === '#') {
          let k = j;
          while (k < n && text[k] !== '\n') k++;
          comments.push({ line, column: col(j), text: text.slice(j + 1, k).replace(/\r$/, '') });
          j = k;
        }
        if (j < n) {
          j++; // newline (\r handled as whitespace below)
          if (text[j - 1] === '\r' && text[j] === '\n') j++;
        }
        i = j;
        line++;
        lineStart = i;
        continue;
      }
      if (base === undefined) {
        base = width;
        indents.push(width);
      }
      const top = indents[indents.length - 1] ?? 0;
      if (width > top) {
        indents.push(width);
        push('indent', '', line, col(j));
      } else if (width < top) {
        while ((indents[indents.length - 1] ?? 0) > width) {
          indents.pop();
          push('dedent', '', line, col(j));
        }
        if ((indents[indents.length - 1] ?? -1) !== width) {
          fail(
            'indentation does not match any outer indentation level; expected the indentation of an enclosing block',
            line,
            col(j),
          );
        }
      }
      i = j;
      atLineStart = false;
      continue;
    }
    const c = text[i] as string;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f') {
      i++;
      continue;
    }
    if (c === '\n') {
      // a line ending in `and` / `or` continues on the next one (Invariant's grammar allows it)
      const last = tokens[tokens.length - 1];
      const continues = last?.kind === 'name' && (last.value === 'and' || last.value === 'or');
      if (depth === 0 && !continues) {
        push('newline', '', line, col(i));
        atLineStart = true;
      }
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === '\\' && (text[i + 1] === '\n' || (text[i + 1] === '\r' && text[i + 2] === '\n'))) {
      i += text[i + 1] === '\r' ? 3 : 2;
      line++;
      lineStart = i;
      continue;
    }
    if (c === '#') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    const startLine = line;
    const startColumn = col(i);
    // strings, with optional r/R prefix
    let raw = false;
    let q = i;
    if ((c === 'r' || c === 'R') && (text[i + 1] === '"' || text[i + 1] === "'")) {
      raw = true;
      q = i + 1;
    }
    const quote = text[q];
    if (quote === '"' || quote === "'") {
      const triple = text[q + 1] === quote && text[q + 2] === quote;
      let j = q + (triple ? 3 : 1);
      let value = '';
      let closed = false;
      while (j < n) {
        const d = text[j] as string;
        if (triple ? d === quote && text[j + 1] === quote && text[j + 2] === quote : d === quote) {
          j += triple ? 3 : 1;
          closed = true;
          break;
        }
        if (d === '\n') {
          if (!triple) break;
          line++;
          lineStart = j + 1;
          value += d;
          j++;
          continue;
        }
        if (d === '\\' && j + 1 < n) {
          const e = text[j + 1] as string;
          if (raw) {
            value += d + e;
            if (e === '\n') {
              line++;
              lineStart = j + 2;
            }
            j += 2;
            continue;
          }
          j += 2;
          switch (e) {
            case 'n':
              value += '\n';
              break;
            case 't':
              value += '\t';
              break;
            case 'r':
              value += '\r';
              break;
            case '0':
              value += '\0';
              break;
            case '\\':
            case '"':
            case "'":
              value += e;
              break;
            case '\n':
              line++;
              lineStart = j;
              break;
            case 'x':
            case 'u': {
              const len = e === 'x' ? 2 : 4;
              const hex = text.slice(j, j + len);
              if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) {
                fail(
                  `invalid \\${e} escape in string; expected ${len} hex digits`,
                  line,
                  col(j - 2),
                );
              }
              value += String.fromCharCode(Number.parseInt(hex, 16));
              j += len;
              break;
            }
            default:
              value += `\\${e}`; // unknown escapes keep their backslash, as in Python
          }
          continue;
        }
        value += d;
        j++;
      }
      if (!closed) fail('unterminated string; expected a closing quote', startLine, startColumn);
      push('string', value, startLine, startColumn, raw);
      i = j;
      continue;
    }
    if (isNameStart(c)) {
      let j = i + 1;
      while (j < n && isNamePart(text[j] as string)) j++;
      push('name', text.slice(i, j), line, startColumn);
      i = j;
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(text[i + 1] ?? ''))) {
      const m = /^(?:\d[\d_]*)?(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
      const source = m?.[0] ?? c;
      const after = text[i + source.length] ?? '';
      if (isNamePart(after))
        fail(`invalid number literal; unexpected ${describe(after)}`, line, col(i + source.length));
      push('number', source.replace(/_/g, ''), line, startColumn);
      i += source.length;
      continue;
    }
    const op = operators.find((o) => text.startsWith(o, i));
    if (op === undefined) {
      fail(
        `unexpected character ${describe(c)}; expected an expression, operator or comment`,
        line,
        startColumn,
      );
      break;
    }
    if (op === '(' || op === '[' || op === '{') {
      depth++;
      brackets.push({ kind: 'op', value: op, raw: false, line, column: startColumn });
    } else if (op === ')' || op === ']' || op === '}') {
      const open = brackets.pop();
      if (open === undefined)
        fail(`unmatched ${JSON.stringify(op)}; no bracket is open`, line, startColumn);
      const expected = open?.value === '(' ? ')' : open?.value === '[' ? ']' : '}';
      if (expected !== op) {
        fail(
          `${JSON.stringify(op)} does not close ${JSON.stringify(open?.value)} opened at ${open?.line}:${open?.column}; expected ${JSON.stringify(expected)}`,
          line,
          startColumn,
        );
      }
      depth--;
    }
    push('op', op, line, startColumn);
    i += op.length;
  }
  const open = brackets.pop();
  if (open !== undefined) {
    fail(
      `${JSON.stringify(open.value)} is never closed; expected a matching bracket before the end of the policy`,
      open.line,
      open.column,
    );
  }
  if (tokens.length > 0 && tokens[tokens.length - 1]?.kind !== 'newline' && !atLineStart) {
    push('newline', '', line, col(i));
  }
  while (indents.length > 1) {
    indents.pop();
    push('dedent', '', line, col(i));
  }
  push('eof', '', line, col(i));
  return { tokens, comments };
}
