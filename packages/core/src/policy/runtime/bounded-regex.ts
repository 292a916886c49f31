/**
 * A small regular-expression matcher for the patterns V8's linear-time engine refuses
 * (lookahead), and for every pattern when that engine is not available.
 *
 * It backtracks like JavaScript's engine (the first match in priority order wins) but remembers
 * every (instruction, position) state it has explored without success, so the main pattern runs in
 * O(pattern × text) steps: `(a+)+$` cannot blow up. Lookarounds are evaluated once per position
 * and cached; a step budget bounds their work (a lookahead can rescan the rest of the text from
 * every position): past it the search fails with {@link RegexBudgetError}. Backreferences are not supported (no linear-time
 * algorithm exists for them). Only match bounds are computed, never capture groups.
 * @internal
 */

/** @internal Thrown while parsing: the pattern is invalid or uses an unsupported construct. */
export class RegexSyntaxError extends Error {}

/** @internal Thrown while matching: the step budget ran out. */
export class RegexBudgetError extends Error {}

/**
 * The most steps one search may spend inside lookarounds (about 0.2 s). The main pattern needs no
 * budget: it explores each (instruction, position) state at most once, see
 * {@link MAX_REGEX_STATES}.
 * @internal
 */
export const MAX_REGEX_STEPS = 1_000_000;

/** The largest compiled program (counted repetitions like `{1000}` are expanded). */
export const MAX_REGEX_PROGRAM = 20_000;

/**
 * The most (instruction, position) states one search may remember, one bit each (16 MiB): a
 * 50-instruction pattern over texts up to about 2.6M characters.
 */
export const MAX_REGEX_STATES = 2 ** 27;

type CharTest = (c: number) => boolean;

type Node =
  | { t: 'set'; test: CharTest }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; options: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number; greedy: boolean }
  | { t: 'assert'; kind: 'start' | 'end' | 'word' | 'notWord' }
  | { t: 'look'; node: Node; ahead: boolean; negate: boolean };

const isWordChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isSpace = (c: number): boolean =>
  (c >= 9 && c <= 13) ||
  c === 32 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;
const isLineTerminator = (c: number): boolean =>
  c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

class Parser {
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
        return { t: 'set', test: this.charClass() };
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

  private charClass(): CharTest {
    let negate = false;
    if (this.peek() === '^') {
      negate = true;
      this.at++;
    }
    const tests: CharTest[] = [];
    const ranges: [number, number][] = [];
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
          tests.push(high, (x) => x === low || x === 45);
          continue;
        }
        if (high < low) this.fail('range out of order in character class');
        ranges.push([low, high]);
        continue;
      }
      if (typeof low === 'number') ranges.push([low, low]);
      else tests.push(low);
    }
    const test: CharTest = (x) => {
      for (const [a, b] of ranges) if (x >= a && x <= b) return true;
      for (const t of tests) if (t(x)) return true;
      return false;
    };
    return negate ? (x) => !test(x) : test;
  }

  /** A character code, or a class escape like \d inside a class. */
  private classAtom(): number | CharTest {
    const c = this.source[this.at] as string;
    this.at++;
    if (c !== '\\') return c.charCodeAt(0);
    const e = this.source[this.at];
    if (e === undefined) this.fail('\\ at end of pattern');
    if ('dDwWsS'.includes(e)) return this.classEscape(true);
    this.at++;
    return this.escapedCode(e, true);
  }
}

// instructions
const SET = 0;
const SPLIT = 1;
const JUMP = 2;
const ASSERT = 3;
const LOOK = 4;
const MATCH = 5;
/** End of a lookbehind body: succeeds only at the position the lookbehind was asked about. */
const MATCH_AT = 6;

interface Program {
  ops: number[];
  /** SET: test index; SPLIT: preferred target; JUMP: target; ASSERT: kind; LOOK: look index. */
  a: number[];
  /** SPLIT: other target. */
  b: number[];
  tests: CharTest[];
  looks: { start: number; ahead: boolean; negate: boolean }[];
}

const assertKinds = { start: 0, end: 1, word: 2, notWord: 3 } as const;

