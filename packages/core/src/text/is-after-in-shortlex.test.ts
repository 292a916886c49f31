import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAfterInShortlex } from './is-after-in-shortlex.js';

describe('isAfterInShortlex', () => {
  it('orders counters without padding by value, and strings of one length as > does', () => {
    expect(isAfterInShortlex('call_10', 'call_9')).toBe(true);
    expect(isAfterInShortlex('call_9', 'call_10')).toBe(false);
    expect(isAfterInShortlex('call_1_0', 'call_0_9')).toBe(true);
    expect(isAfterInShortlex('b', 'a')).toBe(true);
    expect(isAfterInShortlex('a', 'a')).toBe(false);
    expect(isAfterInShortlex('a', '')).toBe(true);
    expect(isAfterInShortlex('', '')).toBe(false);
  });

  it('is a strict total order: for two strings exactly one holds of after, before, equal', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        const after = isAfterInShortlex(a, b);
        const before = isAfterInShortlex(b, a);
        expect([after, before, a === b].filter(Boolean)).toHaveLength(1);
      }),
    );
  });

  it('is transitive, so a value after the maximum is after every earlier value', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^c[0-9]{0,3}$/), { minLength: 1 }), (values) => {
        let max = '';
        for (const value of values) if (isAfterInShortlex(value, max)) max = value;
        for (const value of values) expect(isAfterInShortlex(value, max)).toBe(false);
      }),
    );
  });
});
