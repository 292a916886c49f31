import { type ClassEscape, pythonClassSource, rangesClassSource } from './python-classes.js';
import { Parser, RegexSyntaxError } from './regex-syntax.js';

/** Letter escapes JavaScript (without the `u` flag) reads as Python's `re` does, on ASCII at least. */
const sharedLetterEscapes = new Set('bBdDfnrsStvwWxu');

/**
 * @internal How {@link pythonRegexSource} spells Python's Unicode-aware `\d \w \s \b` (and `\D \W
 * \S \B`), by the engine that will run the result:
 * - `'python'` (the default): for JavaScript's engines (no `u` flag), on any text: the classes
 *   as explicit ranges of code units, `\b` and `\B` as lookarounds over them;
 * - `'ascii'`: for JavaScript's engines on texts known to be ASCII only, where Python's classes
 *   are JavaScript's: the escapes stay (small and fast), but `\s` and `\S`, whose ASCII part
 *   differs (Python's `\s` also takes `\x1c-\x1f`), are spelt out;
 * - `'escapes'`: every escape stays as written, for the bounded matcher (regex-syntax.ts), which
 *   reads them as Python does.
 */
export type PythonClassSpelling = 'python' | 'ascii' | 'escapes';

const inlineFlags = /^\(\?([aiLmsux]+(?:-[imsx]+)?|-[imsx]+)[:)]/;

/**
 * @internal Translates a policy regex written for Python's `re` to JavaScript's syntax, so it means
 * what it means in Invariant, or throws {@link RegexSyntaxError} for Python syntax that JavaScript
 * would silently read otherwise (as an identity escape or a literal brace):
 * - `(?P<name>` becomes `(?<name>`, `(?P=name)` becomes `\k<name>` (then refused as a
 *   backreference);
 * - `\A` becomes `^` and `\Z` (and Python 3.14's `\z`) becomes `$`: policy regexes never take the
 *   `m` flag, so these match only at the start and end of the text, as in Python;
 * - `\a` becomes `\x07` (bell);
 * - `{,n}` becomes `{0,n}` and `{,}` becomes `{0,}`;
 * - `]` right after `[` or `[^` is a literal `]`, as in Python (an empty class in JavaScript);
 * - `.` becomes `[^\n]`: Python's dot matches `\r`, U+2028 and U+2029, JavaScript's does not;
 * - `\d`, `\w`, `\s` and their negations mean what Python 3's mean on str patterns (Unicode
 *   category Nd; what `str.isalnum()` accepts, and `_`; what `str.isspace()` accepts), where
 *   JavaScript's without the `u` flag are ASCII (and its `\s` takes U+FEFF but not `\x1c-\x1f`
 *   or `\x85`): each becomes a class of explicit UTF-16 code-unit ranges, a class holding one
 *   (`[\w-]`, `[^\W_]`) becomes the positive class of every code unit it matches, and `\b`, `\B`
 *   become lookarounds over Python's `\w` (`(?<=\w)(?!\w)|(?<!\w)(?=\w)` with `\w` so spelt);
 *   see {@link PythonClassSpelling} for the spellings other engines take. Only the Basic
 *   Multilingual Plane is covered: an astral character (a surrogate pair) is never `\w`, `\d` or
 *   `\s`, and each half of it is `\W`, `\D` and `\S`. A range with a class escape at either end
 *   (`[\w-z]`) is refused, as Python refuses it;
 * - `$` stays, and {@link hasPythonEnd} tells the caller to also let it match before a final
 *   `\n`, as Python's does (JavaScript's matches at the very end only);
 * - any other letter escape (`\U`, `\N{...}`, `\p`, `\e`, and `\A`, `\Z`, `\B` inside a class),
 *   and inline flags (`(?i)`, `(?i:...)`), are refused.
 */
