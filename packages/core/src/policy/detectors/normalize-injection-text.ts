// Words attackers misspell to slip past filters; a token one edit (insertion, deletion,
// substitution or adjacent swap) away from one of them reads as it.
const keywords = [
  'ignore',
  'disregard',
  'previous',
  'instructions',
  'instruction',
  'important',
  'following',
  'assistant',
  'override',
  'strictly',
  'adhere',
  'immediately',
  'urgent',
  'system',
  'forget',
  'before',
  'instead',
  'follow',
  'prior',
  'message',
];

// Symmetric-delete index: each keyword and each of its one-letter deletions -> the keyword
const deletions = new Map<string, string>();
for (const word of keywords) {
  if (!deletions.has(word)) deletions.set(word, word);
  for (let i = 0; i < word.length; i++) {
    const deleted = word.slice(0, i) + word.slice(i + 1);
    if (!deletions.has(deleted)) deletions.set(deleted, word);
  }
}
// real words one edit away from a keyword stay themselves
const exact = new Set([...keywords, 'forgot', 'fellow', 'fallow', 'hollow', 'prions', 'primer']);

// One edit cannot change both ends of a word of five letters or more: a misspelled keyword keeps
// its first two or its last two letters (a cheap test that rejects most words)
const heads = new Set(keywords.map((k) => k.slice(0, 2)));
const tails = new Set(keywords.map((k) => k.slice(-2)));

function correct(token: string): string {
  if (token.length < 5 || token.length > 13 || exact.has(token)) return token;
  if (!heads.has(token.slice(0, 2)) && !tails.has(token.slice(-2))) return token;
  const direct = deletions.get(token);
  if (direct !== undefined && Math.abs(direct.length - token.length) <= 1) return direct;
  for (let i = 0; i < token.length; i++) {
    const found = deletions.get(token.slice(0, i) + token.slice(i + 1));
    if (found !== undefined && Math.abs(found.length - token.length) <= 1) return found;
  }
  return token;
}

const ascii = /^[\x00-\x7f]*$/;
const spacedHint = /\b\p{L} \p{L} \p{L} \p{L}\b/u;
const leetHint = /\p{L}[\d@$]|[\d@$]\p{L}/u;
// candidate words for the misspelling check (the keywords are 5 to 12 letters long)
const word = /\p{L}{4,13}/gu;
const leet: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
};

// Cyrillic and Greek letters that look like Latin ones: a word mixing them with Latin letters
// ("Іgnоrе", "thе") is written to slip past filters, and reads as its Latin look-alike
const confusables: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
};
const mixedWord = /[\p{L}\d]+/gu;
const latin = /[a-z]/;
const lookAlike = /[\u0370-\u03ff\u0400-\u04ff\u0500-\u052f\u0261]/;
const lookAlikes = /[\u0370-\u03ff\u0400-\u04ff\u0500-\u052f\u0261]/g;

// zero-width, bidi and soft-hyphen characters hide words from filters
const invisible = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/g;
// "i g n o r e" -> "ignore": four or more single letters separated by single spaces
const spaced = /\b(?:\p{L} ){3,}\p{L}\b/gu;
// words, to find those mixing letters and leetspeak digits: "1gn0re", "prev1ous"
const token = /[\p{L}\d@$]+/gu;
const hasLetter = /\p{L}/u;
const hasLeet = /[\d@$]/;

/**
 * The text as the signal patterns read it: NFKC, lower case, invisible characters removed,
 * letter-spaced words joined, leetspeak digits inside words read as letters, and words one edit
 * away from an injection keyword read as that keyword. For matching only: offsets differ from
 * the original.
 * @internal
 */
export function normalizeInjectionText(text: string): string {
  // most text is ASCII: skip the Unicode passes then (same result, several times faster)
  let out = text.toLowerCase();
  if (!ascii.test(text)) {
    out = out.normalize('NFKC').replace(invisible, '');
    if (lookAlike.test(out))
      out = out.replace(mixedWord, (w) =>
        latin.test(w) ? w.replace(lookAlikes, (c) => confusables[c] ?? c) : w,
      );
  }
  if (spacedHint.test(out)) out = out.replace(spaced, (m) => m.replaceAll(' ', ''));
  if (leetHint.test(out)) {
    out = out.replace(token, (word) =>
      // keep addresses and numbers with dashes (IBANs, phone numbers) as they are
      !hasLeet.test(word) || !hasLetter.test(word) || /^[a-z]{0,3}\d{4,}/.test(word)
        ? word
        : word.replace(/[013457@$]/g, (c) => leet[c] ?? c),
    );
  }
  return out.replace(word, correct).replace(/\s+/g, ' ').trim();
}
