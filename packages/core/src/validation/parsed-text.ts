import { maxJsonDepth } from './json-problem.js';

/**
 * What the JSON text a block was just parsed from proves about its values, so the per-block
 * rules skip the checks `JSON.parse` already settled. Values parsed from text are plain data:
 * no cycles, BigInt, accessors, `toJSON` or class instances. When the text has no lone
 * surrogate (not even escaped), no string or key in them has one. When it is at most
 * `2 * maxJsonDepth` characters (each level takes two brackets), or holds at most
 * `maxJsonDepth` opening brackets, no value nests deeper than `maxJsonDepth`. And no value serialises to more than 18 bytes per character of the text
 * (UTF-8 takes at most 3 bytes per UTF-16 unit, and a number written back by JSON.stringify at
 * most 6 times its text, `1e20`): a field whose limit is above that needs no counting.
 * Set only for the synchronous validation of one parsed line: {@link trustParsedText} before,
 * {@link forgetParsedText} after, in a `finally`.
 * @internal
 */
export const parsedText = {
  /** Every string and key is well-formed UTF-16 (no lone surrogate). */
  wellFormed: false,
  /** Plain data, nested at most `maxJsonDepth` deep, with well-formed keys. */
  serialisable: false,
  /** An upper bound of the UTF-8 bytes of any value's JSON form; 0 when unknown. */
  maxJsonBytes: 0,
};

/**
 * Whether JSON text holds an escape of a surrogate (`\uD800`-`\uDFFF`, any case), lone or in
 * a pair; conservative: an escaped backslash followed by `ud8` also counts.
 */
function hasSurrogateEscape(text: string): boolean {
  let at = text.indexOf('\\u');
  while (at !== -1) {
    const d = text.charCodeAt(at + 2);
    if (d === 100 || d === 68) {
      const digit = text.charCodeAt(at + 3);
      // 8-9, a-f or A-F: D800-DFFF
      if (
        (digit >= 56 && digit <= 57) ||
        (digit >= 97 && digit <= 102) ||
        (digit >= 65 && digit <= 70)
      )
        return true;
    }
    at = text.indexOf('\\u', at + 2);
  }
  return false;
}

/**
 * Whether `text` holds at most `max` opening brackets (`{` and `[`, in strings too). Every
 * object and array of the parsed value opens with one, so its values nest at most that deep.
 * One native search per bracket: a long line of a few dozen containers (a ~2 KB TOOL_RESULT
 * with an output of ten items) is settled in a fraction of walking its values, which
 * bench/validate.bench.ts's large acceptLine rows did for every line over 2,000 characters.
 */
function bracketsAtMost(text: string, max: number): boolean {
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1))
    if (++count > max) return false;
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1))
    if (++count > max) return false;
  return true;
}

/**
 * Records what `text`, which a block was just parsed from, proves (see {@link parsedText}).
 * @internal
 */
export function trustParsedText(text: string): void {
  const wellFormed = text.isWellFormed() && !hasSurrogateEscape(text);
  parsedText.wellFormed = wellFormed;
  parsedText.serialisable =
    wellFormed && (text.length <= 2 * maxJsonDepth || bracketsAtMost(text, maxJsonDepth));
  parsedText.maxJsonBytes = wellFormed ? text.length * 18 : 0;
}

/** Ends the trust {@link trustParsedText} set. @internal */
export function forgetParsedText(): void {
  parsedText.wellFormed = false;
  parsedText.serialisable = false;
  parsedText.maxJsonBytes = 0;
}
