import { cachedRegex } from '../runtime/policy-regex.js';

/** Where `findFuzzy` found the query, and with how many edits. */
export interface FuzzyFinding {
  start: number;
  end: number;
  /** Levenshtein distance between the query and the text in the range. */
  distance: number;
}

/**
 * The number of edits `fuzzy_contains` allows, as Invariant computes it: the query's length
 * times `1 - threshold`, truncated, at most 10.
 */
export function fuzzyTolerance(query: string, threshold: number): number {
  return Math.min(10, Math.trunc(query.length * (1 - threshold)));
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(
        Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * Finds the query in text allowing up to `tolerance` edits (insertions, deletions,
 * substitutions), as Invariant's `fuzzy_contains` does with the `regex` module's `{e<=n}`.
 * Case-sensitive. With no edits allowed the query is a regular expression (as in Invariant);
 * with edits it is literal text. Returns the earliest-ending occurrence, or null.
 *
 * @param text - the text to search
 * @param query - what to look for
 * @param tolerance - the most edits allowed
 * @returns the range of the closest text to the query ending first, or null
 * @example
 * ```ts
 * findFuzzy('please send the pasword now', 'password', 1); // { start: 16, end: 23, distance: 1 }
 * ```
 */
export function findFuzzy(text: string, query: string, tolerance: number): FuzzyFinding | null {
  if (tolerance <= 0) {
    const m = cachedRegex(query, 'none')?.search(text);
    return m === null || m === undefined ? null : { start: m.start, end: m.end, distance: 0 };
  }
  const m = query.length;
  if (m <= tolerance) return { start: 0, end: 0, distance: m };
  // Sellers' algorithm: column j holds the edit distance of each query prefix to the best
  // substring of text ending at j
  let column = Array.from({ length: m + 1 }, (_, i) => i);
  for (let j = 1; j <= text.length; j++) {
    const next = [0];
    const character = text[j - 1];
    for (let i = 1; i <= m; i++) {
      const cost = query[i - 1] === character ? 0 : 1;
      next.push(
        Math.min((column[i] ?? 0) + 1, (next[i - 1] ?? 0) + 1, (column[i - 1] ?? 0) + cost),
      );
    }
    column = next;
    const best = column[m] ?? m;
    if (best <= tolerance) {
      // the start giving the fewest edits, the shortest span on ties
      let start = j;
      let fewest = Number.POSITIVE_INFINITY;
      for (let s = j; s >= Math.max(0, j - m - tolerance); s--) {
        const d = distance(query, text.slice(s, j));
        if (d < fewest) {
          fewest = d;
          start = s;
        }
      }
      return { start, end: j, distance: fewest };
    }
  }
  return null;
}
