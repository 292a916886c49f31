/**
 * Python's `\d`, `\w` and `\s` on str patterns, which are Unicode-aware where JavaScript's (without
 * the `u` flag, which policy regexes cannot take) are ASCII-only:
 * - `\d`: Unicode category Nd (Arabic-Indic `١٢٣`, fullwidth `０-９`, ...);
 * - `\w`: what `str.isalnum()` accepts, and `_`: categories L* (Lu Ll Lt Lm Lo), Nd, Nl and No
 *   (combining marks, Mn and Mc, are not word characters);
 * - `\s`: `str.isspace()`: `[ \t\n\r\f\v]`, `\x1c-\x1f`, `\x85`, `\xa0`, U+1680, U+2000-U+200A,
 *   U+2028, U+2029, U+202F, U+205F and U+3000 (not U+FEFF, which JavaScript's `\s` takes).
 *
 * Each is kept as sorted ranges of UTF-16 code units over the Basic Multilingual Plane, generated
 * from JavaScript's Unicode tables into python-classes-table.ts (see its version): astral
 * characters (surrogate pairs) are left out, so `\w` matches neither half of a pair and `\W`
 * both halves.
 * @internal
 */

import { digitTable, wordTable } from './python-classes-table.js';

/** @internal One of Python's class escapes, by its lower-case letter. */
export type PythonClass = 'd' | 'w' | 's';

/** Python's whitespace, as ranges. */
const spaceRanges = [
  0x09, 0x0d, 0x1c, 0x20, 0x85, 0x85, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029,
  0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000,
];

/** Flat [low, high, low, high, ...] inclusive ranges, by class. */
const decoded: Partial<Record<PythonClass, Uint16Array>> = {};

/** A generated table: each code unit as four hex digits. */
function decode(table: string): Uint16Array {
  const out = new Uint16Array(table.length / 4);
  for (let k = 0; k < out.length; k++) out[k] = Number.parseInt(table.slice(k * 4, k * 4 + 4), 16);
  return out;
}

/** @internal The ranges of one of Python's classes: flat, sorted [low, high, ...], inclusive. */
export function pythonClassRanges(kind: PythonClass): Uint16Array {
  let ranges = decoded[kind];
  if (ranges === undefined) {
    ranges =
      kind === 's' ? Uint16Array.from(spaceRanges) : decode(kind === 'd' ? digitTable : wordTable);
    decoded[kind] = ranges;
  }
  return ranges;
}

/** Whether `c` is in flat sorted ranges: a binary search. */
function inRanges(ranges: Uint16Array, c: number): boolean {
  let low = 0;
  let high = (ranges.length >> 1) - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (c < (ranges[mid * 2] as number)) high = mid - 1;
    else if (c > (ranges[mid * 2 + 1] as number)) low = mid + 1;
    else return true;
  }
  return false;
}

let wordRanges: Uint16Array | undefined;
let digitRanges: Uint16Array | undefined;

/** @internal Python's `\w` on one UTF-16 code unit: ASCII directly, then a binary search. */
export function isPythonWordChar(c: number): boolean {
  if (c < 0x80)
    return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
  wordRanges ??= pythonClassRanges('w');
  return inRanges(wordRanges, c);
}

/** @internal Python's `\d` on one UTF-16 code unit. */
export function isPythonDigit(c: number): boolean {
  if (c < 0x80) return c >= 48 && c <= 57;
  digitRanges ??= pythonClassRanges('d');
  return inRanges(digitRanges, c);
}

/** @internal Python's `\s` on one UTF-16 code unit. */
export const isPythonSpace = (c: number): boolean =>
  c <= 0x20
    ? (c >= 9 && c <= 13) || c >= 0x1c
    : c >= 0x85 &&
      (c === 0x85 ||
        c === 0xa0 ||
        c === 0x1680 ||
        (c >= 0x2000 && c <= 0x200a) ||
        c === 0x2028 ||
        c === 0x2029 ||
        c === 0x202f ||
        c === 0x205f ||
        c === 0x3000);

/** One code unit as it may stand in a class of a JavaScript regex without the `u` flag. */
function classChar(c: number): string {
  if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)
    return String.fromCharCode(c);
  return c < 0x100
    ? `\\x${c.toString(16).padStart(2, '0')}`
    : `\\u${c.toString(16).padStart(4, '0')}`;
}

