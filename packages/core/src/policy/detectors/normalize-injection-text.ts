import { isSpace } from '../../text/is-space.js';
import { revealHiddenText } from './reveal-hidden-text.js';

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

// One edit adds at most one letter that the keyword does not have: a word with two letters
// outside every keyword of a close length is none of them (checked before any string is built)
const letterMask = (word: string): number => {
  let mask = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i) - 97;
    mask |= c >= 0 && c < 26 ? 1 << c : 1 << 26;
  }
  return mask;
};
const keywordShapes = keywords.map((keyword) => ({
  length: keyword.length,
  mask: letterMask(keyword),
}));
function nearKeyword(token: string): boolean {
  const mask = letterMask(token);
  for (const shape of keywordShapes) {
    if (Math.abs(shape.length - token.length) > 1) continue;
    const extra = mask & ~shape.mask;
    if ((extra & (extra - 1)) === 0) return true;
  }
  return false;
}

function correct(token: string): string {
  if (token.length < 5 || token.length > 13) return token;
  if (!heads.has(token.slice(0, 2)) && !tails.has(token.slice(-2))) return token;
  if (exact.has(token) || !nearKeyword(token)) return token;
  const direct = deletions.get(token);
  if (direct !== undefined && Math.abs(direct.length - token.length) <= 1) return direct;
  for (let i = 0; i < token.length; i++) {
    const found = deletions.get(token.slice(0, i) + token.slice(i + 1));
    if (found !== undefined && Math.abs(found.length - token.length) <= 1) return found;
  }
  return token;
}

const ascii = /^[\x00-\x7f]*$/;
// the same patterns for ASCII text, without Unicode classes
const asciiSpacedHint = /\b[a-z] [a-z] [a-z] [a-z]\b/;
const asciiSpaced = /\b(?:[a-z] ){3,}[a-z]\b/g;
const asciiLeetHint = /[a-z][\d@$]|[\d@$][a-z]/;
// tokens that mix letters with leetspeak characters (the only ones `readLeet` may change): a
// token of these characters mixes them when it starts with a run of one kind followed by the
// other (written so, not with a lazy lookahead, it costs a third on a 30 KB output's lines;
// bench/detection.bench.ts, "one new 30 KB output")
const asciiToken = /(?<![a-z\d@$])(?:[a-z]+[\d@$]|[\d@$]+[a-z])[a-z\d@$]*/g;
// whitespace other than single spaces, or at either end
const oddSpace = /\s\s|[^\S ]|^\s|\s$/;
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

// Small capital letters read as their Latin letters (ғ, a Cyrillic letter, stands in for f)
const smallCapitalOf: Record<string, string> = {
  ᴀ: 'a',
  ʙ: 'b',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ғ: 'f',
  ɢ: 'g',
  ʜ: 'h',
  ɪ: 'i',
  ᴊ: 'j',
  ᴋ: 'k',
  ʟ: 'l',
  ᴍ: 'm',
  ɴ: 'n',
  ᴏ: 'o',
  ᴘ: 'p',
  ǫ: 'q',
  ʀ: 'r',
  ꜱ: 's',
  ᴛ: 't',
  ᴜ: 'u',
  ᴠ: 'v',
  ᴡ: 'w',
  ʏ: 'y',
  ᴢ: 'z',
};
const smallCapital = /[ᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘǫʀꜱᴛᴜᴠᴡʏᴢ]/;
const smallCapitals = /[ᴀʙᴄᴅᴇғɢʜɪᴊᴋʟᴍɴᴏᴘǫʀꜱᴛᴜᴠᴡʏᴢ]/g;

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

const code = (text: string, at: number): number =>
  text.charCodeAt(at) * 128 + text.charCodeAt(at + 1);
const headCodes = new Set([...heads].map((head) => code(head, 0)));
const tailCodes = new Set([...tails].map((tail) => code(tail, 0)));