function compileProgram(root: Node): Program {
  const program: Program = { ops: [], a: [], b: [], tests: [], looks: [] };
  const emit = (op: number, a = 0, b = 0): number => {
    program.ops.push(op);
    program.a.push(a);
    program.b.push(b);
    if (program.ops.length > MAX_REGEX_PROGRAM) {
      throw new RegexSyntaxError(
        `pattern too large (over MAX_REGEX_PROGRAM = ${MAX_REGEX_PROGRAM} instructions once counted repetitions are expanded)`,
      );
    }
    return program.ops.length - 1;
  };
  const pendingLooks: { node: Node; index: number }[] = [];
  const gen = (node: Node): void => {
    switch (node.t) {
      case 'set':
        program.tests.push(node.test);
        emit(SET, program.tests.length - 1);
        return;
      case 'seq':
        for (const item of node.items) gen(item);
        return;
      case 'alt': {
        const jumps: number[] = [];
        node.options.forEach((option, k) => {
          if (k < node.options.length - 1) {
            const split = emit(SPLIT);
            program.a[split] = split + 1;
            gen(option);
            jumps.push(emit(JUMP));
            program.b[split] = program.ops.length;
          } else gen(option);
        });
        for (const j of jumps) program.a[j] = program.ops.length;
        return;
      }
      case 'rep': {
        for (let k = 0; k < node.min; k++) gen(node.node);
        if (node.max === Number.POSITIVE_INFINITY) {
          const split = emit(SPLIT);
          gen(node.node);
          emit(JUMP, split);
          const out = program.ops.length;
          program.a[split] = node.greedy ? split + 1 : out;
          program.b[split] = node.greedy ? out : split + 1;
          return;
        }
        const splits: number[] = [];
        for (let k = node.min; k < node.max; k++) {
          splits.push(emit(SPLIT));
          gen(node.node);
        }
        const out = program.ops.length;
        for (const split of splits) {
          program.a[split] = node.greedy ? split + 1 : out;
          program.b[split] = node.greedy ? out : split + 1;
        }
        return;
      }
      case 'assert':
        emit(ASSERT, assertKinds[node.kind]);
        return;
      case 'look': {
        const index = program.looks.length;
        program.looks.push({ start: -1, ahead: node.ahead, negate: node.negate });
        pendingLooks.push({ node: node.node, index });
        emit(LOOK, index);
        return;
      }
      default: {
        const never: never = node;
        throw new RegexSyntaxError(`unknown node ${String(never)}`);
      }
    }
  };
  gen(root);
  emit(MATCH);
  // lookaround bodies after the main program, each ending in its own match instruction
  for (let k = 0; k < pendingLooks.length; k++) {
    const { node, index } = pendingLooks[k] as { node: Node; index: number };
    const look = program.looks[index] as Program['looks'][number];
    look.start = program.ops.length;
    gen(node);
    emit(look.ahead ? MATCH : MATCH_AT);
  }
  return program;
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

/** @internal A compiled pattern: searches return match bounds. */
export class BoundedRegex {
  private readonly program: Program;

  constructor(source: string) {
    this.program = compileProgram(new Parser(source).parse());
  }

  /**
   * The first match starting at or after `from`: [start, end), or null.
   * @throws RegexBudgetError past {@link MAX_REGEX_STEPS} or {@link MAX_REGEX_STATES}
   */
  search(text: string, from = 0): { start: number; end: number } | null {
    return new Search(this.program, text).first(from);
  }

  /** Every non-empty, non-overlapping match, left to right (as `matchAll` finds them). */
  searchAll(text: string): { start: number; end: number }[] {
    const search = new Search(this.program, text);
    const out: { start: number; end: number }[] = [];
    let from = 0;
    while (from <= text.length) {
      const match = search.first(from);
      if (match === null) break;
      if (match.end > match.start) out.push(match);
      // the states of the match's own path at its end are not failures: forget that position
      search.forget(match.end);
      from = match.end > match.start ? match.end : match.end + 1;
    }
    return out;
  }
}

class Search {
  private steps = 0;
  /** Explored states of the main program, one bit each, by position then instruction. */
  private readonly visited: Uint8Array;
  private readonly width: number;
  /** Per lookaround and position: 0 unknown, 1 holds, 2 fails. */
  private readonly lookCache = new Map<number, number>();
  private readonly mainEnd: number;

  constructor(
    private readonly program: Program,
    private readonly text: string,
  ) {
    const firstLook = program.looks[0]?.start;
    this.mainEnd = firstLook ?? program.ops.length;
    this.width = this.mainEnd;
    const states = this.width * (text.length + 1);
    if (states > MAX_REGEX_STATES) {
      throw new RegexBudgetError(
        `regular expression over a ${text.length}-character text needs more than MAX_REGEX_STATES (${MAX_REGEX_STATES}) states`,
      );
    }
    this.visited = new Uint8Array(Math.ceil(states / 8));
  }

  first(from: number): { start: number; end: number } | null {
    for (let start = from; start <= this.text.length; start++) {
      const end = this.run(0, start, -1, undefined);
      if (end >= 0) return { start, end };
    }
    return null;
  }

  /** Forgets the explored states at one position. */
  forget(position: number): void {
    for (let pc = 0; pc < this.width; pc++) {
      const bit = position * this.width + pc;
      this.visited[bit >> 3] = (this.visited[bit >> 3] as number) & ~(1 << (bit & 7));
    }
  }

  /**
   * Runs the program from `pc` at `position`: the end of the first match in priority order, or
   * -1. `visited` holds states explored without success (a state seen again cannot succeed).
   */
  private run(
    pc0: number,
    position0: number,
    target: number,
    seen: Set<number> | undefined,
  ): number {
    const { ops, a, b, tests } = this.program;
    const text = this.text;
    const n = text.length;
    const stack: number[] = [pc0, position0];
    const visited = this.visited;
    const width = this.width;
    while (stack.length > 0) {
      let p = stack.pop() as number;
      let pc = stack.pop() as number;
      for (;;) {
        if (seen !== undefined && ++this.steps > MAX_REGEX_STEPS) {
          throw new RegexBudgetError(
            `regular expression exceeded MAX_REGEX_STEPS (${MAX_REGEX_STEPS}) on a ${n}-character text`,
          );
        }
        if (seen === undefined) {
          const bit = p * width + pc;
          const byte = visited[bit >> 3] as number;
          const mask = 1 << (bit & 7);
          if ((byte & mask) !== 0) break;
          visited[bit >> 3] = byte | mask;
        } else {
          const key = pc * (n + 1) + p;
          if (seen.has(key)) break;
          seen.add(key);
        }
        const op = ops[pc] as number;
        if (op === SET) {
          if (p < n && (tests[a[pc] as number] as CharTest)(text.charCodeAt(p))) {
            pc++;
            p++;
            continue;
          }
          break;
        }
        if (op === SPLIT) {
          stack.push(b[pc] as number, p);
          pc = a[pc] as number;
          continue;
        }
        if (op === JUMP) {
          pc = a[pc] as number;
          continue;
        }
        if (op === ASSERT) {
          if (this.holds(a[pc] as number, p)) {
            pc++;
            continue;
          }
          break;
        }
        if (op === LOOK) {
          if (this.look(a[pc] as number, p)) {
            pc++;
            continue;
          }
          break;
        }
        if (op === MATCH) return p;
        // MATCH_AT
        if (p === target) return p;
        break;
      }
    }
    return -1;
  }

  private holds(kind: number, p: number): boolean {
    const text = this.text;
    if (kind === 0) return p === 0;
    if (kind === 1) return p === text.length;
    const before = p > 0 && isWordChar(text.charCodeAt(p - 1));
    const after = p < text.length && isWordChar(text.charCodeAt(p));
    return (before !== after) === (kind === 2);
  }

  private look(index: number, p: number): boolean {
    const key = index * (this.text.length + 1) + p;
    const cached = this.lookCache.get(key);
    if (cached !== undefined) return cached === 1;
    const look = this.program.looks[index] as Program['looks'][number];
    let found: boolean;
    if (look.ahead) {
      // a lookahead's states depend only on where it starts: one sparse set per evaluation
      found = this.run(look.start, p, -1, new Set()) >= 0;
    } else {
      found = false;
      for (let start = p; start >= 0 && !found; start--)
        found = this.run(look.start, start, p, new Set()) >= 0;
    }
    const result = found !== look.negate;
    this.lookCache.set(key, result ? 1 : 2);
    return result;
  }
}
