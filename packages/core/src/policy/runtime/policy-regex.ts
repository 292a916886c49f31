import { nodeV8 } from '../../platform/node-builtins.js';
import { PolicyError } from '../policy-error.js';
import {
  BoundedRegex,
  isBacktrackingSafe,
  RegexBudgetError,
  RegexSyntaxError,
} from './bounded-regex.js';
import { hasPythonEnd, pythonRegexSource } from './python-regex.js';

/**
 * @internal A policy regular expression. Trace content is attacker-controlled, so every search
 * runs in time linear in the text: on JavaScript's own engine only when the pattern provably
 * allows it ({@link isBacktrackingSafe}), else on V8's linear-time engine, else (lookaheads) on the
 * bounded matcher, whose lookarounds have a step budget. No pattern can stall a check.
 *
 * Python's `\d \w \s \b` are Unicode-aware: on JavaScript's engines they are spelt as explicit
 * ranges (and lookarounds for `\b`), which cost more (up to ~4x on the linear-time engine) and,
 * for `\b`, keep a pattern off the linear-time engine (it refuses lookaheads). A pattern with them
 * that is searched for (anchored at no start) or not provably safe therefore also gets a copy with
 * JavaScript's own ASCII escapes, used on texts that are ASCII only (where both mean the same).
 */
export interface PolicyRegex {
  /** The first match starting at or after `from`. */
  search(text: string, from?: number): { start: number; end: number } | null;
  /** Every non-empty, non-overlapping match, left to right. */
  searchAll(text: string): { start: number; end: number }[];
  test(text: string): boolean;
  /** @internal Which engine searches `text` (for tests). */
  engine(text: string): RegexEngine;
}

/**
 * @internal JavaScript's backtracking engine, its linear-time one (`l`), or the bounded matcher.
 */
export type RegexEngine = 'backtracking' | 'linear' | 'bounded';

/** How a pattern is anchored: whole text, at the start, or anywhere. */
export type RegexAnchor = 'full' | 'start' | 'none';

let linearFlag: boolean | undefined;

/**
 * Whether `new RegExp(source, 'l')` (V8's linear-time engine) works. Node ships the engine behind
 * `--enable-experimental-regexp-engine`; the flag only makes the `l` flag parse (no other regex
 * changes), so it is turned on here when a policy first needs a regex.
 */
function linearEngine(): boolean {
  if (linearFlag !== undefined) return linearFlag;
  try {
    // biome-ignore lint/complexity/useRegexLiterals: a literal /a/l would not even parse without the flag
    new RegExp('a', 'l');
    linearFlag = true;
  } catch {
    try {
      nodeV8().setFlagsFromString('--enable-experimental-regexp-engine');
      // biome-ignore lint/complexity/useRegexLiterals: as above
      new RegExp('a', 'l');
      linearFlag = true;
    } catch {
      linearFlag = false;
    }
  }
  return linearFlag;
}

function budgetError(source: string, error: RegexBudgetError): PolicyError {
  return new PolicyError({
    code: 'POLICY_LIMIT',
    message: `regular expression ${JSON.stringify(source.length > 60 ? `${source.slice(0, 60)}...` : source)} could not finish: ${error.message}; ${/\(\?<?[=!]/.test(source) ? 'avoid lookarounds over long texts' : 'bound its repetitions (a counted repeat of a group, such as (\\w+\\s){50}, walks many states per character), or match a shorter part of the text'}`,
  });
}

/** JavaScript's engine: its linear-time mode (`l`), or the backtracking one for safe patterns. */
class NativeRegex implements PolicyRegex {
  private readonly global: RegExp;
  /** For `test`: no lastIndex to reset and no match array to build (tool patterns run per call). */
  private readonly plain: RegExp;
  constructor(body: string, flags: string) {
    this.global = new RegExp(body, flags);
    this.plain = new RegExp(body, flags.replace('g', ''));
  }
  search(text: string, from = 0): { start: number; end: number } | null {
    this.global.lastIndex = from;
    const m = this.global.exec(text);
    return m === null ? null : { start: m.index, end: m.index + m[0].length };
  }
  searchAll(text: string): { start: number; end: number }[] {
    // an exec loop, as matchAll would run it: matchAll first copies the RegExp, which compiles it
    // again (a pattern with Python's \w spelt out is kilobytes long)
    const out: { start: number; end: number }[] = [];
    const global = this.global;
    global.lastIndex = 0;
    for (;;) {
      const m = global.exec(text);
      if (m === null) break;
      if (m[0] === '') global.lastIndex = m.index + 1;
      else out.push({ start: m.index, end: m.index + m[0].length });
    }
    return out;
  }
  test(text: string): boolean {
    return this.plain.test(text);
  }
  engine(): RegexEngine {
    return this.plain.flags.includes('l') ? 'linear' : 'backtracking';
  }
}

