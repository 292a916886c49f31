import {
  type ClassEscape,
  classEscapeRanges,
  complementRanges,
  isPythonDigit,
  isPythonSpace,
  isPythonWordChar,
  mergeRanges,
  rangesTest,
} from './python-classes.js';
/**
 * The syntax of policy regexes (JavaScript's, without backreferences), parsed into a tree that
 * the bounded matcher compiles and {@link isBacktrackingSafe} inspects. The class escapes `\d`,
 * `\w`, `\s` (and `\D`, `\W`, `\S`) and the word boundaries `\b`, `\B` mean what they mean in
 * Python's `re` on str patterns (Unicode-aware, see `python-classes.ts`), not JavaScript's ASCII
 * classes: the bounded matcher runs policy regexes, which are Python's.
 * @internal
 */

/** @internal Thrown while parsing: the pattern is invalid or uses an unsupported construct. */
export class RegexSyntaxError extends Error {}

/** @internal A test of one UTF-16 code unit. */
export type CharTest = (c: number) => boolean;

/** @internal A parsed pattern. */
export type Node =
  /** One code unit; a class also lists its code units as flat sorted [low, high, ...] ranges. */
  | { t: 'set'; test: CharTest; ranges?: Uint16Array }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; options: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number; greedy: boolean }
  | { t: 'assert'; kind: 'start' | 'end' | 'word' | 'notWord' }
  | { t: 'look'; node: Node; ahead: boolean; negate: boolean };

/** @internal `\w` as Python's `re` reads it: letters, digits and numbers of every script, and `_`. */
export const isWordChar = isPythonWordChar;
const isDigit = isPythonDigit;
const isSpace = isPythonSpace;
const isLineTerminator = (c: number): boolean =>
  c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

/** @internal Parses a pattern; throws {@link RegexSyntaxError}. */
export class Parser {
  private at = 0;
  constructor(private readonly source: string) {}

  fail(message: string): never {
    throw new RegexSyntaxError(`${message} at offset ${this.at}`);
  }

  parse(): Node {
    const node = this.alternation();
    if (this.at < this.source.length) this.fail(`unmatched ${this.source[this.at]}`);
    return node;
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? (options[0] as Node) : { t: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === '|' || c === ')') break;
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return { t: 'seq', items };
  }

