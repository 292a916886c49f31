// Where a tool output's sentences start and end (decision 050): lines, sentence ends, JSON
// string ends and chat-template tags, with wrapped lines read as one sentence.
import { isSpace } from '../../text/is-space.js';

// Sentences: lines (also JSON-escaped `\n`) and sentence ends; offsets into the original text
// and the ends of JSON strings (`"` before `,` `}` `]` `:`), so one field's value is not read
// with the next field. As the regex
//   /\\n|\r?\n|(?<=[.!?])\s+(?=\S)|(?<=\|>)|(?=<\|)|(?<!\\)"(?=\s*[,}\]:])/g
// would find them with `matchAll`, in one pass over the characters (the regex's lookbehinds made
// it the detector's slowest step).

// A line this long that stops mid-sentence and goes on, indented or not, on the next line was
// wrapped, not ended: YAML dumps fold strings at 80 columns and indent the rest (AgentDojo's
// tool outputs), mail and plain-text files wrap at 72. Read as one sentence, "Ignore your previous / instructions"
// is an override again. Shorter lines are lists, table rows, addresses: each its own.
const WRAP_WIDTH = 50;
// ... and a shorter line was folded too when its next word would not have fitted: a writer that
// folds at 72 or 80 columns breaks early before a long word ("so open" + break + a 41-character
// link). Not below this length (list items, short labels).
const FOLD_WIDTH = 72;
const SHORT_FOLD = 24;
// the next line starts a list item, a `key:` or a JSON `"key":` of its own: no continuation
const ownLine = /^[ \t]*(?:[-*•]\s|\d+[.)]\s|[\w-]{1,30}:\s|"[^"\n]{1,40}"\s*:|$)/;
// ... but a `word:` indented deeper than the line its run of folded lines began with continues a
// YAML fold ("… Approved by" + break + "    management: the register …"): a key of the mapping
// is indented no deeper than the key that began the run
const yamlKeyLine = /^[ \t]*[\w-]{1,30}:\s/;
const indentOf = (text: string, from: number): number => {
  let q = from;
  while (q < text.length && (text.charCodeAt(q) === 32 || text.charCodeAt(q) === 9)) q++;
  return q - from;
};
// the column of a line's key: its indentation, and a list item's `- ` ("- from: x": 2)
const keyColumnOf = (text: string, from: number): number => {
  let q = from + indentOf(text, from);
  while (text.charCodeAt(q) === 45 && text.charCodeAt(q + 1) === 32) q += 2 + indentOf(text, q + 2);
  return q - from;
};

const isLetter = (code: number): boolean =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90);

/**
 * Whether the line break at `at` (a wrapped line's end) continues the sentence: the line from
 * `lineStart` is long, does not end a sentence or a label, and the next line goes on with a word.
 */
function isWrap(
  text: string,
  lineStart: number,
  at: number,
  next: number,
  runIndent: number,
): boolean {
  // trailing spaces are no end of their own (a flowed mail's soft break ends in a space)
  let end = at;
  while (end > lineStart && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 9))
    end--;
  const before = text.charCodeAt(end - 1);
  // a YAML double-quoted string escapes its own folds: `...were\` + break + `  \ damaged`
  if (before === 92 && end === at) return true;
  // a word hyphenated across the break (PDF text, justified mail): "assis-" + break + "tants"
  if (before === 45 && end === at && isLetter(text.charCodeAt(end - 2))) {
    const first = text.charCodeAt(next + indentOf(text, next));
    if (first >= 97 && first <= 122) return true;
  }
  if (end - lineStart < SHORT_FOLD) return false;
  // . ! ? : ; end a line of their own, and so do brackets (pretty-printed JSON, code); a colon
  // does not when a YAML fold goes on, deeper than the run's key ("Approved by management:" +
  // break + "  refill_history.csv shared with …")
  if (before === 46 || before === 33 || before === 63 || before === 59) return false;
  if (before === 58 && !(end - lineStart >= WRAP_WIDTH && foldGoesOn(text, next, runIndent)))
    return false;
  if (before === 123 || before === 125 || before === 91 || before === 93) return false;
  let q = next;
  while (q < text.length && (text.charCodeAt(q) === 32 || text.charCodeAt(q) === 9)) q++;
  if (end - lineStart < WRAP_WIDTH) {
    let word = q;
    while (word < text.length && word - q <= FOLD_WIDTH && !isSpace(text.charCodeAt(word))) word++;
    if (end - lineStart + 1 + (word - q) <= FOLD_WIDTH) return false;
  }
  const code = text.charCodeAt(q);
  const lower = (code >= 97 && code <= 122) || (code >= 0xdf && code <= 0xff);
  // a capital, a digit or an opening quote goes on an indented line only (a YAML fold: "the
  // Hotel / Riverbend Lodge", "from / 'security@...'"); unindented, it starts a line of its
  // own ("... reviews say / Breizh Café")
  const indented = q > next;
  const opener =
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 39 ||
    code === 34 ||
    code === 40 ||
    code === 36 ||
    code === 0x2018 ||
    code === 0x201c;
  if (!lower && !(indented && opener)) return false;
  const head = text.slice(next, Math.min(text.length, next + 40));
  if (!ownLine.test(head)) return true;
  return yamlKeyLine.test(head) && q - next > runIndent;
}

