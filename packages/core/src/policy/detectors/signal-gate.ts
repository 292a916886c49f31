import { requiredFactors } from './required-factors.js';

/**
 * Which signal patterns can match which line, found by one pass over the characters: each
 * pattern's required factors (`requiredFactors`) are indexed by a few characters of each (six
 * of a long factor, four of a shorter one, two of a Chinese word), and a line can match a
 * pattern only if it holds such a piece of one of its factors. A hash collision or a piece found
 * in another word only sends a line to a pattern that then does not match; a line the gate
 * passes over holds none of the pattern's factors, so the pattern cannot match it.
 *
 * Why: the detector's time on long text was the signal patterns, each run over every sentence
 * (bench/detection.bench.ts, "30 KB of distinct outputs": 23 patterns over 14 KB of distinct
 * sentences, about 2-3 ms of 10). Most sentences of a tool output hold none of a pattern's
 * words; on that text the gate leaves 625 pattern tests of 6,716 (292 lines x 23 patterns).
 */
export interface SignalGate {
  /** Patterns that have no known factors: tried on every line. */
  always: number;
  /**
   * Candidate patterns of each line of `lines` (lines separated by `\n`), as bit masks.
   * @param lines - normalised sentences, one per line
   * @param count - the number of lines
   */
  candidates(lines: string, count: number): Int32Array;
}

// A piece of a factor (2, 3, 4 or 6 characters) is hashed to 32 bits. The scan looks each
// piece of a line up in a bit set first (32 KB, so it stays in the processor's cache: the first
// version, six tables of 128 KB, spent more time on cache misses than the patterns saved), and
// only for the 0.5% of pieces it holds in the table of pattern masks, by other bits of the hash.
const FILTER_BITS = 18;
const TABLE_BITS = 14;
const mix = (x: number): number => {
  let h = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return h ^ (h >>> 16);
};
const pair = (a: number, b: number): number => (a << 16) | b;
const hash2 = (e: number, f: number): number => mix(pair(e, f) ^ 0x2d2d2d2d);
const hash3 = (d: number, e: number, f: number): number =>
  mix(Math.imul(d + 0x33, 0x9e3779b1) ^ pair(e, f));
const hash4 = (c: number, d: number, e: number, f: number): number =>
  mix(Math.imul(pair(c, d), 0x9e3779b1) ^ pair(e, f));
const hash6 = (a: number, b: number, c: number, d: number, e: number, f: number): number =>
  mix(Math.imul(pair(a, b), 0x85ebca6b) ^ Math.imul(pair(c, d), 0x9e3779b1) ^ pair(e, f));

// A factor is indexed by its rarest four characters: letters by their frequency in English,
// and a space or a letter pair that starts or ends many words weighs as common
const COMMON = ' etaoinshrdlcumwfgypbvkjxqz';
const commonness = (code: number): number => {
  const at = COMMON.indexOf(String.fromCharCode(code));
  return at < 0 ? 10 : COMMON.length - at;
};
const COMMON_PAIRS = new Set(
  'th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co me de hi ri ro ic ne ea ra ce'.split(
    ' ',
  ),
);
function costOf(factor: string, from: number, length: number): number {
  let cost = 0;
  for (let k = from; k < from + length; k++) {
    cost += commonness(factor.charCodeAt(k));
    if (k > from && COMMON_PAIRS.has(factor.slice(k - 1, k + 1))) cost += 15;
  }
  return cost;
}

/**
 * @param patterns - the signal patterns, at most 32
 * @returns the gate of those patterns
 * @internal
 */
export function createSignalGate(patterns: readonly RegExp[]): SignalGate {
  const filter = new Int32Array(1 << (FILTER_BITS - 5));
  const table = new Int32Array(1 << TABLE_BITS);
  let always = 0;
  // which piece lengths are indexed (bit n: n characters)
  let lengths = 0;
  for (let p = 0; p < patterns.length; p++) {
    const bit = 1 << p;
    const factors = requiredFactors(patterns[p] as RegExp);
    let indexed = factors !== null;
    for (const factor of factors ?? []) if (factor.length < 2) indexed = false;
    if (!indexed || factors === null) {
      always |= bit;
      continue;
    }
    for (const factor of factors) {
      const length = factor.length >= 6 ? 6 : Math.min(4, factor.length);
      let best = 0;
      let rarest = Number.POSITIVE_INFINITY;
      for (let k = 0; k + length <= factor.length; k++) {
        const cost = costOf(factor, k, length);
        if (cost < rarest) {
          rarest = cost;
          best = k;
        }
      }
      const at = (k: number): number => factor.charCodeAt(best + k);
      const h =
        length === 2
          ? hash2(at(0), at(1))
          : length === 3
            ? hash3(at(0), at(1), at(2))
            : length === 4
              ? hash4(at(0), at(1), at(2), at(3))
              : hash6(at(0), at(1), at(2), at(3), at(4), at(5));
      filter[h >>> (37 - FILTER_BITS)] =
        (filter[h >>> (37 - FILTER_BITS)] as number) | (1 << ((h >>> (32 - FILTER_BITS)) & 31));
      table[h & ((1 << TABLE_BITS) - 1)] = (table[h & ((1 << TABLE_BITS) - 1)] as number) | bit;
      lengths |= 1 << length;
    }
  }
  const use2 = (lengths & 4) !== 0;
  const use3 = (lengths & 8) !== 0;
  const use4 = (lengths & 16) !== 0;
  const use6 = (lengths & 64) !== 0;
  const look = (h: number): number =>
    ((filter[h >>> (37 - FILTER_BITS)] as number) >>> ((h >>> (32 - FILTER_BITS)) & 31)) & 1
      ? (table[h & ((1 << TABLE_BITS) - 1)] as number)
      : 0;
  return {
    always,
    candidates(lines, count) {
      const masks = new Int32Array(count);
      let line = 0;
      let mask = always;
      // the five characters before the current one on its line (-1: none)
      let a = -1;
      let b = -1;
      let c = -1;
      let d = -1;
      let e = -1;
      for (let i = 0; i < lines.length; i++) {
        const f = lines.charCodeAt(i);
        if (f === 10) {
          masks[line++] = mask;
          mask = always;
          a = b = c = d = e = -1;
          continue;
        }
        if (e >= 0) {
          if (use2) mask |= look(hash2(e, f));
          if (d >= 0) {
            if (use3) mask |= look(hash3(d, e, f));
            if (c >= 0 && use4) mask |= look(hash4(c, d, e, f));
            if (a >= 0 && use6) mask |= look(hash6(a, b, c, d, e, f));
          }
        }
        a = b;
        b = c;
        c = d;
        d = e;
        e = f;
      }
      if (line < count) masks[line] = mask;
      return masks;
    },
  };
}
