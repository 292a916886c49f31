import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BoundedRegex,
  isBacktrackingSafe,
  MAX_REGEX_PROGRAM,
  RegexSyntaxError,
} from './bounded-regex.js';

/**
 * Random patterns over a small alphabet with every construct the matcher supports. Repeated
 * bodies always consume a character: JavaScript rejects an optional iteration that matches the
 * empty string, the bounded matcher does not (see decision 020), which can change a match's length.
 */
const pattern: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
  p: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '\\w', '\\s', '\\d', 'a-', '[a-c]'),
    fc.constantFrom('^', '$', '\\b', '\\B'),
    fc.tuple(tie('p'), tie('p')).map(([x, y]) => `${x}${y}`),
    fc.tuple(tie('p'), tie('p')).map(([x, y]) => `(?:${x}|${y})`),
    fc
      .tuple(
        tie('p'),
        fc.constantFrom('a', 'b', '.', '[ab]'),
        fc.constantFrom('*', '+', '?', '{1,2}', '{2}', '*?', '+?', '??'),
      )
      .map(([x, c, q]) => `(?:${x}${c})${q}`),
    tie('p').map((x) => `(${x})`),
    tie('p').map((x) => `(?=${x})`),
    tie('p').map((x) => `(?!${x})`),
    tie('p').map((x) => `(?<=${x})`),
    tie('p').map((x) => `(?<!${x})`),
  ),
})).p;
const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '1', '-'), maxLength: 12 });

function native(source: string, input: string): { start: number; end: number } | null {
  const m = new RegExp(source).exec(input);
  return m === null ? null : { start: m.index, end: m.index + m[0].length };
}

describe('BoundedRegex', () => {
  it('finds the same first match as JavaScript', () => {
    fc.assert(
      fc.property(pattern, text, (source, input) => {
        expect(new BoundedRegex(source).search(input)).toEqual(native(source, input));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds the same matches as matchAll', () => {
    fc.assert(
      fc.property(pattern, text, (source, input) => {
        const expected = [...input.matchAll(new RegExp(source, 'g'))]
          .filter((m) => m[0] !== '')
          .map((m) => ({ start: m.index, end: m.index + m[0].length }));
        expect(new BoundedRegex(source).searchAll(input)).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('matches nested quantifiers over a hostile text in linear time (no catastrophic backtracking)', () => {
    // JavaScript's own engine takes over 20 s on this; the bounded matcher explores each
    // (instruction, position) state once
    const input = `${'a'.repeat(5000)}b`;
    expect(new BoundedRegex('^(a+)+$').search(input)).toBeNull();
    expect(new BoundedRegex('(?!x)(a|a)*c').search(input)).toBeNull();
  });

  it('tries a fixed-width lookbehind only at the starts its width allows', () => {
    // trying every start down to 0 at each position ran out of the step budget on this text
    expect(new BoundedRegex('(?<=a)b(?!c)').searchAll('ab'.repeat(30_000))).toHaveLength(30_000);
    expect(new BoundedRegex('(?<=a|bb)x').searchAll('axbbxcx')).toEqual([
      { start: 1, end: 2 },
      { start: 4, end: 5 },
    ]);
  });

  it('refuses backreferences and oversized programs', () => {
    expect(() => new BoundedRegex('(a)\\1')).toThrow(RegexSyntaxError);
    expect(() => new BoundedRegex('(?<x>a)\\k<x>')).toThrow(/backreferences/);
    expect(() => new BoundedRegex(`(?:a{1000}){1000}`)).toThrow(
      new RegExp(`MAX_REGEX_PROGRAM = ${MAX_REGEX_PROGRAM}`),
    );
  });

  it('keeps the native engine only for patterns it runs in linear time', () => {
    const anchored = (source: string) => isBacktrackingSafe(`^(?:${source})$`, true);
    expect(anchored('.*@evil\\.com')).toBe(true);
    expect(anchored('^(?!Peter$).*$')).toBe(true);
    expect(anchored('\\d{4}-\\d{2}-\\d{2}')).toBe(true);
    expect(anchored('(a+)+$')).toBe(false);
    expect(anchored('.*a.*b')).toBe(false);
    expect(anchored('(a|aa)+')).toBe(false);
    expect(anchored('(?:(?:a|b)(?:a|b)){10}')).toBe(false);
    expect(isBacktrackingSafe('[a-z]+x', false)).toBe(false);
    expect(isBacktrackingSafe('foo|bar', false)).toBe(true);
  });
});
