// What the user's own words say about a tool call's target (decision 050, session 11): whether
// they ask for a kind of action at all (a verb, not a noun: "summarise the emails" asks for no
// email), and whether they name another target of the call's kind (an address, a link, an
// account) or point at a source the call's target did not come from ("using the bank details
// in the vendor registry"), so that a second payee or recipient requested in the data is not
// taken for the user's.
import type { EventStore } from '../runtime/event-store.js';
import type { PolicyEvent } from '../runtime/policy-event.js';
import { textsOf } from '../runtime/policy-values.js';
import { findRequestSentences } from './detect-prompt-injection.js';
import type { ValueSource } from './find-value-sources.js';
import { valuesIn } from './find-value-sources.js';
import { sentenceSignals } from './sentence-signals.js';
import { canonicalValue, valuePattern } from './value-pattern.js';

// A kind's word used as a noun: after a determiner, a possessive or a preposition, with at most
// one word between ("the emails", "my DoorDash order", "the r/homelab post") ...
const nounLead =
  /(?:^|[^\w'])(?:the|my|our|your|his|her|their|its|this|that|these|those|any|all|some|every|each|no|new|latest|last|recent|unread|previous|next|old|other|of|about|for|in|from|with|on|[a-z]+'s)\s+(?:[\w'/.-]+\s+)?$/;
// ... in a clause that asks to read ("summarise the emails", "what's the status of my order",
// "open the post"), not one that acts on it ("adjust my rent payment")
const readLead =
  /(?:^|[.!?;:\n]|\band\b)[^.!?;:\n]*?\b(?:summari[sz]e|show|list|read|check|find|search|look|tell me|what|what's|which|when|where|who|how|status|review|open|see|view|any)\b[^.!?;:\n]*$/;
// ... unless a light verb asks for it ("make the payment", "do the transfer", "process my order")
const lightVerb =
  /\b(?:make|do|send|process|complete|execute|schedule|set up|initiate|approve|submit|issue|place|write|draft|compose|create|prepare|file)\s+(?:the|my|our|your|this|that|these|those|a|an)\s+(?:[\w'/.-]+\s+)?$/;

const globalPatterns = new WeakMap<RegExp, RegExp>();

/**
 * Whether a user's (lower-cased) text asks for a kind of action: one of the kind's words used
 * as a verb or after a light verb, not as a noun ("summarise the emails about the budget",
 * "the status of my order").
 * @param text - the user's text, lower-cased
 * @param pattern - the kind's words (not global)
 * @internal
 */
export function asksForKind(text: string, pattern: RegExp): boolean {
  let global = globalPatterns.get(pattern);
  if (global === undefined) {
    global = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`);
    globalPatterns.set(pattern, global);
  }
  global.lastIndex = 0;
  for (let m = global.exec(text); m !== null; m = global.exec(text)) {
    if (m[0].length === 0) global.lastIndex++;
    const before = text.slice(Math.max(0, m.index - 48), m.index);
    const clause = text.slice(Math.max(0, m.index - 160), m.index);
    if (!nounLead.test(before) || !readLead.test(clause) || lightVerb.test(before)) return true;
  }
  return false;
}

// The kinds of value that name a target of their own
const targetShapes = new Set<ValueSource['kind']>(['email', 'url', 'account']);
const shapeOf = (value: string, kind: ValueSource['kind']): string =>
  kind === 'account'
    ? /^[a-z]{2}\d{2}/i.test(value.replace(/\s/g, ''))
      ? 'iban'
      : 'number'
    : kind;
// the same target: a phone number with or without its country code or trunk 0 ("087 765 4321"
// and "+353 87 765 4321") is compared by its last nine digits
const sameTarget = (a: string, b: string): boolean => {
  const x = canonicalValue(a).canonical;
  const y = canonicalValue(b).canonical;
  if (x === y) return true;
  return /^\d{9,}$/.test(x) && /^\d{9,}$/.test(y) && x.slice(-9) === y.slice(-9);
};

// A source the user points at: "in the vendor registry", "from the payables folder", "using the
// attendee list". Its words, after the determiner, must all be found in the output the target
// came from (its tool's name, its call's arguments, its keys), generic ones ("list") aside.
const pointer =
  /\b(?:in|from|on|using|per|according to)\s+(?:the|my|our|your|her|his|their|its|this|that)\s+((?:[\w'-]+\s+){0,2}(?:registry|register|list|records?|files?|sheet|spreadsheet|profile|card|chat|thread|invoice|folder|drive|directory|contacts|database|portal|ledger|table|ticket|channel|inbox|calendar|note|notes|document|page))\b/g;
// A person the user names inside a sentence: a capitalised word after another word ("reply to
// Dana's email", "tell Priya"), not a sentence's first word
const personName = /(?<=[a-z,]\s)([A-Z][a-z]{2,})(?:'s)?\b/g;

const genericWords = new Set(['list', 'file', 'files', 'record', 'records', 'document', 'page']);

const wordsOf = (text: string): string =>
  ` ${text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')} `;

// The words that identify a tool output: its tool's name, its call's arguments and its keys
function identityOf(store: EventStore, position: number): string {
  const output = store.probe(position);
  let text = output.toolName ?? '';
  for (let at = position - 1; at >= 0 && at >= position - 8; at--) {
    const event = store.probe(at);
    if (event.kind !== 'ToolCall' || event.toolName !== output.toolName) continue;
    const fn = event.data.function as Record<string, unknown> | undefined;
    text += ` ${typeof fn?.arguments === 'string' ? fn.arguments : ''}`;
    break;
  }
  for (const piece of textsOf(output, undefined)) {
    for (const key of piece.text.matchAll(
      /(?:^|\n|[{,]\s*)\s*(?:- )?"?([A-Za-z_][\w ]{0,30})"?\s*:/g,
    ))
      text += ` ${key[1]}`;
  }
  return wordsOf(text);
}

const matchesPointer = (identity: string, words: string[]): boolean =>
  words.every(
    (word) =>
      genericWords.has(word) ||
      identity.includes(` ${word.length > 4 ? word.replace(/(?:'s|s)$/, '') : word}`),
  );

/**
 * Whether the user's request names another target than the call's, or points at a source its
 * target did not come from: a target of the call (an address, link, account or phone number)
 * first came from a tool output, and the user gave another value of that shape and none of the
 * call's ("email the sheet to ingrid@…" and the call goes to an address the data asked for), or
 * pointed at a source ("using the bank details in the vendor registry") that another output
 * read before the call matches and the target's output does not.
 * @param store - the events of the trace
 * @param call - a tool-call event of that store
 * @param sources - the call's value sources
 * @param userTexts - the user's messages before the call, as written
 * @internal
 */
export function pointsElsewhere(
  store: EventStore,
  call: PolicyEvent,
  sources: readonly ValueSource[],
  userTexts: readonly string[],
): boolean {
  const targets = sources.filter((s) => s.role === 'tool' && targetShapes.has(s.kind));
  if (targets.length === 0) return false;
  // a value the user gave of the target's shape, that the call does not carry
  const given = sources.filter((s) => s.role === 'user' || s.role === 'system');
  for (const text of userTexts) {
    for (const value of valuesIn(text)) {
      if (given.some((s) => sameTarget(s.value, value.value))) continue;
      const shape = shapeOf(value.value, value.kind);
      if (
        targets.some((t) => shapeOf(t.value, t.kind) === shape && !sameTarget(t.value, value.value))
      )
        return true;
    }
  }
  // the person the user named ("reply to Dana's email"): a value of the target's shape in the
  // data that carries the name (dana.kim@…) is the user's target, and the call's is another
  const names = new Set<string>();
  for (const text of userTexts)
    for (const m of text.matchAll(personName)) names.add((m[1] as string).toLowerCase());
  if (names.size > 0) {
    for (const t of targets) {
      const canonical = canonicalValue(t.value).canonical;
      const shape = shapeOf(t.value, t.kind);
      if ([...names].some((name) => canonical.includes(name))) continue;
      for (let at = 0; at < call.position; at++) {
        const event = store.probe(at);
        if (event.kind !== 'ToolOutput') continue;
        for (const piece of textsOf(event, undefined)) {
          for (const value of valuesIn(piece.text)) {
            if (shapeOf(value.value, value.kind) !== shape || sameTarget(value.value, t.value))
              continue;
            const other = canonicalValue(value.value).canonical;
            if ([...names].some((name) => other.includes(name))) return true;
          }
        }
      }
    }
  }
  // the record the target came from carries a target of its own outside any request (an
  // invoice's `iban:`, "Our bank: GB33 …") and asks for this one besides: a second payee
  if (targets.some((t) => secondInRecord(store, t))) return true;
  // a source the user pointed at, read before the call, that the target did not come from
  for (const text of userTexts) {
    for (const m of text.toLowerCase().matchAll(pointer)) {
      const words = (m[1] as string).trim().split(/\s+/);
      const pointedRead = (): boolean => {
        for (let at = 0; at < call.position; at++) {
          const event = store.probe(at);
          if (event.kind === 'ToolOutput' && matchesPointer(identityOf(store, at), words))
            return true;
        }
        return false;
      };
      if (
        targets.some((t) => !matchesPointer(identityOf(store, t.position), words)) &&
        pointedRead()
      )
        return true;
    }
  }
  return false;
}

// a field's label right before a value: `iban: `, `"email": "`, `Our bank: `
const labelled = /(?:^|[\s"{,])[A-Za-z][\w ]{1,28}"?\s*:\s*["']?$/;

/**
 * Whether the target's value, in the output it came from, is asked for in a request sentence
 * while the same record (a YAML item, a JSON object, the whole text when it has none) holds
 * exactly one other value of its shape outside every request, in a field of its own: the
 * record's own target and a second one.
 */
function secondInRecord(store: EventStore, target: ValueSource): boolean {
  const shape = shapeOf(target.value, target.kind);
  for (const piece of textsOf(store.probe(target.position), undefined)) {
    const text = piece.text;
    const lower = text.toLowerCase();
    const at = valuePattern(target.value).exec(lower)?.index;
    if (at === undefined) continue;
    const requests = findRequestSentences(text);
    const inRequest = (i: number): boolean => requests.some(([s, e]) => s <= i && i < e);
    if (!inRequest(at)) return false;
    // the record around the target: from the last record opened at or before it to the next
    let from = 0;
    let to = text.length;
    for (const sentence of sentenceSignals(text)) {
      if (!sentence.record) continue;
      if (sentence.start <= at) from = sentence.start;
      else {
        to = sentence.start;
        break;
      }
    }
    const record = text.slice(from, to);
    // exactly one: a list of several (a guest list) is no record with a target of its own
    const own = new Set<string>();
    for (const value of valuesIn(record)) {
      if (shapeOf(value.value, value.kind) !== shape || sameTarget(value.value, target.value))
        continue;
      const where = valuePattern(value.value).exec(record.toLowerCase())?.index;
      // the record's own target stands in a field of its own ("iban: …", "Our bank: …", "From: …")
      if (where === undefined || inRequest(from + where)) continue;
      if (labelled.test(record.slice(Math.max(0, where - 32), where)))
        own.add(canonicalValue(value.value).canonical);
    }
    if (own.size === 1) return true;
  }
  return false;
}
