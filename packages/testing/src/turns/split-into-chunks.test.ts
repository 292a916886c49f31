import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitIntoChunks } from './split-into-chunks.js';

describe('splitIntoChunks', () => {
  it('returns no chunks for empty text', () => {
    expect(splitIntoChunks('', 4)).toEqual([]);
  });

  it('never splits a surrogate pair', () => {
    expect(splitIntoChunks('a😀b😀', 1)).toEqual(['a', '😀', 'b', '😀']);
  });

  it('joins back to the text with pieces of at most size code points', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.integer({ min: 1, max: 16 }),
        (text, size) => {
          const chunks = splitIntoChunks(text, size);
          expect(chunks.join('')).toBe(text);
          for (const chunk of chunks) expect(Array.from(chunk).length).toBeLessThanOrEqual(size);
          expect(chunks.slice(0, -1).every((chunk) => Array.from(chunk).length === size)).toBe(
            true,
          );
        },
      ),
    );
  });
});
