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
 * words; on that text the gate leaves 565 pattern tests of 6,700 (292 lines x 23 patterns).
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

// table sizes (slots of 32 pattern bits): a collision costs a pattern test, never a match
const BITS = 15;
const SHIFT = 32 - BITS;

const bigramOf = (a: number, b: number): number => Math.imul(a * 131 + b, 0x9e3779b1) >>> SHIFT;
const trigramOf = (a: number, b: number, c: number): number =>
  (Math.imul(a * 31 + b, 0x9e3779b1) ^ Math.imul(c, 0x85ebca6b)) >>> SHIFT;
const quadgramOf = (a: number, b: number, c: number, d: number): number =>
  (Math.imul(a * 31 + b, 0x9e3779b1) ^ Math.imul(c * 37 + d, 0x85ebca6b)) >>> SHIFT;
// most factors are indexed by four characters: each in two tables by two hashes, a line's bit
// set only where both agree, so that collisions (4% of the slots hold a bit) send 0.2% of
// a line's positions to a pattern instead of 4%
const quadgramTooOf = (a: number, b: number, c: number, d: number): number =>
  (Math.imul(a * 37 + c, 0xcc9e2d51) ^ Math.imul(b * 41 + d, 0x1b873593)) >>> SHIFT;
// and factors of six characters or more by six: "stop here" by "p here", not by "stop",
// which many ordinary sentences hold
const hexagramOf = (a: number, b: number, c: number, d: number, e: number, f: number): number =>
  (Math.imul(Math.imul(a, 961) + b * 31 + c, 0x9e3779b1) ^
    Math.imul(Math.imul(d, 1369) + e * 37 + f, 0x85ebca6b)) >>>
  SHIFT;
const hexagramTooOf = (a: number, b: number, c: number, d: number, e: number, f: number): number =>
  (Math.imul(Math.imul(a, 1681) + c * 41 + e, 0xcc9e2d51) ^
    Math.imul(Math.imul(b, 1849) + d * 43 + f, 0x1b873593)) >>>
  SHIFT;

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
  const tables = [new Int32Array(1 << BITS), new Int32Array(1 << BITS), new Int32Array(1 << BITS)];
  const [bigrams, trigrams, quadgrams] = tables as [Int32Array, Int32Array, Int32Array];
  const quadgramsToo = new Int32Array(1 << BITS);
  const hexagrams = new Int32Array(1 << BITS);
  const hexagramsToo = new Int32Array(1 << BITS);
  let always = 0;
  let used = 0;
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
      if (length === 6) {
        const [a, b, c, d, e, f] = [at(0), at(1), at(2), at(3), at(4), at(5)];
        const slot = hexagramOf(a, b, c, d, e, f);
        hexagrams[slot] = (hexagrams[slot] as number) | bit;
        const too = hexagramTooOf(a, b, c, d, e, f);
        hexagramsToo[too] = (hexagramsToo[too] as number) | bit;
        used |= 8;
        continue;
      }
      const slot =
        length === 2
          ? bigramOf(at(0), at(1))
          : length === 3
            ? trigramOf(at(0), at(1), at(2))
            : quadgramOf(at(0), at(1), at(2), at(3));
      const table = tables[length - 2] as Int32Array;
      table[slot] = (table[slot] as number) | bit;
      if (length === 4) {
        const too = quadgramTooOf(at(0), at(1), at(2), at(3));
        quadgramsToo[too] = (quadgramsToo[too] as number) | bit;
      }
      used |= 1 << (length - 2);
    }
  }
  const useBigrams = (used & 1) !== 0;
  const useTrigrams = (used & 2) !== 0;
  const useQuadgrams = (used & 4) !== 0;
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
          if (useBigrams) mask |= bigrams[bigramOf(e, f)] as number;
          if (d >= 0) {
            if (useTrigrams) mask |= trigrams[trigramOf(d, e, f)] as number;
            if (c >= 0 && useQuadgrams)
              mask |=
                (quadgrams[quadgramOf(c, d, e, f)] as number) &
                (quadgramsToo[quadgramTooOf(c, d, e, f)] as number);
            if (a >= 0)
              mask |=
                (hexagrams[hexagramOf(a, b, c, d, e, f)] as number) &
                (hexagramsToo[hexagramTooOf(a, b, c, d, e, f)] as number);
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
