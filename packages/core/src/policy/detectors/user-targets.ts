// What the user's own words say about a tool call's target (decision 050, session 11): whether
// they ask for a kind of action at all (a verb, not a noun: "summarise the emails" asks for no
// email), and whether they name another target of the call's kind (an address, a link, an
// account) or point at a source the call's target did not come from ("using the bank details
// in the vendor registry"), so that a second payee or recipient requested in the data is not
// taken for the user's.
import type { EventStore } from '../runtime/event-store.js';
import type { PolicyEvent } from '../runtime/policy-event.js';
import { textsOf } from '../runtime/policy-values.js';
import { createTextCache } from './create-text-cache.js';
import {
  findInjectedRanges,
  findRecordStarts,
  findRequestSentences,
} from './detect-prompt-injection.js';
import type { ValueSource } from './find-value-sources.js';
import { valuesIn } from './find-value-sources.js';
import {
  argumentsOf,
  identifiedByUser,
  namesOf,
  pointedOutputs,
  pointer,
  readFromPointer,
} from './user-sources.js';
import { base64Form, canonicalValue, valuePattern } from './value-pattern.js';

// A policy asks whether the user requested every call of the trace at every proposed call, on a
// new store each time: what is read from the texts is cached by text (bench/detection.bench.ts)
const valuesCache = createTextCache<{ value: string; kind: ValueSource['kind'] }[]>(1024);
function cachedValuesIn(text: string): { value: string; kind: ValueSource['kind'] }[] {
  let known = valuesCache.get(text);
  if (known === undefined) {
    known = valuesIn(text);
    valuesCache.set(text, known);
  }
  return known;
}
// A kind's word used as a noun: after a determiner, a possessive or a preposition, with at most
// one word between ("the emails", "my DoorDash order", "the r/homelab post") ...
const nounLead =
  /(?:^|[^\w'])(?:the|my|our|your|his|her|their|its|this|that|these|those|any|all|some|every|each|no|new|latest|last|recent|unread|previous|next|old|other|of|about|for|in|from|with|on|[a-z]+'s)\s+(?:[\w'/.-]+\s+)?$/;
// ... in a clause that asks to read ("summarise the emails", "what's the status of my order",
// "open the post", "anything urgent in my email?"), not one that acts on it ("adjust my rent
// payment")
const readLead =
  /(?:^|[.!?;:\n]|\band\b)[^.!?;:\n]*?\b(?:summari[sz]e|show|list|read|check|find|search|look|tell me|what|what's|which|when|where|who|how|status|review|open|see|view|any|anything|is there|are there|do i have|did i (?:get|receive))\b[^.!?;:\n]*$/;
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
const sameCanonical = (x: string, y: string): boolean =>
  x === y || (/^\d{9,}$/.test(x) && /^\d{9,}$/.test(y) && x.slice(-9) === y.slice(-9));
const sameTarget = (a: string, b: string): boolean =>
  sameCanonical(canonicalValue(a).canonical, canonicalValue(b).canonical);

/**
 * Whether the user's request names another target than the call's, or points at a source its
 * target did not come from: a target of the call (an address, link, account or phone number)
 * first came from a tool output, and the user gave another value of that shape and none of the
 * call's ("email the sheet to ingrid@…" and the call goes to an address the data asked for), or
 * pointed at a source ("using the bank details in the vendor registry") that another output
 * read before the call matches and the target's output does not.
 * @param store - the events of the trace
 * @param call - a tool-call event of that store
 * @param userTexts - the user's messages before the call, as written
 * @param handedOver - whether the user handed the target over to the data ("open the link in
 *   the email", "send it back as they ask"); asked only when it decides
 * @internal
 */
export function pointsElsewhere(
  store: EventStore,
  call: PolicyEvent,
  userTexts: readonly string[],
  handedOver: () => boolean = () => false,
): boolean {
  // a second target is one the data asks for: without such a request, nothing to look into
  if (!dataAsksForTarget(store, call)) return false;
  // the call's targets whose first source is a tool output (`value_sources`, for these values
  // only: a policy asks this of every call of the trace, bench/detection.bench.ts), and those
  // the user gave
  const lowerUser = userTexts.map((text) => text.toLowerCase());
  const targets: Target[] = [];
  const given: string[] = [];
  for (const value of targetValuesOf(call)) {
    const pattern = valuePattern(value);
    if (lowerUser.some((text) => pattern.test(text))) {
      given.push(value);
      continue;
    }
    const position = firstOutputWith(store, call, value);
    if (position >= 0) targets.push({ value, kind: canonicalValue(value).shape, position });
  }
  if (targets.length === 0) return false;
  // a value the user gave of the target's shape, that the call does not carry
  for (const text of userTexts) {
    for (const value of cachedValuesIn(text)) {
      if (given.some((g) => sameTarget(g, value.value))) continue;
      const shape = shapeOf(value.value, value.kind);
      if (
        targets.some(
          (t) =>
            shapeOf(t.value, t.kind) === shape &&
            !sameTarget(t.value, value.value) &&
            !derivedFile(store, t, value.value),
        )
      )
        return true;
    }
  }
  // the user handed the target over to the data ("open the link in the email", "send it back
  // as they ask"): the data's target is the user's, unless the user gave one of their own (above)
  if (handedOver()) return false;
  // the person the user named ("reply to Dana's email"): a value of the target's shape in the
  // output the target came from that carries the name (dana.kim@…) is the user's target, and
  // the call's is another
  const names: string[] = [];
  for (const text of userTexts) names.push(...namesOf(text));
  if (names.length > 0) {
    for (const t of targets) {
      const canonical = canonicalValue(t.value).canonical;
      const shape = shapeOf(t.value, t.kind);
      if (names.some((name) => canonical.includes(name))) continue;
      for (const piece of textsOf(store.probe(t.position), undefined)) {
        for (const value of cachedValuesIn(piece.text)) {
          if (shapeOf(value.value, value.kind) !== shape || sameTarget(value.value, t.value))
            continue;
          const other = canonicalValue(value.value).canonical;
          if (names.some((name) => other.includes(name))) return true;
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
      const pointed = pointedOutputs(store, words, call.position);
      if (
        pointed.length > 0 &&
        targets.some((t) => !readFromPointer(store, t.position, words, pointed))
      )
        return true;
    }
  }
  // the user gave no target of the call's shape and did not identify the data the target came
  // from, where a request sentence asks for it: a target only that request gave is not the
  // user's ("book the cheapest flight to Lisbon", and a fare note asks to add an event with
  // its link to the calendar)
  return targets.every(
    (t) =>
      askedIn(store, call, t) &&
      !inOwnField(store, t) &&
      !identifiedByUser(store, t.position, userTexts),
  );
}

// A file the output of a call on the user's file gave (a signed or converted copy of it:
// `sign_document(contrat.pdf)` -> `contrat_signed.pdf`) is the user's file, not another one
function derivedFile(store: EventStore, target: Target, userValue: string): boolean {
  return (
    target.kind === 'file' &&
    argumentsOf(store, target.position).toLowerCase().includes(userValue.toLowerCase())
  );
}

// Whether the target stands in a labelled field of its own somewhere in its output, outside
// every request (a tenant's `email: …`, a bill's `IBAN: …`): the record's own data, not only
// what a request in it asks for
function inOwnField(store: EventStore, target: Target): boolean {
  const pattern = valuePattern(target.value);
  const global = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`);
  for (const piece of textsOf(store.probe(target.position), undefined)) {
    const text = piece.text;
    const requests = findRequestSentences(text);
    for (const m of text.toLowerCase().matchAll(global)) {
      const at = m.index;
      if (requests.some(([s, e]) => s <= at && at < e)) continue;
      if (labelled.test(text.slice(Math.max(0, at - 40), at))) return true;
    }
  }
  return false;
}

// Whether the output a target came from names it in a request sentence
function askedIn(store: EventStore, call: PolicyEvent, target: Target): boolean {
  const output = outputsBefore(store, call.position).find((o) => o.position === target.position);
  if (output === undefined) return false;
  output.asked ??= output.texts.flatMap(requestedTargets);
  const own = canonicalValue(target.value).canonical;
  return output.asked.some((asked) => sameCanonical(asked, own));
}

// The targets (addresses, links, accounts) that a text's request sentences name, canonical,
// a fold's break read as a space; kept with the text's request ranges (cached with its analysis,
// so no long text is hashed again)
const requestedCache = new WeakMap<object, string[]>();
function requestedTargets(text: string): string[] {
  const requests = findRequestSentences(text);
  if (requests.length === 0) return [];
  let known = requestedCache.get(requests);
  if (known === undefined) {
    known = [];
    for (const [start, end] of requests)
      for (const value of valuesIn(text.slice(start, end).replace(/\s+/g, ' ')))
        if (targetShapes.has(value.kind)) known.push(canonicalValue(value.value).canonical);
    requestedCache.set(requests, known);
  }
  return known;
}

// The call's values that name a target: addresses, links, account and phone numbers, found in
// its arguments' text or as whole short strings ("nl02abna0123456789")
function targetValuesOf(call: PolicyEvent): string[] {
  const fn = call.data.function as Record<string, unknown> | undefined;
  const key = typeof fn?.arguments === 'string' ? fn.arguments : undefined;
  const known = key === undefined ? undefined : targetsByArguments.get(key);
  if (known !== undefined) return known;
  const out: string[] = [];
  for (const piece of textsOf(fn?.arguments, undefined)) {
    for (const value of cachedValuesIn(piece.text))
      if (targetShapes.has(value.kind)) out.push(value.value);
    const whole = piece.text.trim();
    if (whole.length <= 80 && canonicalValue(whole).shape !== 'text') out.push(whole);
  }
  if (key !== undefined) targetsByArguments.set(key, out);
  return out;
}
const targetsByArguments = createTextCache<string[]>(1024);

/** A target of a call that first came from a tool output, and where. */
interface Target {
  value: string;
  kind: ValueSource['kind'];
  position: number;
}

// The first tool output before the call that carries a value (its pattern), or -1
function firstOutputWith(store: EventStore, call: PolicyEvent, value: string): number {
  for (const output of outputsBefore(store, call.position))
    if (carries(output, value)) return output.position;
  return -1;
}

// Pieces of a value one of which every written form of it holds as is (a link without its
// scheme, an IBAN's first four characters, a phone number's last four digits, an address's
// mailbox name or its base64): a text with none of them cannot hold the value, and `includes` is
// much cheaper than the value's pattern
function fragmentsOf(value: string): string[] {
  let known = fragments.get(value);
  if (known === undefined) {
    known = reduceToFragments(value);
    fragments.set(value, known);
  }
  return known;
}
const fragments = createTextCache<string[]>(1024);

function reduceToFragments(value: string): string[] {
  const { shape, canonical } = canonicalValue(value);
  if (shape === 'account')
    return [/^[a-z]{2}\d{2}/.test(canonical) ? canonical.slice(0, 4) : canonical.slice(-4)];
  if (shape === 'url') return [canonical.split('/')[0] ?? canonical];
  // a text's spaces match any run of whitespace: its first word is kept as is
  if (shape === 'text') return [canonical.split(/\s+/)[0] ?? canonical];
  // an address also written obfuscated (`bob (at) x (dot) com`) or in base64 (`valuePattern`)
  if (shape === 'email')
    return [
      (canonical.split('@')[0] ?? canonical).split('.')[0] ?? canonical,
      base64Form(canonical),
    ];
  return [canonical];
}

/**
 * Whether a user's (lower-cased) texts may hold one of a call's argument values (a piece that
 * every form of the value keeps is in them): when none can, the call's value sources need not
 * be read for the user's values (`isUserRequested`; bench/detection.bench.ts).
 * @param call - a tool-call event
 * @param lowerTexts - the user's messages before it, lower-cased
 * @internal
 */
export function mayHoldValue(call: PolicyEvent, lowerTexts: readonly string[]): boolean {
  if (lowerTexts.length === 0) return false;
  const fn = call.data.function as Record<string, unknown> | undefined;
  for (const piece of textsOf(fn?.arguments, undefined)) {
    const values = cachedValuesIn(piece.text).map((value) => value.value);
    const whole = piece.text.trim();
    if (whole.length >= 2 && whole.length <= 80 && !whole.includes('\n')) values.push(whole);
    for (const value of values) {
      for (const fragment of fragmentsOf(value))
        if (fragment !== '' && lowerTexts.some((text) => text.includes(fragment))) return true;
    }
  }
  return false;
}

// Whether an output carries a value in any form of it
function carries(output: OutputFacts, value: string): boolean {
  output.lower ??= output.texts.map((text) => text.toLowerCase());
  const pieces = fragmentsOf(value);
  for (const text of output.lower)
    if (pieces.some((piece) => text.includes(piece)) && valuePattern(value).test(text)) return true;
  return false;
}

// the recommended policy's action threshold (its default)
const FLAGGED = 0.4;

/** What the second-target rules read from one tool output, once per store. */
interface OutputFacts {
  position: number;
  texts: string[];
  /** Lower-cased, when first needed. */
  lower?: string[];
  /** Targets its request sentences name (canonical), when first needed. */
  asked?: string[];
  /** It reads as an injection at the action threshold. */
  flagged: boolean;
}

// Every call of a trace is asked about at each check, each about the outputs before it: the
// outputs' facts are read once per store
const outputFacts = new WeakMap<EventStore, { scanned: number; list: OutputFacts[] }>();
function outputsBefore(store: EventStore, end: number): OutputFacts[] {
  let entry = outputFacts.get(store);
  if (entry === undefined) {
    entry = { scanned: 0, list: [] };
    outputFacts.set(store, entry);
  }
  const positions = store.candidates('ToolOutput');
  for (; entry.scanned < positions.length; entry.scanned++) {
    const position = positions[entry.scanned] as number;
    if (position >= end) break;
    const texts = textsOf(store.probe(position), undefined).map((piece) => piece.text);
    entry.list.push({
      position,
      texts,
      flagged: texts.some((text) => findInjectedRanges(text, FLAGGED).length > 0),
    });
  }
  const list = entry.list;
  let count = list.length;
  while (count > 0 && (list[count - 1] as OutputFacts).position >= end) count--;
  return count === list.length ? list : list.slice(0, count);
}

// Whether a tool output before the call asks, in a request sentence, for a target the call's
// arguments carry (an address, link, account or phone number), in any form of it; or reads as
// an injection (one that asks for the call's kind without naming it in a request sentence, a
// tool call serialised into the data: `attacker-request`'s case)
function dataAsksForTarget(store: EventStore, call: PolicyEvent): boolean {
  const values = targetValuesOf(call);
  if (values.length === 0) return false;
  const outputs = outputsBefore(store, call.position);
  if (outputs.some((output) => output.flagged)) return true;
  let own: string[] | undefined;
  for (const output of outputs) {
    // the request sentences of an output that carries one of the values (reading every
    // output's requests would cost a new 30 KB output its whole scan: bench/detection.bench.ts)
    if (!values.some((value) => carries(output, value))) continue;
    output.asked ??= output.texts.flatMap(requestedTargets);
    if (output.asked.length === 0) continue;
    own ??= values.map((value) => canonicalValue(value).canonical);
    const asked = output.asked;
    if (own.some((v) => asked.some((a) => sameCanonical(a, v)))) return true;
  }
  return false;
}

// a field's label right before a value: `iban: `, `"email": "`, `Our bank: `, and an address's
// display name between (`From: Julia Berg <`)
const labelled = /(?:^|[\s"{,])[A-Za-z][\w ]{1,28}"?\s*:\s*(?:["']?|[^\s:<>"][^:<>"\n]{0,40}<)$/;

/**
 * Whether the target's value, in the output it came from, is asked for in a request sentence
 * while the same record (a YAML item, a JSON object, the whole text when it has none) holds
 * exactly one other value of its shape outside every request, in a field of its own: the
 * record's own target and a second one.
 */
function secondInRecord(store: EventStore, target: Target): boolean {
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
    for (const start of findRecordStarts(text)) {
      if (start <= at) from = start;
      else {
        to = start;
        break;
      }
    }
    const record = text.slice(from, to);
    // exactly one: a list of several (a guest list) is no record with a target of its own
    const own = new Set<string>();
    for (const value of cachedValuesIn(record)) {
      if (shapeOf(value.value, value.kind) !== shape || sameTarget(value.value, target.value))
        continue;
      const where = valuePattern(value.value).exec(record.toLowerCase())?.index;
      // the record's own target stands in a field of its own ("iban: …", "Our bank: …", "From: …")
      if (where === undefined || inRequest(from + where)) continue;
      if (labelled.test(record.slice(Math.max(0, where - 64), where)))
        own.add(canonicalValue(value.value).canonical);
    }
    if (own.size === 1) return true;
  }
  return false;
}
