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

/** @internal Thrown by {@link findFuzzy} when it would compute more than `maxCells` cells. */
export class FuzzyBudgetError extends Error {}

/**
 * The start of the best match ending at `end`: the substring `text[start, end)` closest to the
 * query, the shortest on ties. Only lengths within `tolerance` of the query's can be within
 * `tolerance` edits, so a band of the edit-distance table (query suffixes against the text
 * read backwards from `end`) gives every candidate in O(query × tolerance).
 */
function bestStart(
  text: string,
  query: string,
  end: number,
  tolerance: number,
): { start: number; distance: number } {
  const m = query.length;
  const width = 2 * tolerance + 1;
  const big = m + tolerance + 1;
  // row i: distances of the query's last i characters to the last t characters before `end`,
  // for t in [i - tolerance, i + tolerance] (band offset t - i + tolerance)
  let previous = new Int32Array(width).fill(big);
  let current = new Int32Array(width).fill(big);
  for (let d = 0; d < width; d++) {
    const t = d - tolerance;
    if (t >= 0 && t <= end) previous[d] = t;
  }
  for (let i = 1; i <= m; i++) {
    const q = query.charCodeAt(m - i);
    for (let d = 0; d < width; d++) {
      const t = i + d - tolerance;
      if (t < 0 || t > end) {
        current[d] = big;
        continue;
      }
      // row i-1 at the same t is offset d + 1; at t - 1, offset d
      let best = d + 1 < width ? (previous[d + 1] as number) + 1 : big;
      if (t === 0) best = Math.min(best, i);
      else {
        best = Math.min(best, (previous[d] as number) + (q === text.charCodeAt(end - t) ? 0 : 1));
        if (d > 0) best = Math.min(best, (current[d - 1] as number) + 1);
      }
      current[d] = best;
    }
    [previous, current] = [current, previous];
  }
  let start = end;
  let fewest = Number.POSITIVE_INFINITY;
  for (let d = 0; d < width; d++) {
    const t = m + d - tolerance;
    if (t < 0 || t > end) continue;
    const value = previous[d] as number;
    if (value < fewest) {
      fewest = value;
      start = end - t;
    }
  }
  return { start, distance: fewest };
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
 * @param maxCells - the most table cells to compute before giving up (about 3 ns each)
 * @returns the range of the closest text to the query ending first, or null
 * @throws FuzzyBudgetError past `maxCells` (the search is O(text × query) in the worst case)
 * @example
 * ```ts
 * findFuzzy('please send the pasword now', 'password', 1); // { start: 16, end: 23, distance: 1 }
 * ```
 */
export function findFuzzy(
  text: string,
  query: string,
  tolerance: number,
  maxCells = Number.POSITIVE_INFINITY,
): FuzzyFinding | null {
  if (tolerance <= 0) {
    const m = cachedRegex(query, 'none')?.search(text);
    return m === null || m === undefined ? null : { start: m.start, end: m.end, distance: 0 };
  }
  const m = query.length;
  if (m <= tolerance) return { start: 0, end: 0, distance: m };
  // Sellers' algorithm: column j holds the edit distance of each query prefix to the best
  // substring of text ending at j. Ukkonen's cut-off: rows past the last one within tolerance
  // cannot come back within it, so each column is computed only down to there
  let column = new Int32Array(m + 1);
  let next = new Int32Array(m + 1);
  for (let i = 0; i <= m; i++) column[i] = i;
  let active = tolerance;
  let cells = 0;
  for (let j = 1; j <= text.length; j++) {
    const character = text.charCodeAt(j - 1);
    next[0] = 0;
    const last = Math.min(m, active + 1);
    cells += last;
    if (cells > maxCells) {
      throw new FuzzyBudgetError(
        `fuzzy search of a ${m}-character query in a ${text.length}-character text needs more than ${maxCells} steps`,
      );
    }
    for (let i = 1; i <= last; i++) {
      const cost = query.charCodeAt(i - 1) === character ? 0 : 1;
      next[i] = Math.min(
        (i <= active ? (column[i] as number) : tolerance + 1) + 1,
        (next[i - 1] as number) + 1,
        (column[i - 1] as number) + cost,
      );
    }
    // rows past `last` hold stale values: they are never read while inactive
    active = last;
    while (active > 0 && (next[active] as number) > tolerance) active--;
    [column, next] = [next, column];
    if (last === m && (column[m] as number) <= tolerance) {
      const best = bestStart(text, query, j, tolerance);
      return { start: best.start, end: j, distance: best.distance };
    }
  }
  return null;
}