class BoundedPolicyRegex implements PolicyRegex {
  constructor(
    private readonly regex: BoundedRegex,
    private readonly source: string,
  ) {}
  search(text: string, from = 0): { start: number; end: number } | null {
    try {
      return this.regex.search(text, from);
    } catch (error) {
      if (error instanceof RegexBudgetError) throw budgetError(this.source, error);
      throw error;
    }
  }
  searchAll(text: string): { start: number; end: number }[] {
    try {
      return this.regex.searchAll(text);
    } catch (error) {
      if (error instanceof RegexBudgetError) throw budgetError(this.source, error);
      throw error;
    }
  }
  test(text: string): boolean {
    return this.search(text) !== null;
  }
  engine(): RegexEngine {
    return 'bounded';
  }
}

/**
 * Python's `$` (without `re.M`) matches at the end of the text or just before a final `\n`;
 * JavaScript's only at the end. A pattern with `$` is also tried on the text without its final
 * `\n` (a match there is a match in the whole text): `^rm -rf /$` finds `"rm -rf /\n"`.
 */
class PythonEndRegex implements PolicyRegex {
  constructor(private readonly inner: PolicyRegex) {}
  search(text: string, from = 0): { start: number; end: number } | null {
    const whole = this.inner.search(text, from);
    if (!text.endsWith('\n') || from >= text.length) return whole;
    const cut = this.inner.search(text.slice(0, -1), from);
    return cut !== null && (whole === null || cut.start < whole.start) ? cut : whole;
  }
  searchAll(text: string): { start: number; end: number }[] {
    if (!text.endsWith('\n')) return this.inner.searchAll(text);
    const out: { start: number; end: number }[] = [];
    for (let from = 0; from <= text.length; ) {
      const found = this.search(text, from);
      if (found === null) break;
      if (found.end > found.start) out.push(found);
      from = found.end > found.start ? found.end : found.start + 1;
    }
    return out;
  }
  test(text: string): boolean {
    return this.inner.test(text) || (text.endsWith('\n') && this.inner.test(text.slice(0, -1)));
  }
  engine(text: string): RegexEngine {
    return this.inner.engine(text);
  }
}

/**
 * A pattern with Python's class escapes or word boundaries, on JavaScript's engines: the copy
 * spelt with JavaScript's ASCII escapes runs on ASCII-only texts, the Unicode one on the others.
 */
class AsciiSplitRegex implements PolicyRegex {
  constructor(
    private readonly ascii: PolicyRegex,
    private readonly unicode: PolicyRegex,
  ) {}
  search(text: string, from = 0): { start: number; end: number } | null {
    return (isAscii(text) ? this.ascii : this.unicode).search(text, from);
  }
  searchAll(text: string): { start: number; end: number }[] {
    return (isAscii(text) ? this.ascii : this.unicode).searchAll(text);
  }
  test(text: string): boolean {
    return (isAscii(text) ? this.ascii : this.unicode).test(text);
  }
  engine(text: string): RegexEngine {
    return (isAscii(text) ? this.ascii : this.unicode).engine(text);
  }
}

const nonAscii = /[^\x00-\x7f]/;
// Node's Buffer.byteLength counts with SIMD, about 10x faster than a regex scan on long texts
const nativeBuffer = (globalThis as { Buffer?: { byteLength(s: string, e: 'utf8'): number } })
  .Buffer;

/** Whether every code unit of `text` is ASCII. */
function isAscii(text: string): boolean {
  const n = text.length;
  if (n <= 64) {
    for (let i = 0; i < n; i++) if (text.charCodeAt(i) > 0x7f) return false;
    return true;
  }
  return nativeBuffer !== undefined
    ? nativeBuffer.byteLength(text, 'utf8') === n
    : !nonAscii.test(text);
}

