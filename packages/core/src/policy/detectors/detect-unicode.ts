/** A character found by `detectUnicode`: its Unicode general category and range. */
export interface UnicodeFinding {
  /** Two-letter general category (`Cf`, `Co`, `Lu`, ...). */
  type: string;
  start: number;
  end: number;
}

/** The leaf general categories (what Python's `unicodedata.category` returns). */
const categoryNames = [
  'Cc',
  'Cf',
  'Cn',
  'Co',
  'Cs',
  'Ll',
  'Lm',
  'Lo',
  'Lt',
  'Lu',
  'Mc',
  'Me',
  'Mn',
  'Nd',
  'Nl',
  'No',
  'Pc',
  'Pd',
  'Pe',
  'Pf',
  'Pi',
  'Po',
  'Ps',
  'Sc',
  'Sk',
  'Sm',
  'So',
  'Zl',
  'Zp',
  'Zs',
] as const;

const known: ReadonlySet<string> = new Set(categoryNames);
// One Unicode property regex per category, compiled on first use, not at import: compiling
// 30 `\p{gc=…}` classes is a measurable share of importing core (issue 18 §4).
let compiledCategories: Map<string, RegExp> | undefined;
function categoryRegexes(): Map<string, RegExp> {
  compiledCategories ??= new Map(
    categoryNames.map((name) => [name, new RegExp(`^\\p{gc=${name}}$`, 'u')]),
  );
  return compiledCategories;
}
const categoryCache = new Map<number, string>();
const searchCache = new Map<string, RegExp | null>();

function categoryOf(character: string): string {
  const codePoint = character.codePointAt(0) ?? 0;
  const hit = categoryCache.get(codePoint);
  if (hit !== undefined) return hit;
  let found = 'Cn';
  for (const [name, regex] of categoryRegexes()) {
    if (regex.test(character)) {
      found = name;
      break;
    }
  }
  if (categoryCache.size > 4096) categoryCache.clear();
  categoryCache.set(codePoint, found);
  return found;
}

// One regex finding any character of the wanted categories; null when none is a known category.
function searchRegex(categories: readonly string[] | undefined): RegExp | null {
  const key = categories === undefined ? '*' : categories.join(',');
  const hit = searchCache.get(key);
  if (hit !== undefined) return hit;
  const wanted = categories === undefined ? undefined : categories.filter((c) => known.has(c));
  const regex =
    wanted === undefined
      ? /./gsu
      : wanted.length === 0
        ? null
        : new RegExp(`[${wanted.map((c) => `\\p{gc=${c}}`).join('')}]`, 'gu');
  if (searchCache.size > 256) searchCache.clear();
  searchCache.set(key, regex);
  return regex;
}

/**
 * Finds the characters of text in the given Unicode general categories, like Invariant's
 * `unicode` detector: `Cf` (format characters: zero-width spaces and joiners, bidi controls,
 * tag characters), `Co` (private use), `Cc` (controls) and so on. Only the two-letter leaf
 * categories match (as in Invariant, `"LC"` or `"C"` find nothing). Without categories every
 * character is reported. Ranges are UTF-16 offsets; a character outside the BMP spans two.
 *
 * @param text - any text
 * @param categories - the categories to report; all when omitted
 * @returns one finding per character, in order
 * @example
 * ```ts
 * detectUnicode('a\u200bb', ['Cf']); // [{ type: 'Cf', start: 1, end: 2 }]
 * ```
 */
export function detectUnicode(text: string, categories?: readonly string[]): UnicodeFinding[] {
  const regex = searchRegex(categories);
  if (regex === null) return [];
  const wanted = categories === undefined ? undefined : new Set(categories);
  const out: UnicodeFinding[] = [];
  for (const m of text.matchAll(regex)) {
    const type = categoryOf(m[0]);
    // the union regex and the per-category test agree, but guard against engine differences
    if (wanted !== undefined && !wanted.has(type)) continue;
    out.push({ type, start: m.index, end: m.index + m[0].length });
  }
  return out;
}