// the next line is indented deeper than the run's first line and goes on with a word, a number
// or a quote, with no key, list item or JSON key of its own
function foldGoesOn(text: string, next: number, runIndent: number): boolean {
  const indent = indentOf(text, next);
  const code = text.charCodeAt(next + indent);
  const goesOn =
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 34 ||
    code === 39 ||
    code === 95;
  if (indent <= runIndent || !goesOn) return false;
  return !ownLine.test(text.slice(next, Math.min(text.length, next + 40)));
}

// the characters at which, or just after which, a boundary may start (see `forEachBoundary`)
const maybeBoundary = /[\\\r\n"<.!?>]/g;

/**
 * Calls `found(index, length)` for each sentence boundary, in order.
 * @param text - the text to cut
 * @param found - called with each boundary's offset and length (0 for a zero-width one)
 * @internal
 */
export function forEachBoundary(text: string, found: (at: number, length: number) => void): void {
  const n = text.length;
  let p = 0;
  let lineStart = 0;
  // the key column of the line the current run of folded lines began with
  let runIndent = keyColumnOf(text, 0);
  while (p < n) {
    const c = text.charCodeAt(p);
    // Only a backslash, a line break, `"`, `<`, and the character after `.`, `!`, `?` or `>` can
    // start a boundary; every other character cuts nothing, so the scan jumps to the next of
    // those at once (a regex's scan of one class is several times faster than this loop's
    // tests on each character: the 30 KB row of bench/detection.bench.ts)
    const previous = text.charCodeAt(p - 1);
    if (
      c !== 92 &&
      c !== 13 &&
      c !== 10 &&
      c !== 34 &&
      c !== 60 &&
      c !== 46 &&
      c !== 33 &&
      c !== 63 &&
      c !== 62 &&
      previous !== 46 &&
      previous !== 33 &&
      previous !== 63 &&
      previous !== 62
    ) {
      maybeBoundary.lastIndex = p + 1;
      if (!maybeBoundary.test(text)) break;
      p = maybeBoundary.lastIndex - 1;
      continue;
    }
    if (c === 92 && text.charCodeAt(p + 1) === 110) {
      found(p, 2);
      p += 2;
      continue;
    }
    if (c === 13 && text.charCodeAt(p + 1) === 10) {
      if (!isWrap(text, lineStart, p, p + 2, runIndent)) {
        found(p, 2);
        runIndent = keyColumnOf(text, p + 2);
      }
      p += 2;
      lineStart = p;
      continue;
    }
    if (c === 10) {
      if (!isWrap(text, lineStart, p, p + 1, runIndent)) {
        found(p, 1);
        runIndent = keyColumnOf(text, p + 1);
      }
      p += 1;
      lineStart = p;
      continue;
    }
    if (p > 0 && isSpace(c)) {
      const before = text.charCodeAt(p - 1);
      if (before === 46 || before === 33 || before === 63) {
        let end = p + 1;
        while (end < n && isSpace(text.charCodeAt(end))) end++;
        if (end < n) {
          found(p, end - p);
          p = end;
          continue;
        }
      }
    }
    if (p >= 2 && text.charCodeAt(p - 2) === 124 && text.charCodeAt(p - 1) === 62) {
      found(p, 0);
      p += 1;
      continue;
    }
    if (c === 60 && text.charCodeAt(p + 1) === 124) {
      found(p, 0);
      p += 1;
      continue;
    }
    if (c === 34 && (p === 0 || text.charCodeAt(p - 1) !== 92)) {
      let next = p + 1;
      while (next < n && isSpace(text.charCodeAt(next))) next++;
      const after = text.charCodeAt(next);
      if (after === 44 || after === 125 || after === 93 || after === 58) {
        found(p, 1);
        p += 1;
        continue;
      }
    }
    p++;
  }
  // a zero-width boundary at the very end (after a final "|>")
  if (n >= 2 && text.charCodeAt(n - 2) === 124 && text.charCodeAt(n - 1) === 62) found(n, 0);
}

/**
 * A sentence's text on one line, as its writer meant it: a wrapped one's breaks read as spaces
 * (a YAML double-quoted fold, `\` + break + `\ `, as one space) and `\uXXXX` escapes as their
 * characters (Python's `json.dumps` and `yaml.safe_dump` escape all non-ASCII text by default,
 * which would hide a Japanese note from every signal).
 * @internal
 */
export function rawSentence(text: string, start: number, end: number): string {
  let raw = text.slice(start, end);
  if (raw.includes('\n'))
    raw = raw
      // a word hyphenated across a line break reads as the word ("dis-" + break + "regard")
      .replace(hyphenatedBreak, '$1$2')
      .replace(/\\\r?\n[ \t]*(?:\\(?= ))?/g, ' ')
      .replace(/[\r\n]/g, ' ');
  if (raw.includes('\\u')) raw = raw.replace(unicodeEscape, decodeEscape);
  return raw;
}
const hyphenatedBreak = /([A-Za-z])-\r?\n[ \t]*([a-z])/g;
const unicodeEscape = /\\u([0-9a-fA-F]{4})/g;
const decodeEscape = (_: string, hex: string): string =>
  String.fromCharCode(Number.parseInt(hex, 16));