/** `translated` anchored as `anchor` asks. */
function anchoredBody(translated: string, anchor: RegexAnchor): string {
  return anchor === 'full'
    ? `^(?:${translated})$`
    : anchor === 'start'
      ? `^(?:${translated})`
      : translated;
}

/**
 * The regex for a checked pattern, `body` spelt for JavaScript: its backtracking engine when
 * `safe`, else its linear-time engine, else the bounded matcher on `escapes` (the pattern with its
 * escapes as written, which that matcher reads as Python does).
 */
function engineFor(body: string, escapes: string, safe: boolean, source: string): PolicyRegex {
  try {
    if (safe) return new NativeRegex(body, 'g');
    if (linearEngine()) return new NativeRegex(body, 'gl');
    throw new SyntaxError('no linear-time engine');
  } catch {
    // lookaheads (and everything, without the linear engine) go to the bounded matcher
    return new BoundedPolicyRegex(new BoundedRegex(escapes), source);
  }
}

const cache = new Map<string, PolicyRegex | string>();

/**
 * @internal Compiles (and caches) a policy regex, written in Python's syntax where it differs
 * ({@link pythonRegexSource}): the regex, or why it cannot be used (invalid syntax, a backreference,
 * Python syntax JavaScript would read otherwise, a pattern too large).
 */
export function compilePolicyRegex(source: string, anchor: RegexAnchor): PolicyRegex | string {
  const key = `${anchor}/${source}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let result: PolicyRegex | string;
  try {
    // the escapes as written: what the bounded matcher reads (as Python does), and the shape the
    // safety check inspects (a \b spelt as lookarounds tests one character in each)
    const asWritten = pythonRegexSource(source, 'escapes');
    const escapes = anchoredBody(asWritten, anchor);
    new RegExp(escapes); // JavaScript's own syntax check comes first
    const safe = isBacktrackingSafe(escapes, anchor !== 'none');
    // (a whole-text match keeps JavaScript's `$`: Python's fullmatch must consume a final `\n`)
    const pythonEnd = anchor !== 'full' && hasPythonEnd(source);
    const withEnd = (regex: PolicyRegex) => (pythonEnd ? new PythonEndRegex(regex) : regex);
    const python = pythonRegexSource(source, 'python');
    if (python === asWritten) {
      // no \d \w \s \b (nor \D \W \S \B): as written
      result = withEnd(engineFor(escapes, escapes, safe, source));
    } else if (safe && anchor !== 'none') {
      // JavaScript's backtracking engine at the start of the text, often done after a few
      // characters: no ASCII check of the whole text (up to ~2x slower when it reads all of it)
      result = withEnd(engineFor(anchoredBody(python, anchor), escapes, safe, source));
    } else {
      const ascii = engineFor(
        anchoredBody(pythonRegexSource(source, 'ascii'), anchor),
        escapes,
        safe,
        source,
      );
      // the bounded matcher reads Python's escapes on any text: no second copy
      result =
        ascii instanceof BoundedPolicyRegex
          ? withEnd(ascii)
          : new AsciiSplitRegex(
              withEnd(ascii),
              withEnd(engineFor(anchoredBody(python, anchor), escapes, safe, source)),
            );
    }
  } catch (error) {
    result =
      error instanceof RegexSyntaxError
        ? error.message.replace(/ at offset \d+$/, '')
        : `invalid regular expression (${error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : String(error)})`;
  }
  if (cache.size > 1024) cache.clear();
  cache.set(key, result);
  return result;
}

/** @internal The compiled regex, or null when the pattern cannot be used. */
export function cachedRegex(source: string, anchor: RegexAnchor): PolicyRegex | null {
  const result = compilePolicyRegex(source, anchor);
  return typeof result === 'string' ? null : result;
}

/**
 * @internal A RegExp for one of the detectors' own patterns over trace text: in V8's linear-time
 * mode when the pattern allows it (no lookahead or backreference) and the engine is available,
 * else an ordinary RegExp. Built on first use, so importing the package sets no engine flag.
 */
export function detectorRegExp(source: string, flags: string): () => RegExp {
  let regex: RegExp | undefined;
  return () => {
    if (regex !== undefined) return regex;
    try {
      if (!linearEngine()) throw new SyntaxError('no linear-time engine');
      regex = new RegExp(source, `${flags}l`);
    } catch {
      regex = new RegExp(source, flags);
    }
    return regex;
  };
}
