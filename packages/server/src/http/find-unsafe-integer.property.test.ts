import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findUnsafeInteger } from './find-unsafe-integer.js';

// keys that are not array indexes, so a path names one place
const key = fc.stringMatching(/^[a-z_]{1,6}$/);
const safeJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.maxSafeInteger(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('findUnsafeInteger', () => {
  it('finds nothing in JSON whose integers are all safe, whatever digits its strings hold', () => {
    fc.assert(
      fc.property(safeJson, fc.bigInt({ min: 10n ** 15n, max: 10n ** 30n }), (value, digits) => {
        expect(findUnsafeInteger(JSON.stringify({ value, text: String(digits) }))).toBeUndefined();
      }),
    );
  });

  it('finds an integer JSON.parse would round, wherever it is, with its path and as written', () => {
    fc.assert(
      fc.property(
        fc.array(key, { minLength: 1, maxLength: 5 }),
        // odd and above 2^53: no double holds it (doubles there are even)
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.boolean(),
        safeJson,
        (path, step, negative, sibling) => {
          const literal = `${negative ? '-' : ''}${2n ** 53n + 1n + 2n * step}`;
          // build {"a":{"b":<literal>},"z":<sibling>} by text: the literal must stay as written
          let text = literal;
          for (const name of [...path].reverse()) text = `{${JSON.stringify(name)}:${text}}`;
          text = `[${JSON.stringify(sibling)},${text}]`;
          expect(findUnsafeInteger(text)).toEqual({ path: `1.${path.join('.')}`, literal });
        },
      ),
    );
  });

  it('says the root for a bare number; keeps integers a double holds exactly; finds one past Infinity', () => {
    expect(findUnsafeInteger('9007199254740993')).toEqual({
      path: '',
      literal: '9007199254740993',
    });
    expect(findUnsafeInteger('9007199254740991')).toBeUndefined();
    expect(findUnsafeInteger('[9007199254740992, -100000000000000000000]')).toBeUndefined();
    expect(findUnsafeInteger(`{"n":1${'0'.repeat(400)}}`)?.path).toBe('n');
  });
});
