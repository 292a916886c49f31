/**
 * A small regular-expression matcher for the patterns V8's linear-time engine refuses
 * (lookahead), and for every pattern when that engine is not available.
 *
 * It backtracks like JavaScript's engine (the first match in priority order wins) but remembers
 * every (instruction, position) state it has explored without success, so the main pattern runs in
 * O(pattern × text) steps: `(a+)+$` cannot blow up. Lookarounds are evaluated once per position
 * and cached; a step budget bounds their work (a lookahead can rescan the rest of the text from
 * every position): past it the search fails with {@link RegexBudgetError}. Backreferences are not supported (no linear-time
 * algorithm exists for them). Only match bounds are computed, never capture groups. `\d`, `\w`,
 * `\s` and `\b` are Python's, Unicode-aware (see regex-syntax.ts): it runs policy regexes with
 * their escapes as written.
 * @internal
 */

import { type CharTest, isWordChar, type Node, Parser, RegexSyntaxError } from './regex-syntax.js';

export { isBacktrackingSafe, RegexSyntaxError } from './regex-syntax.js';

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
  /** Lookarounds: where each body starts, and how many characters a lookbehind's body spans. */
  looks: { start: number; ahead: boolean; negate: boolean; shortest: number; longest: number }[];
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
        const [shortest, longest] = widthOf(node.node);
        program.looks.push({
          start: -1,
          ahead: node.ahead,
          negate: node.negate,
          shortest,
          longest,
        });
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
      // only starts the body's width allows (Python requires lookbehinds of fixed width)
      const last = Math.max(0, p - look.longest);
      for (let start = p - look.shortest; start >= last && !found; start--)
        found = this.run(look.start, start, p, new Set()) >= 0;
    }
    const result = found !== look.negate;
    this.lookCache.set(key, result ? 1 : 2);
    return result;
  }
}

/** The fewest and most characters a pattern can match (most: Infinity when unbounded). */
function widthOf(node: Node): [number, number] {
  switch (node.t) {
    case 'set':
      return [1, 1];
    case 'assert':
    case 'look':
      return [0, 0];
    case 'seq':
      return node.items.reduce<[number, number]>(
        ([a, b], item) => {
          const [c, d] = widthOf(item);
          return [a + c, b + d];
        },
        [0, 0],
      );
    case 'alt': {
      const widths = node.options.map(widthOf);
      return [Math.min(...widths.map((w) => w[0])), Math.max(...widths.map((w) => w[1]))];
    }
    case 'rep': {
      const [c, d] = widthOf(node.node);
      return [c * node.min, node.max === 0 || d === 0 ? 0 : d * node.max];
    }
    default:
      return [0, Number.POSITIVE_INFINITY];
  }
}
