// Which data the user's own words point at (decision 050): a source they name ("in the vendor
// registry"), a person they name, and whether their words identify a tool output as data to act
// on (an id, a file name, a word the agent searched with). Read by `user-targets.ts`.
import { argumentStrings, callArgumentsOf, callArgumentsText } from '../runtime/call-arguments.js';
import type { EventStore } from '../runtime/event-store.js';
import { textsOf } from '../runtime/policy-values.js';
import { createTextCache } from './create-text-cache.js';

// An output's keys (`iban:`, `"email":`), read once per text
const keysCache = createTextCache<string>(1024);
const outputKeys = /(?:^|\n|[{,]\s*)\s*(?:- )?"?([A-Za-z_][\w ]{0,30})"?\s*:/g;
function keysOf(text: string): string {
  let known = keysCache.get(text);
  if (known === undefined) {
    known = '';
    for (const key of text.matchAll(outputKeys)) known += ` ${key[1]}`;
    keysCache.set(text, known);
  }
  return known;
}

// A source the user points at: "in the vendor registry", "from the payables folder", "using the
// attendee list". Its words, after the determiner, must all be found in the output the target
// came from (its tool's name, its call's arguments, its keys), generic ones ("list") aside.
/** @internal */
export const pointer =
  /\b(?:in|from|on|using|per|according to)\s+(?:the|my|our|your|her|his|their|its|this|that)\s+((?:[\w'-]+\s+){0,2}(?:registry|register|list|records?|files?|sheet|spreadsheet|profile|card|chat|thread|invoice|folder|drive|directory|contacts|database|portal|ledger|table|ticket|channel|inbox|calendar|note|notes|document|page))\b/g;
// A person the user names inside a sentence: a capitalised word after another word ("reply to
// Dana's email", "tell Priya"), not a sentence's first word
const personName = /(?<=[a-z,]\s)([A-Z][a-z]{2,})(?:'s)?\b/g;

const namesCache = createTextCache<string[]>(256);
/** The people a user's text names (lower-cased). @internal */
export function namesOf(text: string): string[] {
  let known = namesCache.get(text);
  if (known === undefined) {
    known = [...new Set([...text.matchAll(personName)].map((m) => (m[1] as string).toLowerCase()))];
    namesCache.set(text, known);
  }
  return known;
}

const genericWords = new Set(['list', 'file', 'files', 'record', 'records', 'document', 'page']);

// A text's words, lower-cased, split at case changes, padded with spaces (` get file contents `)
const paddedWordsOf = (text: string): string =>
  ` ${text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')} `;

// The arguments of the call whose output is at `position` (as the model wrote them), or ''
/** @internal */
export const argumentsOf = (store: EventStore, position: number): string =>
  callArgumentsText(store, store.probe(position));

/** The words that identify a tool output: its tool's name, its call's arguments and its keys. @internal */
export function identityOf(store: EventStore, position: number): string {
  const output = store.probe(position);
  let text = `${output.toolName ?? ''} ${argumentsOf(store, position)}`;
  for (const piece of textsOf(output, undefined)) text += keysOf(piece.text);
  return paddedWordsOf(text);
}

// Words of the user's that say nothing of which data they mean
const commonWords = new Set(
  'that this these those what with from have about your mine just then them they their there when where which will would could should please thanks today tomorrow everything anything something'.split(
    ' ',
  ),
);
// An object the user leaves to the data
const openTarget =
  /\b(?:what|whatever|everything|anything|all that)\s+(?:is|are|'s|was|were|has been|have been)?\s*(?:due|owed|outstanding|open|pending|listed|needed|required|asked|requested)\b/;
// An id-like token of the user's: a word with a digit, or a file name ("INV-2295", "#8841",
// "src/tokens.py", "v3.2.0")
const idToken = /[\w./-]*\d[\w./-]*|[\w-]+\.[a-z]{2,4}\b/g;

/**
 * Whether the user's words identify the tool output at `position` as data to act on: an id,
 * a file name or a person's name the user wrote is in it or its call's arguments, a word of
 * theirs is in its call's arguments (the agent searched with it: "the sign-in alert" and
 * `{"query": "new sign-in"}`), or a source they pointed at ("in the vendor registry") is it.
 * @internal
 */
export function identifiedByUser(
  store: EventStore,
  position: number,
  userTexts: readonly string[],
): boolean {
  // the arguments' values (their keys, "from" or "date", say nothing of the data)
  const args = argumentsOf(store, position)
    .replace(/"[^"]*"\s*:/g, ' ')
    .toLowerCase();
  const lower = textsOf(store.probe(position), undefined)
    .map((piece) => piece.text.toLowerCase())
    .join('\n');
  for (const text of userTexts) {
    const said = text.toLowerCase();
    // the user left the target to the data: "pay what is due", "send whatever is outstanding"
    if (openTarget.test(said)) return true;
    for (const m of said.matchAll(idToken)) {
      const token = trimmed(m[0], true);
      const idLike = token.length >= 3 || /[a-z]/.test(token);
      if (idLike && token.length >= 2 && (args.includes(token) || lower.includes(token)))
        return true;
    }
    for (const word of said.match(/[a-z][a-z'-]{3,}/g) ?? [])
      if (!commonWords.has(word) && args.includes(word)) return true;
    if (namesOf(text).some((name) => lower.includes(name))) return true;
    for (const m of said.matchAll(pointer)) {
      const words = (m[1] as string).trim().split(/\s+/);
      // the source itself, or an output read out of it (a file under the pointed folder, an
      // entry its listing gave)
      if (readFromPointer(store, position, words, pointedOutputs(store, words, position)))
        return true;
    }
  }
  return false;
}

// A container the user points at ("my invoices folder", "that drive"): a file whose path sits
// under it is read out of it, the same source
const containerNoun = /^(?:folders?|director(?:y|ies)|dir|drives?)$/;

// A token without its leading and trailing dots, dashes and slashes (and `#` in front when
// `hash`): a loop, so a long run of them costs one pass
function trimmed(token: string, hash: boolean): string {
  const edge = (code: number): boolean => code === 46 || code === 45 || code === 47;
  let start = 0;
  let end = token.length;
  while (start < end && (edge(token.charCodeAt(start)) || (hash && token.charCodeAt(start) === 35)))
    start++;
  while (end > start && edge(token.charCodeAt(end - 1))) end--;
  return start === 0 && end === token.length ? token : token.slice(start, end);
}

// A file-like entry of a listing: a name with an extension (`inv-101.pdf`), or an id of letters
// and digits (`f-8812`, `inv_7`); never a bare number, a date or a version (`2024`, `v1.2.3`)
const fileName = /^[\w@-][\w.@-]*\.[a-z][a-z0-9]{0,4}$/;
const numberLike = /^v?[\d.,_-]+$/;
const isEntry = (entry: string): boolean =>
  entry.length >= 4 &&
  entry.length <= 80 &&
  ((fileName.test(entry) && !numberLike.test(entry)) ||
    (/\d/.test(entry) && /[a-z]/.test(entry) && !/^v\d/.test(entry) && !entry.includes('.')));

// The entries a listing names, split rather than matched so that a long output costs one pass
const entriesCache = createTextCache<string[]>(512);
function entriesOf(text: string): string[] {
  let known = entriesCache.get(text);
  if (known === undefined) {
    const found = new Set<string>();
    for (const token of text.toLowerCase().split(/[^\w.@-]+/)) {
      // entries are 80 characters at most: longer tokens are not trimmed at all
      if (token.length > 82) continue;
      const entry = trimmed(token, false);
      if (isEntry(entry)) found.add(entry);
      if (found.size >= 200) break;
    }
    known = [...found];
    entriesCache.set(text, known);
  }
  return known;
}

// The values a listing's entry can equal: each string argument of the call, lower-cased, and the
// last segment of each path among them
function argumentValues(args: unknown): Set<string> {
  const values = new Set<string>();
  for (const text of argumentStrings(args)) {
    if (text.length > 1_000) continue;
    const value = text.trim().toLowerCase();
    values.add(value);
    const last = value.split(/[/\\]+/).pop();
    if (last !== undefined && last !== value) values.add(last);
  }
  return values;
}

// A word without its plural ending (`invoices` -> `invoice`, `directories` -> `directory`)
const singular = (word: string): string =>
  word.length > 4 && word.endsWith('ies')
    ? `${word.slice(0, -3)}y`
    : word.length > 3 && word.endsWith('s') && !word.endsWith('ss')
      ? word.slice(0, -1)
      : word;
// A folder's name or the user's words for it, as comparable words (`Tax_Receipts` -> `tax receipt`)
const folderName = (text: string): string =>
  paddedWordsOf(text).trim().split(' ').filter(Boolean).map(singular).join(' ');

/**
 * The tool outputs before `before` that a pointer's words match: the pointed source itself, or
 * its listing.
 * @internal
 */
export function pointedOutputs(store: EventStore, words: string[], before: number): number[] {
  const pointed: number[] = [];
  for (const at of store.candidates('ToolOutput')) {
    if (at >= before) break;
    if (matchesPointer(identityOf(store, at), words)) pointed.push(at);
  }
  return pointed;
}

/**
 * Whether the tool output at `position` was read out of a source the user pointed at: its own
 * identity matches the pointer's words, its call's arguments name a path under the pointed
 * container, by whole folder names ("my invoices folder" and `read_file(invoices/inv-101.txt)`,
 * not `invoices-old/…`), or an output read before it that matches the pointer (the container's
 * listing) names a file-like entry that one of its call's arguments is, whole or as a path's last
 * segment (`list_files(invoices)`, then `read_file(inv-101.txt)`).
 * @internal
 */
export function readFromPointer(
  store: EventStore,
  position: number,
  words: string[],
  listings: readonly number[],
): boolean {
  if (matchesPointer(identityOf(store, position), words)) return true;
  const args = callArgumentsOf(store, store.probe(position));
  if (args === undefined) return false;
  const values = argumentValues(args);
  if (values.size === 0) return false;
  const last = words[words.length - 1] ?? '';
  if (containerNoun.test(last)) {
    // the folders of the paths in the arguments: every segment before a path's last one
    const folders = new Set<string>();
    for (const value of values) {
      const parts = value.split(/[/\\]+/);
      for (const part of parts.slice(0, -1)) if (part !== '') folders.add(folderName(part));
    }
    const qualifiers = words.slice(0, -1).filter((word) => !genericWords.has(word));
    if (
      qualifiers.length > 0 &&
      (folders.has(folderName(qualifiers.join(' '))) ||
        qualifiers.every((word) => folders.has(folderName(word))))
    )
      return true;
  }
  for (const at of listings) {
    if (at >= position) break;
    for (const piece of textsOf(store.probe(at), undefined))
      if (entriesOf(piece.text).some((entry) => values.has(entry))) return true;
  }
  return false;
}

/** Whether every word of a pointer (generic ones aside) is in an output's identity. @internal */
export const matchesPointer = (identity: string, words: string[]): boolean =>
  words.every(
    (word) =>
      genericWords.has(word) ||
      identity.includes(` ${word.length > 4 ? word.replace(/(?:'s|s)$/, '') : word}`),
  );