export function pythonRegexSource(
  source: string,
  spelling: PythonClassSpelling = 'python',
): string {
  let out = '';
  let inClass = false;
  /** In a class, after a range's `-`: the next item is the range's upper end. */
  let rangeEnd = false;
  /** Where the current class starts in `out`, and whether it holds a class escape like `\w`. */
  let classStart = 0;
  let classEscapes = false;
  let at = 0;
  const n = source.length;
  // one item of a class just read (a character, an escape, a class escape like \w): Python
  // refuses a class escape at either end of a range (`[\w-z]`), which JavaScript reads as three
  // items; a `-` after a character starts a range unless `]` follows
  const classItem = (classEscape: string | undefined) => {
    if (rangeEnd) {
      rangeEnd = false;
      if (classEscape !== undefined) throw refused(classEscape, 'Python rejects a range to it');
      return;
    }
    if (source[at] !== '-' || source[at + 1] === ']' || source[at + 1] === undefined) return;
    if (classEscape !== undefined) throw refused(classEscape, 'Python rejects a range from it');
    out += '-';
    at++;
    rangeEnd = true;
  };
  while (at < n) {
    const c = source[at] as string;
    if (c === '\\') {
      const next = source[at + 1];
      if (
        (next === 'x' && !/^[0-9A-Fa-f]{2}/.test(source.slice(at + 2))) ||
        (next === 'u' && !/^[0-9A-Fa-f]{4}/.test(source.slice(at + 2)))
      ) {
        throw refused(next, `it needs ${next === 'x' ? 'two' : 'four'} hex digits`);
      }
      if (next === 'k' && source[at + 2] === '<') {
        // JavaScript's named backreference (Python's is `(?P=name)`)
        throw new RegexSyntaxError(
          'backreferences are not supported in policy regexes (no linear-time matching)',
        );
      }
      out += translatedEscape(next, inClass, spelling);
      at += 2;
      if (inClass) {
        // the rest of a \xhh, \uhhhh or octal escape is part of the same item
        let more = 0;
        if (next === 'x' || next === 'u') more = next === 'x' ? 2 : 4;
        else if (next !== undefined && next >= '0' && next <= '7')
          more = (/^[0-7]{0,2}/.exec(source.slice(at)) as RegExpExecArray)[0].length;
        out += source.slice(at, at + more);
        at += more;
        const classEscape = next !== undefined && 'dDwWsS'.includes(next);
        if (classEscape) classEscapes = true;
        classItem(classEscape ? next : undefined);
      }
      continue;
    }
    if (inClass) {
      out += c;
      at++;
      if (c !== ']') classItem(undefined);
      else {
        inClass = false;
        if (spelling === 'python' && classEscapes) {
          // the whole class as explicit ranges (its escapes were kept as written)
          out = out.slice(0, classStart) + rangesClassSource(classRanges(out.slice(classStart)));
        }
      }
      continue;
    }
    if (c === '[') {
      inClass = true;
      classStart = out.length;
      classEscapes = false;
      out += '[';
      at++;
      if (source[at] === '^') {
        out += '^';
        at++;
      }
      rangeEnd = false;
      if (source[at] === ']') {
        out += '\\]';
        at++;
        classItem(undefined);
      }
      continue;
    }
    if (c === '(' && source[at + 1] === '?') {
      const rest = source.slice(at);
      if (rest.startsWith('(?P<')) {
        out += '(?<';
        at += 4;
        continue;
      }
      const named = /^\(\?P=(\w+)\)/.exec(rest);
      if (named !== null) {
        out += `\\k<${named[1]}>`;
        at += named[0].length;
        continue;
      }
      const flags = inlineFlags.exec(rest);
      if (flags !== null) {
        const shown = flags[0].endsWith(')') ? flags[0] : `${flags[0]}...)`;
        throw new RegexSyntaxError(
          `inline flags ${shown} are not supported in policy regexes${
            (flags[1] as string).includes('i')
              ? '; for a case-insensitive match, lower the text with .lower() and write the pattern in lower case'
              : ''
          }`,
        );
      }
    }
    if (c === '.') {
      // Python's `.` leaves out `\n` only; JavaScript's also `\r`, U+2028 and U+2029
      out += '[^\\n]';
      at++;
      continue;
    }
    if (c === '{') {
      const upTo = /^\{,(\d*)\}/.exec(source.slice(at));
      if (upTo !== null) {
        out += `{0,${upTo[1]}}`;
        at += upTo[0].length;
        continue;
      }
    }
    out += c;
    at++;
  }
  return out;
}

