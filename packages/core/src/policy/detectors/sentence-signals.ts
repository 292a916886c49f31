// The signals of each sentence of a text (decision 050): the patterns of `injection-signals.ts`
// on normalised sentences, and the two signals read from the raw text (a concrete target, a
// request out of place in a descriptive field).
import { findToolProtocol } from './find-tool-protocol.js';
import { groupAlternatives } from './group-alternatives.js';
import { type Signal, signals } from './injection-signals.js';
import { normalizeInjectionLines, normalizeInjectionText } from './normalize-injection-text.js';
import { forEachBoundary, rawSentence } from './sentence-boundaries.js';
import { createSignalGate, type SignalGate } from './signal-gate.js';

const ACTION_INDEX = signals.findIndex((s) => s.name === 'action');

const TODO_INLINE = 1 << signals.findIndex((s) => s.name === 'todo-inline');
const TEMPLATE_INDEX = signals.findIndex((s) => s.name === 'template-marker');

// A bracketed user turn opening a line (`[User]: ...`, the template marker's `[user]:`) ...
const userTurn = /^\W{0,3}\[(?:user|human)\]\s*:\s*/i;
// ... in a transcript of a conversation between people: the text has a bracketed turn of the
// other side too (`[Agent]:`, `[Assistant]:`, `[Support]:`), a support chat's or a call's log.
// There the user's lines are the customer's words, not a turn injected at the agent (an
// injected `[USER]:` turn follows data of another form: an email, a log, a plain transcript)
const otherTurn =
  /^\W{0,3}\[(?:agent|assistant|support|operator|rep|representative|staff|advisor|adviser|bot|host|tech|technician|helpdesk|service desk)\]\s*:/im;
// the two signals read from the raw sentence (`signalNames`): an action with a concrete target,
// and one out of place
const TARGET_BIT = 1 << signals.length;
const OUT_OF_PLACE_BIT = 1 << (signals.length + 1);

// A concrete target (where the action would go): email, URL or domain, IBAN, account number.
// An address is looked for only in a sentence with an `@`: its leading `[\w.+-]+` is tried at
// every character of every word (the 30 KB row of bench/detection.bench.ts)
const email = /[\w.+-]+@[\w-]+\.[\w.-]+/;
const otherTarget =
  /https?:\/\/|\bwww\.|\b[\w-]+\.(?:com|net|org|io|co|info|biz|xyz|ru|me)\b|\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b|\b\d{3,}[-\s]\d{3,}(?:[-\s]\d+)*\b|\b\d{9,}\b|\$\s?\d/i;
const hasTarget = (raw: string): boolean =>
  (raw.includes('@') && email.test(raw)) || otherTarget.test(raw);
// The details of a request meant for someone else: a date, a quoted value, a "please"
const concrete =
  /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? (?:\d{1,2}(?:st|nd|rd|th)?|\d{4})\b|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b|'[^'\n]{3,80}'|"[^"\n]{3,80}"|\bplease\b/i;

// Fields whose values describe something (a review, a product, a transaction's subject): an
// imperative request with a concrete target is out of place there, unlike in an email body.
const FIELDS =
  'review[\\w]*|description|comments?|bio|tweet|title|name|subject|snippet|caption|summary|reviews';
// `"review": "` just before the value's opening quote (JSON), or `- review: ` at a line start (YAML)
const jsonField = new RegExp(`"(?:${FIELDS})"\\s*:\\s*"$`, 'i');
const yamlField =
  /^\s*-?\s*(?:review[\w]*|description|comments?|bio|title|name|subject|snippet|caption|summary)\s*:\s/i;

/**
 * Whether the sentence at `start` sits in a descriptive field: the value of the field is what
 * comes after the last unescaped quote of its line (JSON strings keep `\n` escaped, so a JSON
 * field's value is on one line), or the whole line when it has none. Reads back only to that
 * quote, so long one-line JSON costs no more than short text.
 */
