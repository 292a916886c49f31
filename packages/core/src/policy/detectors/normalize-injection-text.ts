import { isSpace } from '../../text/is-space.js';

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

// Unicode tag characters (U+E0020-U+E007E, the surrogate pairs \uDB40\uDC20-\uDB40\uDC7E) shadow
// ASCII and are invisible in most interfaces: "ASCII smuggling" hides a whole instruction in them.
// A run of them reads as its ASCII, marked so the `hidden-characters` signal sees it; a flag
// emoji's tags (after U+1F3F4, ended by U+E007F) are a flag, not text.
const tagHint = /\uDB40[\uDC00-\uDC7F]/;
const tagRun = /(?:\uDB40[\uDC00-\uDC7F])+/g;
/** The marker a run of tag characters leaves in the normalised text. */
export const TAGGED_MARKER = '\ue000tagged\ue000';
function revealTags(text: string): string {
  return text.replace(tagRun, (run: string, offset: number) => {
    if (text.charCodeAt(offset - 2) === 0xd83c && text.charCodeAt(offset - 1) === 0xdff4)
      return run;
    let ascii = '';
    for (let i = 1; i < run.length; i += 2) {
      const c = run.charCodeAt(i) - 0xdc00;
      if (c >= 0x20 && c <= 0x7e) ascii += String.fromCharCode(c);
    }
    return ascii.length < 4 ? ascii : ` ${TAGGED_MARKER} ${ascii} `;
  });
}

// Variation selectors smuggling bytes (U+FE00-FE0F for 0-15, U+E0100-E01EF for 16-255, after a
// visible character such as an emoji): each selector one byte of UTF-8 text the eye never sees
const selectorHint = /(?:[\uFE00-\uFE0F]|\uDB40[\uDD00-\uDDEF]){4}/;
const selectorRun = /(?:[\uFE00-\uFE0F]|\uDB40[\uDD00-\uDDEF]){4,}/g;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
function revealSelectors(text: string): string {
  return text.replace(selectorRun, (run: string) => {
    const bytes: number[] = [];
    for (let i = 0; i < run.length; i++) {
      const c = run.charCodeAt(i);
      if (c >= 0xfe00 && c <= 0xfe0f) bytes.push(c - 0xfe00);
      else {
        bytes.push(run.charCodeAt(i + 1) - 0xdd00 + 16);
        i++;
      }
    }
    let decoded: string;
    try {
      decoded = strictUtf8.decode(new Uint8Array(bytes));
    } catch {
      return run;
    }
    // text, not a run of emoji presentation selectors
    return /[a-z]{2}/i.test(decoded) ? ` ${TAGGED_MARKER} ${decoded} ` : run;
  });
}

