import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isJsonObjectText } from './is-json-object-text.js';

/** The definition: JSON.parse succeeds and returns an object that is not null or an array. */
function parsesToObject(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

// the characters JSON is made of, and a few it must reject
const jsonCharacter = fc.constantFrom(
  ...'{}[]:,"\\/ \t\n\r0123456789-+.eEtrufalsn bfuABCDEFabcdef'.split(''),
  '\u0000',
  '\u001f',
  '\u00a0',
  '\ufeff',
  '\u2028',
  '\ud800',
  'é',
  'x',
  "'",
);

/** A text with one character inserted, deleted or replaced at a random place. */
function mutate(text: string, kind: number, position: number, character: string): string {
  const at = text.length === 0 ? 0 : position % (text.length + 1);
  if (kind === 0) return text.slice(0, at) + character + text.slice(at);
  if (kind === 1) return text.slice(0, at) + text.slice(at + 1);
  return text.slice(0, at) + character + text.slice(at + 1);
}

const jsonText = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc
    .dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 3 }))
    .map((value) => JSON.stringify(value)),
  fc
    .dictionary(fc.string({ unit: 'binary', maxLength: 5 }), fc.jsonValue({ maxDepth: 3 }))
    .map((value) => JSON.stringify(value, null, 2)),
  fc.constantFrom(
    '{}',
    ' { } ',
    '{"a":1}',
    '{"a":[]}',
    '{"a":[{}]}',
    '{"a":-0.5e+10}',
    '{"a":"\\u00e9\\ud800\\/"}',
    '{"city":"bogotá","units":"celsius"}',
  ),
);

describe('isJsonObjectText', () => {
  it('agrees with JSON.parse on JSON texts', () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        expect(isJsonObjectText(text)).toBe(parsesToObject(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees with JSON.parse on JSON texts with mutations', () => {
    const mutation = fc.tuple(fc.nat({ max: 2 }), fc.nat(), jsonCharacter);
    let objects = 0;
    fc.assert(
      fc.property(jsonText, fc.array(mutation, { minLength: 1, maxLength: 3 }), (text, edits) => {
        let mutated = text;
        for (const [kind, position, character] of edits)
          mutated = mutate(mutated, kind, position, character);
        const expected = parsesToObject(mutated);
        if (expected) objects++;
        expect(isJsonObjectText(mutated)).toBe(expected);
      }),
      { numRuns: 10_000 },
    );
    // both answers must be exercised
    expect(objects).toBeGreaterThan(500);
    expect(objects).toBeLessThan(9500);
  });

  it('agrees with JSON.parse on texts of JSON characters', () => {
    fc.assert(
      fc.property(fc.array(jsonCharacter, { maxLength: 16 }), (characters) => {
        const text = `{${characters.join('')}`;
        expect(isJsonObjectText(text)).toBe(parsesToObject(text));
      }),
      { numRuns: 10_000 },
    );
  });

  it('agrees with JSON.parse on numbers, escapes and literals', () => {
    const values = [
      '0',
      '-0',
      '01',
      '-',
      '1.',
      '.5',
      '1.5',
      '1e5',
      '1E+5',
      '1e-5',
      '1e',
      '1e+',
      '-01',
      '2.e3',
      '1.5e308',
      '1e999',
      'true',
      'false',
      'null',
      'tru',
      'nul',
      'falsey',
      'True',
      'NaN',
      'Infinity',
      '"\\x"',
      '"\\u12"',
      '"\\u12g4"',
      '"\\uABCD"',
      '"\\"',
      '"\t"',
      '"a\\\\"',
      '"\\b\\f\\n\\r\\t\\/"',
      '""',
      '[]',
      '[1,]',
      '[,1]',
      '{}',
      '{"a"}',
      '{"a":}',
      '{"a":1,}',
    ];
    for (const value of values) {
      for (const text of [`{"k":${value}}`, `{"k":[${value}]}`, `{"k":${value},"l":0}`]) {
        expect(isJsonObjectText(text), text).toBe(parsesToObject(text));
      }
    }
  });

  it('leaves deep nesting and long texts to JSON.parse, with the same answer', () => {
    for (const depth of [29, 30, 31, 32, 100, 10_000]) {
      const deep = `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      expect(isJsonObjectText(deep), String(depth)).toBe(parsesToObject(deep));
      const unclosed = `{"a":${'['.repeat(depth)}${']'.repeat(depth - 1)}}`;
      expect(isJsonObjectText(unclosed), String(depth)).toBe(false);
    }
    const long = JSON.stringify({ text: 'x'.repeat(2000) });
    expect(isJsonObjectText(long)).toBe(true);
    expect(isJsonObjectText(`${long.slice(0, -1)},}`)).toBe(false);
    const boundary = JSON.stringify({ text: 'x'.repeat(1024 - 11) });
    expect(boundary.length).toBe(1024);
    expect(isJsonObjectText(boundary)).toBe(true);
    expect(isJsonObjectText(`${boundary.slice(0, -1)} `)).toBe(false);
  });

  it('rejects what is not an object', () => {
    for (const text of ['', ' ', '[]', '"{}"', 'null', '1', '{', '}', '{}{}', '{} x', '\ufeff{}'])
      expect(isJsonObjectText(text), JSON.stringify(text)).toBe(false);
  });
});
