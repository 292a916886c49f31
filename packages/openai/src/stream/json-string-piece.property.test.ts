import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonStringPiece } from './json-string-piece.js';

describe('jsonStringPiece', () => {
  it('pieces of any text, split anywhere (surrogate pairs too), join into the JSON of { input }', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, cuts) => {
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort(
            (a, b) => a - b,
          );
          let json = '{"input":"';
          let from = 0;
          for (const point of [...points, text.length]) {
            json += jsonStringPiece(text.slice(from, point));
            from = point;
          }
          json += '"}';
          expect(JSON.parse(json)).toEqual({ input: text });
        },
      ),
    );
  });
});
