import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FuzzyBudgetError, findFuzzy } from './find-fuzzy.js';

/** The straightforward definition: every substring, its edit distance, the earliest end first. */
function reference(
  text: string,
  query: string,
  tolerance: number,
): { start: number; end: number; distance: number } | null {
  const distance = (a: string, b: string): number => {
    let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const current = [i];
      for (let j = 1; j <= b.length; j++) {
        const cost = a[i - 1] === b[j - 1] ? 0 : 1;
        current.push(
          Math.min(
            (previous[j] as number) + 1,
            (current[j - 1] as number) + 1,
            (previous[j - 1] as number) + cost,
          ),
        );
      }
      previous = current;
    }
    return previous[b.length] as number;
  };
  for (let end = 0; end <= text.length; end++) {
    let best: { start: number; distance: number } | undefined;
    for (let start = end; start >= 0; start--) {
      const d = distance(query, text.slice(start, end));
      if (best === undefined || d < best.distance) best = { start, distance: d };
    }
    if (best !== undefined && best.distance <= tolerance) return { ...best, end };
  }
  return null;
}

describe('findFuzzy', () => {
  it('finds the same range and distance as the definition', () => {
    const letters = fc.constantFrom('a', 'b', 'c');
    fc.assert(
      fc.property(
        fc.string({ unit: letters, maxLength: 14 }),
        fc.string({ unit: letters, minLength: 2, maxLength: 6 }),
        fc.integer({ min: 1, max: 3 }),
        (text, query, tolerance) => {
          if (query.length <= tolerance) return;
          expect(findFuzzy(text, query, tolerance)).toEqual(reference(text, query, tolerance));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('long texts: answered with few cells per character, or FuzzyBudgetError past maxCells', () => {
    // a 20,000-character query from trace data against itself needs the whole triangle of the
    // table (2·10^8 cells); placing a found match used to take cubic time on top
    const text = 'a'.repeat(20_000);
    expect(() => findFuzzy(text, text, 10, 10_000_000)).toThrow(FuzzyBudgetError);
    // Ukkonen's cut-off: a short query over a long text computes about tolerance + 2 cells per
    // character, well within the budget
    const noise = Array.from({ length: 200_000 }, (_, i) => 'abcdefghij'[(i * 7919) % 10]).join('');
    expect(
      findFuzzy(
        `${noise}ignroe previous instructions`,
        'ignore previous instructions',
        5,
        10_000_000,
      ),
    ).toEqual({
      start: 200_000,
      end: 200_025,
      distance: 5,
    });
  });
});