  private quantified(atom: Node): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, Number.POSITIVE_INFINITY];
    else if (c === '+') [min, max] = [1, Number.POSITIVE_INFINITY];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (m === null) return atom; // a literal '{', as JavaScript reads it
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
      if (max < min) this.fail('numbers out of order in {} quantifier');
      this.at += m[0].length - 1;
    } else return atom;
    this.at++;
    if (atom.t === 'assert') this.fail('nothing to repeat');
    let greedy = true;
    if (this.peek() === '?') {
      greedy = false;
      this.at++;
    }
    if (this.peek() === '*' || this.peek() === '+' || this.peek() === '?')
      this.fail('nothing to repeat');
    return { t: 'rep', node: atom, min, max, greedy };
  }

  private atom(): Node {
    const c = this.source[this.at] as string;
    this.at++;
    switch (c) {
      case '.':
        return { t: 'set', test: (x) => !isLineTerminator(x) };
      case '^':
        return { t: 'assert', kind: 'start' };
      case '$':
        return { t: 'assert', kind: 'end' };
      case '(':
        return this.group();
      case '[':
        return this.charClass();
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
        return this.fail('nothing to repeat');
      default: {
        const code = c.charCodeAt(0);
        return { t: 'set', test: (x) => x === code };
      }
    }
  }

  private group(): Node {
    let look: { ahead: boolean; negate: boolean } | undefined;
    if (this.source.startsWith('?:', this.at)) this.at += 2;
    else if (this.source.startsWith('?=', this.at)) {
      look = { ahead: true, negate: false };
      this.at += 2;
    } else if (this.source.startsWith('?!', this.at)) {
      look = { ahead: true, negate: true };
      this.at += 2;
    } else if (this.source.startsWith('?<=', this.at)) {
      look = { ahead: false, negate: false };
      this.at += 3;
    } else if (this.source.startsWith('?<!', this.at)) {
      look = { ahead: false, negate: true };
      this.at += 3;
    } else if (this.source.startsWith('?<', this.at)) {
      const m = /^\?<([A-Za-z_$][\w$]*)>/.exec(this.source.slice(this.at));
      if (m === null) this.fail('invalid group name');
      this.at += m[0].length;
    } else if (this.peek() === '?') this.fail('invalid group');
    const node = this.alternation();
    if (this.peek() !== ')') this.fail('unterminated group');
    this.at++;
    return look === undefined ? node : { t: 'look', node, ...look };
  }

  private escape(): Node {
    const c = this.source[this.at];
    if (c === undefined) this.fail('\\ at end of pattern');
    if (c === 'b' || c === 'B') {
      this.at++;
      return { t: 'assert', kind: c === 'b' ? 'word' : 'notWord' };
    }
    if ((c >= '1' && c <= '9') || c === 'k') {
      this.fail('backreferences are not supported in policy regexes (no linear-time matching)');
    }
    const test = this.classEscape(false);
    return { t: 'set', test };
  }

  /** After a backslash: a character class escape or one escaped character. */
  private classEscape(inClass: boolean): CharTest {
    const c = this.source[this.at] as string;
    this.at++;
    switch (c) {
      case 'd':
        return isDigit;
      case 'D':
        return (x) => !isDigit(x);
      case 'w':
        return isWordChar;
      case 'W':
        return (x) => !isWordChar(x);
      case 's':
        return isSpace;
      case 'S':
        return (x) => !isSpace(x);
      default: {
        const code = this.escapedCode(c, inClass);
        return (x) => x === code;
      }
    }
  }

  private escapedCode(c: string, inClass: boolean): number {
    switch (c) {
      case 'n':
        return 10;
      case 'r':
        return 13;
      case 't':
        return 9;
      case 'v':
        return 11;
      case 'f':
        return 12;
      case '0':
        return 0;
      case 'b':
        if (inClass) return 8;
        break;
      case 'x':
      case 'u': {
        const length = c === 'x' ? 2 : 4;
        const hex = this.source.slice(this.at, this.at + length);
        if (/^[\da-fA-F]+$/.test(hex) && hex.length === length) {
          this.at += length;
          return Number.parseInt(hex, 16);
        }
        return c.charCodeAt(0);
      }
      case 'c': {
        const letter = this.source[this.at];
        if (letter !== undefined && /[A-Za-z]/.test(letter)) {
          this.at++;
          return letter.charCodeAt(0) % 32;
        }
        return 92; // a lone backslash, as JavaScript reads \c without a letter
      }
      default:
        break;
    }
    return c.charCodeAt(0);
  }

  private charClass(): Node & { t: 'set' } {
    let negate = false;
    if (this.peek() === '^') {
      negate = true;
      this.at++;
    }
    const pairs: number[] = [];
    const add = (atom: number | ClassEscape) => {
      if (typeof atom === 'number') pairs.push(atom, atom);
      else for (const c of classEscapeRanges(atom)) pairs.push(c);
    };
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail('unterminated character class');
      if (c === ']') {
        this.at++;
        break;
      }
      const low = this.classAtom();
      if (
        typeof low === 'number' &&
        this.peek() === '-' &&
        this.source[this.at + 1] !== ']' &&
        this.source[this.at + 1] !== undefined
      ) {
        this.at++;
        const high = this.classAtom();
        if (typeof high !== 'number') {
          // as JavaScript reads [a-\d]: three items (Python refuses it)
          add(high);
          pairs.push(low, low, 45, 45);
          continue;
        }
        if (high < low) this.fail('range out of order in character class');
        pairs.push(low, high);
        continue;
      }
      add(low);
    }
    const merged = mergeRanges(pairs);
    const ranges = negate ? complementRanges(merged) : merged;
    return { t: 'set', test: rangesTest(ranges), ranges };
  }

  /** A character code, or a class escape like \d inside a class (by its letter). */
  private classAtom(): number | ClassEscape {
    const c = this.source[this.at] as string;
    this.at++;
    if (c !== '\\') return c.charCodeAt(0);
    const e = this.source[this.at];
    if (e === undefined) this.fail('\\ at end of pattern');
    this.at++;
    if ('dDwWsS'.includes(e)) return e as ClassEscape;
    return this.escapedCode(e, true);
  }
}

/** The most backtracking paths a pattern may have to run on JavaScript's own engine. */
const MAX_SAFE_BRANCHING = 256;

/**
 * Whether JavaScript's backtracking engine runs `source` in time linear in the text: at most one
 * repetition with a variable count, over single characters, inside no other repetition (none at
 * all when the pattern is searched for at every position), and a bounded number of alternative
 * paths. Such patterns (`.*@evil\.com`, `\d{4}-\d{2}`, `^(?!Peter$).*$`) keep the native
 * engine's speed; others go to a linear-time engine.
 * @internal
 */
export function isBacktrackingSafe(source: string, anchored: boolean): boolean {
  let root: Node;
  try {
    root = new Parser(source).parse();
  } catch {
    return false;
  }
  let variable = 0;
  const simple = (node: Node): boolean =>
    node.t === 'set' || (node.t === 'seq' && node.items.every((item) => item.t === 'set'));
  // the number of paths through `node`, or Infinity when it is not safe
  const paths = (node: Node, inRepetition: boolean): number => {
    switch (node.t) {
      case 'set':
      case 'assert':
        return 1;
      case 'seq':
        return node.items.reduce((total, item) => total * paths(item, inRepetition), 1);
      case 'alt':
        return node.options.reduce((total, option) => total + paths(option, inRepetition), 0);
      case 'look':
        return paths(node.node, inRepetition);
      case 'rep': {
        if (node.max === node.min) return paths(node.node, true) ** node.min;
        variable++;
        return inRepetition || !simple(node.node) ? Number.POSITIVE_INFINITY : 1;
      }
      default:
        return Number.POSITIVE_INFINITY;
    }
  };
  const total = paths(root, false);
  return total <= MAX_SAFE_BRANCHING && variable <= (anchored ? 1 : 0);
}