// Numeric character references written to hide text from a reader of the source ("&#73;&#103;
// &#110;..."): four or more in a row read as the characters they stand for
const entityRun = /(?:&#(?:\d{1,7}|[xX][0-9a-fA-F]{1,6});\s?){4,}/g;
function decodeEntities(run: string): string {
  let decoded = '';
  for (const match of run.matchAll(/&#(?:(\d{1,7})|[xX]([0-9a-fA-F]{1,6}));(\s?)/g)) {
    const code = match[1] === undefined ? Number.parseInt(match[2] ?? '', 16) : Number(match[1]);
    if (code < 0x20 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return run;
    decoded += String.fromCodePoint(code) + (match[3] ?? '');
  }
  return ` ${decoded} `;
}

// Encoded text: base64 (also URL-safe), hex and percent-encoding runs long enough to hold an
// instruction. Decoded only when the result reads as text (valid UTF-8, printable, with spaces
// between words): keys, hashes and ids decode to bytes and stay as they are. The work is bounded:
// at most MAX_DECODED runs of at most MAX_RUN characters each per text.
const encodedHint = /[A-Za-z0-9+/_-]{24,}|(?:%[0-9A-Fa-f]{2}[^%\s]{0,3}){6}/;
const encodedRun =
  /[A-Za-z0-9+/_-]{24,}={0,2}|(?:[0-9A-Fa-f]{2}){12,}|[^\s%"'<>]{0,40}(?:%[0-9A-Fa-f]{2}[^\s%"'<>]{0,3}){6,}/g;
const MAX_DECODED = 32;
const MAX_RUN = 4096;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const hexOnly = /^[0-9A-Fa-f]+$/;
const control = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

/**
 * Whether decoded bytes read as text: words of letters with spaces between them (an account
 * number or an amount among them), no control characters.
 */
function readsAsText(text: string): boolean {
  if (control.test(text)) return false;
  let letters = 0;
  let spaces = 0;
  for (const c of text) {
    if (/\p{L}/u.test(c)) letters++;
    else if (c === ' ') spaces++;
  }
  return spaces >= 2 && letters >= text.length * 0.3 && letters + spaces >= text.length * 0.6;
}

function decodeBytes(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The text an encoded run stands for, or `null` when it is none (a key, a hash, an id). */
function decodeRun(run: string): string | null {
  if (run.length > MAX_RUN) return null;
  let decoded: string | null = null;
  if (run.includes('%')) {
    try {
      decoded = decodeURIComponent(run.replaceAll('+', ' '));
    } catch {
      return null;
    }
  } else if (hexOnly.test(run) && run.length % 2 === 0) {
    const bytes = new Uint8Array(run.length / 2);
    for (let i = 0; i < bytes.length; i++)
      bytes[i] = Number.parseInt(run.slice(2 * i, 2 * i + 2), 16);
    decoded = decodeBytes(bytes);
  }
  if (decoded === null || !readsAsText(decoded)) {
    let b64 = run.replace(/=+$/, '').replaceAll('-', '+').replaceAll('_', '/');
    b64 = b64.slice(0, b64.length - (b64.length % 4 === 1 ? 1 : 0));
    b64 += '='.repeat((4 - (b64.length % 4)) % 4);
    try {
      const binary = atob(b64);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      decoded = decodeBytes(bytes);
    } catch {
      return null;
    }
  }
  return decoded !== null && readsAsText(decoded) ? decoded.replace(/\s+/g, ' ').trim() : null;
}

/**
 * The encoded runs of a text that decode to text (base64, hex, percent-encoding), with their
 * offsets: at most 32 runs tried, each of at most 4,096 characters.
 * @param text - any text
 * @returns `{ start, end, decoded }` of each run that reads as text, in order
 * @internal
 */
export function findEncodedText(text: string): { start: number; end: number; decoded: string }[] {
  if (!encodedHint.test(text)) return [];
  const out: { start: number; end: number; decoded: string }[] = [];
  let tried = 0;
  encodedRun.lastIndex = 0;
  for (
    let m = encodedRun.exec(text);
    m !== null && tried < MAX_DECODED;
    m = encodedRun.exec(text)
  ) {
    tried++;
    const decoded = decodeRun(m[0]);
    if (decoded !== null) out.push({ start: m.index, end: m.index + m[0].length, decoded });
  }
  return out;
}

/**
 * The runs of a text that hide text: runs of Unicode tag characters (read as ASCII) and encoded
 * runs that decode to text ({@link findEncodedText}), with their offsets in `text`.
 * @param text - any text
 * @returns `{ start, end, text }` of each run, tag runs first
 * @internal
 */
export function findHiddenText(text: string): { start: number; end: number; text: string }[] {
  const out: { start: number; end: number; text: string }[] = [];
  if (tagHint.test(text)) {
    // (a regex of its own: `revealTags` resets `tagRun` at each call)
    const runs = new RegExp(tagRun.source, 'g');
    for (let m = runs.exec(text); m !== null; m = runs.exec(text)) {
      const flag =
        text.charCodeAt(m.index - 2) === 0xd83c && text.charCodeAt(m.index - 1) === 0xdff4;
      const read = revealTags(m[0]);
      if (!flag && read.includes(TAGGED_MARKER))
        out.push({ start: m.index, end: m.index + m[0].length, text: read });
    }
  }
  for (const run of findEncodedText(text))
    out.push({ start: run.start, end: run.end, text: run.decoded });
  return out;
}

/**
 * The text with hidden text revealed: tag characters read as their ASCII (marked), and encoded
 * runs that decode to text replaced by it (one level of encoding; line breaks kept as they are).
 * @param text - any text
 * @returns the text to normalise
 * @internal
 */
export function revealHiddenText(text: string): string {
  let out = tagHint.test(text) ? revealTags(text) : text;
  if (selectorHint.test(out)) out = revealSelectors(out);
  if (out.includes('&#')) out = out.replace(entityRun, decodeEntities);
  const runs = findEncodedText(out);
  if (runs.length === 0) return out;
  let revealed = '';
  let copied = 0;
  for (const run of runs) {
    revealed += `${out.slice(copied, run.start)} ${run.decoded} `;
    copied = run.end;
  }
  out = revealed + out.slice(copied);
  return out;
}

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