// `correct` on each run of 5 to 13 ASCII letters, by one pass over the characters: most words
// fail the two-letter test without a slice or a call (the same result as a regex replace)
function correctAsciiWords(text: string): string {
  let out = '';
  let copied = 0;
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    if (c >= 97 && c <= 122) {
      if (start < 0) start = i;
      continue;
    }
    if (start < 0) continue;
    const length = i - start;
    // a run longer than 13 letters is read in pieces of 13, as /[a-z]{4,13}/g does
    for (let from = start; from < i; from += 13) {
      const to = Math.min(i, from + 13);
      const size = to - from;
      if (size >= 5 && (headCodes.has(code(text, from)) || tailCodes.has(code(text, to - 2)))) {
        const piece = text.slice(from, to);
        const fixed = correct(piece);
        if (fixed !== piece) {
          out += text.slice(copied, from) + fixed;
          copied = to;
        }
      }
      if (length <= 13) break;
    }
    start = -1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

// leetspeak digits inside a word read as letters; addresses and numbers with dashes (IBANs,
// phone numbers) stay as they are
function readLeet(word: string): string {
  return !hasLeet.test(word) || !hasLetter.test(word) || /^[a-z]{0,3}\d{4,}/.test(word)
    ? word
    : word.replace(/[013457@$]/g, (c) => leet[c] ?? c);
}

const isLetter = (c: number): boolean => c >= 97 && c <= 122;
// digits, `@` and `$`: the characters leetspeak puts in words
const isLeet = (c: number): boolean => (c >= 48 && c <= 57) || c === 64 || c === 36;

/**
 * `text.replace(asciiToken, readLeet)` on lower-case ASCII text by one pass over the
 * characters: only tokens that mix letters and leetspeak characters are read (the regex's
 * lookbehind at every position cost about a millisecond on a 30 KB output's lines;
 * bench/detection.bench.ts, "one new 30 KB output").
 */
function readAsciiLeet(text: string): string {
  let out = '';
  let copied = 0;
  let start = -1;
  let letters = false;
  let leets = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    const letter = isLetter(c);
    if (letter || isLeet(c)) {
      if (start < 0) {
        start = i;
        letters = false;
        leets = false;
      }
      if (letter) letters = true;
      else leets = true;
      continue;
    }
    if (start >= 0 && letters && leets) {
      const token = text.slice(start, i);
      const read = readLeet(token);
      if (read !== token) {
        out += text.slice(copied, start) + read;
        copied = i;
      }
    }
    start = -1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

// A marker glued to the capitals before it ("USATODO: change ...", "USAIgnore your previous
// ..."): an injection pasted after the last word of the data without a space (AgentDojo's slots
// end that way). Read as two words; a marker inside an ordinary word ("MASTODON", "Ignored",
// "UNIMPORTANT") is not one: the capitals must run up to it and the word must end with it.
const gluedMarker =
  /\b(?!UNIMPORTANT)([A-Z]{2,}?)(TODO|IMPORTANT|IGNORE|Ignore|DISREGARD|Disregard)(?![A-Za-z])/g;
const gluedHint = /[A-Z](?:TODO|IMPORTANT|IGNORE|Ignore|DISREGARD|Disregard)/;
const splitGluedMarkers = (text: string): string =>
  gluedHint.test(text) ? text.replace(gluedMarker, '$1 $2') : text;

// zero-width, bidi and soft-hyphen characters hide words from filters, and so do variation
// selectors (VS1-16, VS17-256), which carry no letter of their own
const invisible =
  /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]|[\uFE00-\uFE0F]|\uDB40[\uDD00-\uDDEF]/g;
// "i g n o r e" -> "ignore": four or more single letters separated by single spaces
const spaced = /\b(?:\p{L} ){3,}\p{L}\b/gu;
// words, to find those mixing letters and leetspeak digits: "1gn0re", "prev1ous"
const token = /[\p{L}\d@$]+/gu;
const hasLetter = /\p{L}/u;
const hasLeet = /[\d@$]/;

// Key words split in two or three pieces by spaces ("Ign ore prev ious instr uctions"): each
// split of each word, with pieces of two letters or more, joined back. A fixed list of splits
// (not any two fragments that make a word) keeps "for get" rare enough and ordinary text alone.
const splitWords = [
  'ignore',
  'disregard',
  'previous',
  'instructions',
  'forget',
  'override',
  'password',
  'system',
  'prompt',
  'assistant',
];
let splitPattern: RegExp | undefined;
function splitsOf(word: string): string[] {
  const out: string[] = [];
  for (let i = 2; i <= word.length - 2; i++) {
    out.push(`${word.slice(0, i)} ${word.slice(i)}`);
    for (let j = i + 2; j <= word.length - 2; j++)
      out.push(`${word.slice(0, i)} ${word.slice(i, j)} ${word.slice(j)}`);
  }
  return out;
}
const splitHint = /\b(?:ig|di|pr|in|fo|ov|pa|sy|as)[a-z]{0,8} [a-z]/;
function joinSplitWords(lowered: string): string {
  if (!splitHint.test(lowered)) return lowered;
  splitPattern ??= new RegExp(
    String.raw`\b(?:${splitWords
      .flatMap(splitsOf)
      .sort((a, b) => b.length - a.length)
      .join('|')})\b`,
    'g',
  );
  return lowered.replace(splitPattern, (m) => m.replaceAll(' ', ''));
}

// whitespace runs other than single spaces within lines, or spaces at a line's ends
const oddLineSpace = /[^\S\n]{2,}|[^\S \n]| \n|\n |^ | $/;

/**
 * The passes for lower-cased text with non-ASCII characters: NFKC, invisible characters removed,
 * look-alike letters read as Latin ones, letter-spaced words joined, leetspeak read, words one
 * edit from a keyword corrected.
 */
function normalizeNonAscii(lowered: string): string {
  let out = lowered.normalize('NFKC').replace(invisible, '');
  // small capitals ("ᴀɪ ᴀssɪsᴛᴀɴᴛ: ɪɢɴᴏʀᴇ ..."): NFKC keeps them, and a word of only them
  // holds no Latin letter for the look-alike pass
  if (smallCapital.test(out)) out = out.replace(smallCapitals, (c) => smallCapitalOf[c] ?? c);
  if (lookAlike.test(out))
    out = out.replace(mixedWord, (w) =>
      latin.test(w) ? w.replace(lookAlikes, (c) => confusables[c] ?? c) : w,
    );
  if (spacedHint.test(out)) out = out.replace(spaced, (m) => m.replaceAll(' ', ''));
  if (leetHint.test(out)) out = out.replace(token, readLeet);
  return out.replace(word, correct);
}

/**
 * {@link normalizeInjectionText} of each line of `lines` at once, lines kept apart by `\n`: one
 * call for all the sentences of a text instead of one per sentence (the per-call work was the
 * detector's second cost on a 30 KB output; bench/detection.bench.ts, "one new 30 KB output").
 * Each line comes out as `normalizeInjectionText` would return it alone.
 * @param lines - sentences joined by `\n` (none containing `\n`)
 * @returns the normalised lines, joined by `\n`, as many as were given
 * @internal
 */
export function normalizeInjectionLines(input: string): string {
  const lines = revealHiddenText(input);
  let out = joinSplitWords(splitGluedMarkers(lines).toLowerCase());
  if (ascii.test(lines)) {
    if (asciiSpacedHint.test(out)) out = out.replace(asciiSpaced, (m) => m.replaceAll(' ', ''));
    out = readAsciiLeet(out);
    out = correctAsciiWords(out);
  } else out = normalizeNonAscii(out);
  return oddLineSpace.test(out) ? collapseLineSpaces(out) : out;
}

/**
 * Each line's runs of white space read as one space, none at either end of a line: what
 * `.replace(/[^\S\n]+/g, ' ').replace(/ ?\n ?/g, '\n').replace(/^ | $/g, '')` gives, in one pass
 * instead of three over a 30 KB output's sentences.
 */
function collapseLineSpaces(text: string): string {
  const n = text.length;
  let out = '';
  let copied = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || !isSpace(c)) continue;
    let end = i + 1;
    while (end < n && text.charCodeAt(end) !== 10 && isSpace(text.charCodeAt(end))) end++;
    const edge =
      i === 0 || text.charCodeAt(i - 1) === 10 || end === n || text.charCodeAt(end) === 10;
    if (edge || c !== 32 || end > i + 1) {
      out += `${text.slice(copied, i)}${edge ? '' : ' '}`;
      copied = end;
    }
    i = end - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * The text as the signal patterns read it: hidden text revealed (Unicode tag characters read as
 * ASCII, base64, hex and percent-encoded runs that decode to text decoded), NFKC, lower case,
 * invisible characters and variation selectors removed,
 * letter-spaced words joined, leetspeak digits inside words read as letters, and words one edit
 * away from an injection keyword read as that keyword. For matching only: offsets differ from
 * the original.
 * @internal
 */
export function normalizeInjectionText(input: string): string {
  const text = revealHiddenText(input);
  let out = joinSplitWords(splitGluedMarkers(text).toLowerCase());
  // most text is ASCII: skip the Unicode passes then, and use ASCII classes (same result,
  // several times faster)
  if (ascii.test(text)) {
    if (asciiSpacedHint.test(out)) out = out.replace(asciiSpaced, (m) => m.replaceAll(' ', ''));
    if (asciiLeetHint.test(out)) out = out.replace(asciiToken, readLeet);
    out = correctAsciiWords(out);
  } else out = normalizeNonAscii(out);
  return oddSpace.test(out) ? out.replace(/\s+/g, ' ').trim() : out;
}