/** The JavaScript form of `\` followed by `c` (undefined at the end of the pattern). */
function translatedEscape(
  c: string | undefined,
  inClass: boolean,
  spelling: PythonClassSpelling,
): string {
  if (c === undefined) return '\\';
  if (!/[A-Za-z]/.test(c) || sharedLetterEscapes.has(c)) {
    if (c === 'B' && inClass) throw refused(c, 'Python rejects it inside [...]');
    if (spelling !== 'escapes') {
      const unicode = unicodeEscape(c, inClass, spelling);
      if (unicode !== undefined) return unicode;
    }
    return `\\${c}`;
  }
  if (c === 'a') return '\\x07';
  if (c === 'A' || c === 'Z' || c === 'z') {
    if (inClass) throw refused(c, 'Python rejects it inside [...]');
    return c === 'A' ? '^' : '$';
  }
  if (c === 'U' || c === 'N') throw refused(c, 'write the character itself, or \\uXXXX');
  throw refused(c, "Python's re rejects it, and JavaScript would read it as the letter");
}

/** The code units a class (with its escapes as written) matches, as Python reads it. */
function classRanges(written: string): Uint16Array {
  const node = new Parser(written).parse();
  const only = node.t === 'seq' && node.items.length === 1 ? node.items[0] : node;
  if (only?.t !== 'set' || only.ranges === undefined)
    throw new RegexSyntaxError(`not a class: ${written}`);
  return only.ranges;
}

/** Python's ASCII whitespace, as the inside of a class: `\t-\r`, `\x1c-\x1f` and the space. */
const asciiSpace = '\\t-\\r\\x1c- ';
/**
 * Its complement over ASCII (the ASCII spelling runs on ASCII texts only); not up to U+FFFF,
 * which V8's linear-time engine mishandles in a negated class (`[^\S\n]`).
 */
const asciiNonSpace = '\\x00-\\x08\\x0e-\\x1b!-\\x7f';

/** Python's class escape or word boundary `\c` spelt for JavaScript, or undefined for others. */
function unicodeEscape(
  c: string,
  inClass: boolean,
  spelling: 'python' | 'ascii',
): string | undefined {
  const lower = c.toLowerCase();
  if (lower === 'b') {
    if (inClass || spelling === 'ascii') return undefined; // [\b] is a backspace in both
    const word = `[${pythonClassSource('w')}]`;
    return c === 'b'
      ? `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`
      : `(?:(?<=${word})(?=${word})|(?<!${word})(?!${word}))`;
  }
  if (lower !== 'd' && lower !== 'w' && lower !== 's') return undefined;
  const negate = c !== lower;
  if (spelling === 'ascii') {
    if (lower !== 's') return undefined;
    const inside = negate ? asciiNonSpace : asciiSpace;
    return inClass ? inside : `[${inside}]`;
  }
  // in a class, the escape stays until the whole class is spelt out at its `]`
  return inClass ? undefined : `[${pythonClassSource(c as ClassEscape)}]`;
}

function refused(c: string, why: string): RegexSyntaxError {
  return new RegexSyntaxError(`\\${c} is not supported in policy regexes (${why})`);
}

/**
 * @internal Whether a policy regex (Python syntax) has a `$` outside a character class: Python's
 * `$` also matches just before a final `\n`, so the caller also tries the text without it.
 */
export function hasPythonEnd(source: string): boolean {
  let inClass = false;
  for (let at = 0; at < source.length; at++) {
    const c = source[at];
    if (c === '\\') at++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') {
      inClass = true;
      if (source[at + 1] === '^') at++;
      if (source[at + 1] === ']') at++;
    } else if (c === '$') return true;
  }
  return false;
}
