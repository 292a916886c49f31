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
 */
export interface PolicyRegex {
  /** The first match starting at or after `from`. */
  search(text: string, from?: number): { start: number; end: number } | null;
  /** Every non-empty, non-overlapping match, left to right. */
  searchAll(text: string): { start: number; end: number }[];
  test(text: string): boolean;
}

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
    message: `regular expression ${JSON.stringify(source.length > 60 ? `${source.slice(0, 60)}...` : source)} could not finish: ${error.message}; avoid lookaheads over long texts`,
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
    const out: { start: number; end: number }[] = [];
    for (const m of text.matchAll(this.global))
      if (m[0] !== '') out.push({ start: m.index, end: m.index + m[0].length });
    return out;
  }
  test(text: string): boolean {
    return this.plain.test(text);
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
    const translated = pythonRegexSource(source);
    const body =
      anchor === 'full'
        ? `^(?:${translated})$`
        : anchor === 'start'
          ? `^(?:${translated})`
          : translated;
    new RegExp(body); // JavaScript's own syntax check comes first
    try {
      if (isBacktrackingSafe(body, anchor !== 'none')) result = new NativeRegex(body, 'g');
      else if (linearEngine()) result = new NativeRegex(body, 'gl');
      else throw new SyntaxError('no linear-time engine');
    } catch {
      // lookaheads (and everything, without the linear engine) go to the bounded matcher
      result = new BoundedPolicyRegex(new BoundedRegex(body), source);
    }
    // (a whole-text match keeps JavaScript's `$`: Python's fullmatch must consume a final `\n`)
    if (anchor !== 'full' && hasPythonEnd(source)) result = new PythonEndRegex(result);
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
