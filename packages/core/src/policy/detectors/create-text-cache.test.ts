import { describe, expect, it } from 'vitest';
import { createTextCache } from './create-text-cache.js';

describe('createTextCache', () => {
  it('never answers for another long text of the same length, wherever they differ', () => {
    const cache = createTextCache<number>(8);
    const base = 'x'.repeat(40_000);
    // 5,000 and 20,001 lie between sampled characters: those two share a key
    const texts = [0, 39_999, 5_000, 20_001].map(
      (at) => `${base.slice(0, at)}y${base.slice(at + 1)}`,
    );
    for (const [i, text] of texts.entries()) cache.set(text, i);
    // a copy of the text (another string object) finds its value; the ends are read in full
    expect(texts.map((text) => cache.get(`${text} `.slice(0, -1)))).toEqual([0, 1, undefined, 3]);
    expect(cache.get(base)).toBeUndefined();
  });

  it('keeps the newest entries, short and long', () => {
    const cache = createTextCache<string>(2);
    for (const text of ['a', 'b', 'c', 'L'.repeat(20_000), 'M'.repeat(20_000), 'N'.repeat(20_000)])
      cache.set(text, text.slice(0, 1));
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 'b', 'c']);
    expect(cache.get('L'.repeat(20_000))).toBeUndefined();
    expect(cache.get('N'.repeat(20_000))).toBe('N');
  });
});