function outOfPlace(text: string, start: number): boolean {
  const lineStart = Math.max(text.lastIndexOf('\n', start - 1) + 1, start - 2000);
  let quote = text.lastIndexOf('"', start - 1);
  while (quote >= lineStart && text.charCodeAt(quote - 1) === 92)
    quote = quote === 0 ? -1 : text.lastIndexOf('"', quote - 1);
  if (quote < lineStart)
    return yamlField.test(text.slice(lineStart, Math.min(start, lineStart + 80)));
  const from = Math.max(lineStart, quote - 80);
  return jsonField.test(text.slice(from, quote + 1).replace(/\\"/g, "'"));
}

/** A sentence of a text: its offsets and signals. */
export interface Sentence {
  start: number;
  end: number;
  /** Its signals, a bit each (`signalNames`). */
  mask: number;
  /**
   * A request glued to the text before it without a sentence end, or opening a clause inside
   * the sentence (`request-sentences.ts`).
   */
  glued: boolean;
  /** It opens a record of a list (a YAML `- key:` item, a JSON object): see `opensRecord`. */
  record: boolean;
  /** It opens a field of a record (`  end_time: …` on its own line, `"location": …`). */
  field: boolean;
}

// A list's records are separate texts, often by separate authors (messages, reviews, emails):
// one person's "@bot please add priya@..." and the next one's "SYSTEM: backup completed" are
// not one request with a role claim. A window of sentences does not reach into the next record.
// a YAML mapping item (`- author: devon`; a bullet of prose, `- Please move ...`, is not one)
const recordStart = /^[ \t]*- [\w-]{1,30}: |^[\s"\]},]*[{[]/;
function opensRecord(text: string, start: number, raw: string): boolean {
  const c = raw.charCodeAt(0);
  // only a `- key:` at a line's start, a `{` or `[` before the first word
  if (
    c !== 32 &&
    c !== 9 &&
    c !== 45 &&
    c !== 34 &&
    c !== 44 &&
    c !== 123 &&
    c !== 91 &&
    c !== 125 &&
    c !== 93
  )
    return false;
  if (!recordStart.test(raw)) return false;
  return raw.trimStart().charCodeAt(0) !== 45 || start === 0 || text.charCodeAt(start - 1) === 10;
}

// A record's next field is other data than the text an injection was put in (an event's
// `end_time:` and `participants:` after its description): a snake_case key at a line's start
// (`Subject:` or `Note:` in prose is not one), or a JSON key (`,"open_claims` once the
// sentence ends at its quote, or `"location": `).
const yamlKey = /^[ \t]*(?:- )?[a-z_][a-z0-9_]{0,30}: /;
const jsonKey = /^\s*,\s*"[A-Za-z_][\w-]{0,30}"?\s*(?::|$)|^[\s,]*"[A-Za-z_][\w-]{0,30}"\s*: /;
function opensField(text: string, start: number, raw: string): boolean {
  if (jsonKey.test(raw)) return true;
  return yamlKey.test(raw) && (start === 0 || text.charCodeAt(start - 1) === 10);
}

/** `/[A-Za-z]{3}/.test(text.slice(start, end))` without the slice's regex call. */
function hasAsciiWord(text: string, start: number, end: number): boolean {
  let run = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i) | 32;
    run = c >= 97 && c <= 122 ? run + 1 : 0;
    if (run === 3) return true;
  }
  return false;
}
const hasWord = /\p{L}{3}/u;
// (a sentence of tag characters alone is hidden text: `normalize-injection-text.ts`)
const markerHint = /[<%#[｜\uDB40]/;

/**
 * The signals' gate, built on first use: building it at import would cost every process that
 * imports core (rewriting the patterns at import once added ~10 ms, bench/import, paired).
 */
let gate: SignalGate | undefined;
// the signals' patterns as each sentence is tested with them (`groupAlternatives`)
let tests: RegExp[] | undefined;

/** The signals of one normalised sentence, pattern by pattern. */
function maskOf(normalised: string): number {
  let mask = 0;
  for (let i = 0; i < signals.length; i++)
    if ((signals[i] as Signal).pattern.test(normalised)) mask |= 1 << i;
  return mask;
}

const nonAscii = /[^\x00-\x7f]/;

/** `raws` at `order[from..to)`, joined by line breaks. */
function linesOf(
  raws: readonly string[],
  order: readonly number[],
  from: number,
  to: number,
): string {
  let joined = raws[order[from] as number] as string;
  for (let i = from + 1; i < to; i++) joined += `\n${raws[order[i] as number]}`;
  return joined;
}

/**
 * The sentences of a text with their signals: each distinct sentence normalised and matched once,
 * all of them at once, one per line.
 * @param text - the text (at most the detector's limit)
 * @returns its sentences with words, in order
 * @internal
 */
export function sentenceSignals(text: string): Sentence[] {
  const out: Sentence[] = [];
  const raws: string[] = [];
  // Each distinct sentence is read once: tool outputs repeat their keys and values (a list of
  // transactions, an inbox), and a 30 KB output often has a tenth as many distinct sentences
  // (bench/detection.bench.ts, "one new 30 KB output")
  const distinct = new Map<string, number>();
  const readings: number[] = [];
  let start = 0;
  const push = (end: number): void => {
    if (end <= start) return;
    const raw = rawSentence(text, start, end);
    // a line without a word of three letters (ids, amounts, dates, JSON punctuation) carries no
    // signal but a template marker
    if (!hasAsciiWord(text, start, end) && !hasWord.test(raw) && !markerHint.test(raw)) return;
    let reading = distinct.get(raw);
    if (reading === undefined) {
      reading = raws.length;
      distinct.set(raw, reading);
      raws.push(raw);
    }
    readings.push(reading);
    out.push({
      start,
      end,
      mask: 0,
      glued: false,
      record: opensRecord(text, start, raw),
      field: opensField(text, start, raw),
    });
  };
  forEachBoundary(text, (at, length) => {
    push(at);
    start = at + length;
  });
  push(text.length);
  if (out.length === 0) return out;
  // All sentences normalised and matched at once, one per line: one normalisation and one scan
  // per pattern instead of one per sentence (bench/detection.bench.ts, "one new 30 KB output")
  // ASCII sentences apart from the others: one non-ASCII character would send them all through
  // the slower Unicode normalisation. `order[line]` is the distinct sentence on that line.
  const order: number[] = [];
  const others: number[] = [];
  for (let k = 0; k < raws.length; k++) (nonAscii.test(raws[k] as string) ? others : order).push(k);
  const asciiCount = order.length;
  for (const k of others) order.push(k);
  const pieces: string[] = [];
  if (asciiCount > 0) pieces.push(normalizeInjectionLines(linesOf(raws, order, 0, asciiCount)));
  if (others.length > 0)
    pieces.push(normalizeInjectionLines(linesOf(raws, order, asciiCount, order.length)));
  const lines = pieces.join('\n');
  const masks = new Array<number>(raws.length).fill(0);
  const starts: number[] = [0];
  for (let p = lines.indexOf('\n'); p >= 0; p = lines.indexOf('\n', p + 1)) starts.push(p + 1);
  if (starts.length === raws.length) {
    starts.push(lines.length + 1);
    // each line tested only for the patterns whose words it holds (`createSignalGate`)
    gate ??= createSignalGate(signals.map((signal) => signal.pattern));
    tests ??= signals.map((signal) => groupAlternatives(signal.pattern));
    const candidates = gate.candidates(lines, raws.length);
    for (let line = 0; line < raws.length; line++) {
      let candidate = candidates[line] as number;
      if (candidate === 0) continue;
      const sentence = lines.slice(starts[line], (starts[line + 1] as number) - 1);
      let mask = 0;
      for (let i = 0; candidate !== 0; i++, candidate >>>= 1)
        if ((candidate & 1) !== 0 && (tests[i] as RegExp).test(sentence)) mask |= 1 << i;
      masks[order[line] as number] = mask;
    }
  } else {
    // a normalisation that made or lost a line break (not expected): sentence by sentence
    for (let k = 0; k < raws.length; k++)
      masks[k] = maskOf(normalizeInjectionText(raws[k] as string));
  }
  // a transcript's user lines: the template marker only when the rest of the line has one
  if (otherTurn.test(text)) {
    const bit = 1 << TEMPLATE_INDEX;
    const pattern = (signals[TEMPLATE_INDEX] as Signal).pattern;
    for (let k = 0; k < raws.length; k++) {
      const raw = raws[k] as string;
      const mask = masks[k] as number;
      if ((mask & bit) === 0 || !userTurn.test(raw)) continue;
      if (!pattern.test(normalizeInjectionText(raw.replace(userTurn, '')))) masks[k] = mask & ~bit;
    }
  }
  // whether each distinct sentence names a target (0: not read yet, 1: no, 2: yes)
  const targets = new Uint8Array(raws.length);
  for (let k = 0; k < out.length; k++) {
    const sentence = out[k] as Sentence;
    const reading = readings[k] as number;
    sentence.mask = masks[reading] as number;
    if ((sentence.mask & (1 << ACTION_INDEX)) !== 0 && targets[reading] === 0)
      targets[reading] = hasTarget(raws[reading] as string) ? 2 : 1;
    // an action with a concrete target weighs more than a bare imperative
    if ((sentence.mask & (1 << ACTION_INDEX)) !== 0 && targets[reading] === 2) {
      sentence.mask |= TARGET_BIT;
      if (outOfPlace(text, sentence.start)) sentence.mask |= OUT_OF_PLACE_BIT;
    } else if ((sentence.mask & TODO_INLINE) !== 0 && !concrete.test(raws[reading] as string)) {
      // a to-do glued into a review or a plan ("helpful staff TODO: add photos later") is
      // mostly its author's own note; one that spells out what, when and for whom (a date, a
      // quoted title, a "please") is a request put there for someone else
      sentence.mask &= ~TODO_INLINE;
    }
  }
  // a tool call written into the data as the protocol's next step: a template marker, as a
  // serialised `"tool_calls"` is, over the whole call (its arguments are the attacker's values)
  for (const [from, to] of findToolProtocol(text))
    for (const sentence of out)
      if (sentence.start < to && sentence.end > from) sentence.mask |= 1 << TEMPLATE_INDEX;
  return out;
}