/** Flat sorted ranges as the inside of a JavaScript class (no brackets, no `u` flag). */
function rangesSource(ranges: ArrayLike<number>): string {
  let out = '';
  for (let k = 0; k < ranges.length; k += 2) {
    const low = ranges[k] as number;
    const high = ranges[k + 1] as number;
    out +=
      low === high
        ? classChar(low)
        : `${classChar(low)}${high === low + 1 ? '' : '-'}${classChar(high)}`;
  }
  return out;
}

/** @internal A class escape, by its letter: Python's `\d \D \w \W \s \S`. */
export type ClassEscape = 'd' | 'D' | 'w' | 'W' | 's' | 'S';

/** @internal Sorts and merges flat [low, high, ...] ranges (overlapping or adjacent ones join). */
export function mergeRanges(pairs: ArrayLike<number>): Uint16Array {
  const order: number[] = [];
  for (let k = 0; k < pairs.length; k += 2) order.push(k);
  order.sort((a, b) => (pairs[a] as number) - (pairs[b] as number));
  const out: number[] = [];
  for (const k of order) {
    const low = pairs[k] as number;
    const high = pairs[k + 1] as number;
    const last = out.length - 1;
    if (last > 0 && low <= (out[last] as number) + 1) {
      if (high > (out[last] as number)) out[last] = high;
    } else out.push(low, high);
  }
  return Uint16Array.from(out);
}

/** @internal The code units (0 to U+FFFF) that sorted, merged ranges leave out. */
export function complementRanges(ranges: ArrayLike<number>): Uint16Array {
  const out: number[] = [];
  let next = 0;
  for (let k = 0; k < ranges.length; k += 2) {
    if ((ranges[k] as number) > next) out.push(next, (ranges[k] as number) - 1);
    next = (ranges[k + 1] as number) + 1;
  }
  if (next <= 0xffff) out.push(next, 0xffff);
  return Uint16Array.from(out);
}

const complements: Partial<Record<PythonClass, Uint16Array>> = {};

/** @internal The code units one of Python's class escapes (or its negation) matches, as ranges. */
export function classEscapeRanges(letter: ClassEscape): Uint16Array {
  const kind = letter.toLowerCase() as PythonClass;
  if (letter === kind) return pythonClassRanges(kind);
  let ranges = complements[kind];
  if (ranges === undefined) {
    ranges = complementRanges(pythonClassRanges(kind));
    complements[kind] = ranges;
  }
  return ranges;
}

/** @internal A test of one code unit against sorted, merged ranges: a table for ASCII. */
export function rangesTest(ranges: Uint16Array): (c: number) => boolean {
  const ascii = new Uint8Array(128);
  for (let k = 0; k < ranges.length && (ranges[k] as number) < 128; k += 2)
    ascii.fill(1, ranges[k] as number, Math.min(128, (ranges[k + 1] as number) + 1));
  if (ranges.length <= 8) {
    return (c) => {
      if (c < 128) return ascii[c] === 1;
      for (let k = 0; k < ranges.length; k += 2)
        if (c >= (ranges[k] as number) && c <= (ranges[k + 1] as number)) return true;
      return false;
    };
  }
  return (c) => (c < 128 ? ascii[c] === 1 : inRanges(ranges, c));
}

const sources = new Map<string, string>();

/**
 * @internal The inside of a JavaScript character class (no brackets, no `u` flag) matching one of
 * Python's class escapes (`\D`, `\W`, `\S`: the complement over the code units). Built once each.
 */
export function pythonClassSource(letter: ClassEscape): string {
  let source = sources.get(letter);
  if (source === undefined) {
    source = rangesSource(classEscapeRanges(letter));
    sources.set(letter, source);
  }
  return source;
}

/**
 * @internal A whole character class as a JavaScript class of explicit ranges: `ranges` is what it
 * matches (Python's escapes in it read as Python does). The class is spelt positive (`[^\W_]`
 * becomes the ranges of letters and digits) because V8's linear-time engine mishandles a negated
 * class that holds U+FFFF, as the complement of `\W` does.
 */
export function rangesClassSource(ranges: ArrayLike<number>): string {
  return `[${rangesSource(ranges)}]`;
}
