import { RegexSyntaxError } from './regex-syntax.js';

/** Letter escapes that mean the same in Python's `re` and in JavaScript (without the `u` flag). */
const sharedLetterEscapes = new Set('bBdDfnrsStvwWxu');

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
 * - `$` stays, and {@link hasPythonEnd} tells the caller to also let it match before a final
 *   `\n`, as Python's does (JavaScript's matches at the very end only);
 * - any other letter escape (`\U`, `\N{...}`, `\p`, `\e`, and `\A`, `\Z`, `\B` inside a class),
 *   and inline flags (`(?i)`, `(?i:...)`), are refused.
 */
export function pythonRegexSource(source: string): string {
  let out = '';
  let inClass = false;
  let at = 0;
  const n = source.length;
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
      out += translatedEscape(next, inClass);
      at += 2;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      at++;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += '[';
      at++;
      if (source[at] === '^') {
        out += '^';
        at++;
      }
      if (source[at] === ']') {
        out += '\\]';
        at++;
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
function translatedEscape(c: string | undefined, inClass: boolean): string {
  if (c === undefined) return '\\';
  if (!/[A-Za-z]/.test(c) || sharedLetterEscapes.has(c)) {
    if (c === 'B' && inClass) throw refused(c, 'Python rejects it inside [...]');
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
