// The data a call sends out that the agent read from a source the user never named (the
// recommended policy's `toxic-flow` rule): a private repository the issue asked about, a secret
// file a tool description asked for. Read by the `leaked_reads` built-in.
import { argumentEntriesOf, argumentsOfCall } from '../runtime/call-arguments.js';
import type { EventStore } from '../runtime/event-store.js';
import type { PolicyEvent } from '../runtime/policy-event.js';
import { textsOf } from '../runtime/policy-values.js';
import { actionKindsOf, isReadOnlyTool, userTextsBefore } from './find-requested-actions.js';
import { valuePattern } from './value-pattern.js';

/** A tool output whose content a call carries, read from a source the user did not name. */
export interface LeakedRead {
  /** The tool whose output the call carries (`get_file_contents`). */
  tool: string | null;
  /** Position of that output in the flattened trace. */
  position: number;
  /** The argument of the read that the user never named (`repo`, `path`). */
  argument: string;
  /** Its value (`resume`, `~/.ssh/id_rsa`). */
  value: string;
  /** Whether that value is a secret's path (a key, `.env`, `mcp.json`, a credentials file). */
  secret: boolean;
  /** The output's address (`6.content`). */
  address: string;
}

// An argument naming a private container: a repository, a bucket, a folder. Not a URL or a site:
// a public page is no private data (links that carry data out are other rules' concern), and a
// research agent reads pages the user never named all the time
/** @internal */
export const containerKey =
  /^(?:repo|repos|repository|repo_name|repository_name|project|bucket|database|db|channel|drive|folder|directory|dir|workspace)$/;
// An argument naming an item: a file, a path, a document
/** @internal */
export const itemKey =
  /^(?:path|file|filename|file_name|filepath|file_path|document|doc|page|note)$/;
// A secret's path, by its last segments (tested on a short lower-cased value)
const secretPath =
  /(?:^|[/\\])(?:\.ssh[/\\]|\.aws[/\\]|\.gnupg[/\\]|\.kube[/\\]config$|\.docker[/\\]config\.json$|\.netrc$|\.npmrc$|\.pypirc$|\.git-credentials$|\.env(?:\.[\w-]+)?$|id_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?$|mcp\.json$|credentials(?:\.json)?$|secrets?\.(?:json|ya?ml|toml)$|[\w-]+\.(?:pem|key|p12|pfx)$)/;
// Directory segments that say nothing of which data the user meant
const genericSegments = new Set(['~', 'home', 'users', 'user', 'src', 'docs', 'tmp', 'var', 'etc']);
const MAX_VALUE = 300;
// the argument text compared: a call carries at most this much of what it read
const MAX_ARGUMENT_TEXT = 65_536;
// a token of a key or password: a long run of letters, digits and underscores, with a digit
const keyToken = /^(?=.{20,}$)[a-z_]*\d/;

/** @internal */
export const isSecretPath = (value: string): boolean =>
  value.length <= MAX_VALUE && secretPath.test(value.toLowerCase());

/** @internal */
export const said = (userTexts: readonly string[], value: string): boolean => {
  const needle = valuePattern(value);
  return userTexts.some((text) => needle.test(text));
};

/** A path the user named: as written, by its file's name, or (not a secret's) by a folder of it. @internal */
export function pathNamed(userTexts: readonly string[], value: string, secret: boolean): boolean {
  if (said(userTexts, value)) return true;
  const segments = value
    .toLowerCase()
    .split(/[/\\]/)
    .filter((segment) => segment.length >= 3 && !genericSegments.has(segment));
  const base = segments[segments.length - 1];
  if (base !== undefined && said(userTexts, base)) return true;
  if (secret) return false;
  return segments.slice(0, -1).some((segment) => said(userTexts, segment));
}

/**
 * The argument of a read that names a source the user did not: a container (repository, folder,
 * site) the user never wrote, or, when the user named no container of the read, a file or path
 * they did not name; a secret's path counts unless the user named that file.
 */
function unnamedSource(
  call: PolicyEvent,
  userTexts: readonly string[],
): { argument: string; value: string; secret: boolean } | null {
  const entries = argumentEntriesOf(argumentsOfCall(call)).filter(
    (entry): entry is [string, string] =>
      typeof entry[1] === 'string' && entry[1].length >= 2 && entry[1].length <= MAX_VALUE,
  );
  let containerNamed = false;
  let unnamedItem: { argument: string; value: string; secret: boolean } | null = null;
  for (const [key, value] of entries) {
    const name = key.toLowerCase();
    const secret = isSecretPath(value);
    if (secret && !pathNamed(userTexts, value, true)) return { argument: key, value, secret };
    if (containerKey.test(name)) {
      if (!said(userTexts, value)) return { argument: key, value, secret: false };
      containerNamed = true;
    } else if (itemKey.test(name) && unnamedItem === null && !pathNamed(userTexts, value, false)) {
      unnamedItem = { argument: key, value, secret: false };
    }
  }
  return containerNamed ? null : unnamedItem;
}

// Lower-cased word tokens of a text (letters, digits, underscores): one pass, no backtracking
const wordTokensOf = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

// Runs of three words, and the key-like tokens, of a text (a key-like token has no space)
function shinglesOf(words: readonly string[], into: Set<string>): Set<string> {
  for (let i = 0; i + 2 < words.length; i++)
    into.add(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  for (const word of words) if (keyToken.test(word)) into.add(word);
  return into;
}

// What a trace's checks share, kept with its store so that it dies with the trace: the outputs'
// shingles indexed once each (shingle -> positions of the outputs holding it, each once), the
// user's shingles, and each read call's unnamed source for a count of user texts
interface ReadsIndex {
  /** How many of the store's tool outputs are indexed. */
  indexed: number;
  /** The last indexed output's position, and its event (to tell a rolled-back store). */
  last: number;
  lastEvent: PolicyEvent | undefined;
  postings: Map<string, number | number[]>;
  userCount: number;
  userShingles: Set<string>;
  sources: Map<number, { userCount: number; source: ReturnType<typeof unnamedSource> }>;
}
const indexes = new WeakMap<EventStore, ReadsIndex>();

/** Work done by {@link findLeakedReads} (words shingled, postings visited), for tests. @internal */
export const leakedReadsWork = { count: 0 };

function indexOf(store: EventStore, before: number, userTexts: readonly string[]): ReadsIndex {
  let index = indexes.get(store);
  const outputs = store.candidates('ToolOutput');
  // a store rolled back past an indexed output (a proposed step undone) is indexed anew
  if (
    index !== undefined &&
    index.indexed > 0 &&
    (outputs.length < index.indexed || store.event(index.last) !== index.lastEvent)
  )
    index = undefined;
  if (index === undefined) {
    index = {
      indexed: 0,
      last: -1,
      lastEvent: undefined,
      postings: new Map(),
      userCount: 0,
      userShingles: new Set(),
      sources: new Map(),
    };
    indexes.set(store, index);
  }
  for (; index.indexed < outputs.length; index.indexed++) {
    const position = outputs[index.indexed] as number;
    if (position >= before) break;
    const output = store.probe(position);
    index.last = position;
    index.lastEvent = undefined;
    if (output.callPosition < 0) continue;
    const shingles = new Set<string>();
    for (const piece of textsOf(output, undefined)) {
      const words = wordTokensOf(piece.text);
      leakedReadsWork.count += words.length;
      shinglesOf(words, shingles);
    }
    // most shingles are in one output: a number, an array only for those in several
    for (const shingle of shingles) {
      const known = index.postings.get(shingle);
      if (known === undefined) index.postings.set(shingle, position);
      else if (typeof known === 'number') index.postings.set(shingle, [known, position]);
      else known.push(position);
    }
  }
  if (index.last >= 0 && index.lastEvent === undefined) index.lastEvent = store.event(index.last);
  // user texts before a call are a prefix of those before a later one
  for (; index.userCount < userTexts.length; index.userCount++)
    shinglesOf(wordTokensOf(userTexts[index.userCount] as string), index.userShingles);
  return index;
}

// The unnamed source of the read call at `position`, for the first `userTexts` of the trace
function sourceOf(
  store: EventStore,
  index: ReadsIndex,
  position: number,
  userTexts: readonly string[],
): ReturnType<typeof unnamedSource> {
  const known = index.sources.get(position);
  if (known !== undefined && known.userCount === userTexts.length) return known.source;
  const source = unnamedSource(store.probe(position), userTexts);
  index.sources.set(position, { userCount: userTexts.length, source });
  return source;
}

/**
 * Whether a call writes back into the very source a read named (an in-place edit: `read_file`
 * then `edit_file` of the same path, in no other repository or folder): the content goes back
 * where it came from, nothing is sent out. Only a tool that changes and does not also send,
 * share or pay (`upload_file` of the same path sends it out).
 */
function writesBack(call: PolicyEvent, read: PolicyEvent, value: string): boolean {
  const kinds = actionKindsOf(call.toolName ?? '');
  if (!kinds.includes('change') || kinds.some((kind) => outward.has(kind))) return false;
  const entries = argumentEntriesOf(argumentsOfCall(call));
  const named = entries.some(
    ([key, given]) =>
      given === value && (itemKey.test(key.toLowerCase()) || containerKey.test(key.toLowerCase())),
  );
  if (!named) return false;
  const readValues = new Set(argumentEntriesOf(argumentsOfCall(read)).map(([, given]) => given));
  return entries.every(
    ([key, given]) => !containerKey.test(key.toLowerCase()) || readValues.has(given),
  );
}

// kinds of action that carry data out of where it was read
const outward = new Set(['message', 'access', 'payment', 'browsing', 'execution']);

const results = new WeakMap<PolicyEvent, LeakedRead[]>();

/**
 * The tool outputs before `call` whose content `call`'s arguments carry (two distinct runs of
 * three words, or a key or token, that no user message holds) and whose own call read a source
 * the user's messages never named: a repository or folder they did not write, or a file of no
 * container they named, or a secret's path (an SSH key, `.env`, `mcp.json`, a credentials file)
 * they did not name. Calls of tools that only read (`get_*`, `list_*`, `search_*`) get none:
 * not because they cannot carry data out (a search query or a fetched URL can), but because
 * that channel is left to the rules on links and on values sent out (the recommended policy's
 * rules 1 and 6).
 * @param store - the events of the trace
 * @param call - a tool-call event of that store
 * @returns the leaked reads, in trace order
 * @internal
 */
export function findLeakedReads(store: EventStore, call: PolicyEvent): LeakedRead[] {
  const known = results.get(call);
  if (known !== undefined) return known;
  const out: LeakedRead[] = [];
  results.set(call, out);
  if (isReadOnlyTool(call.toolName ?? '')) return out;
  let argumentText = '';
  for (const [, value] of argumentEntriesOf(argumentsOfCall(call))) {
    argumentText += ` ${typeof value === 'string' ? value : JSON.stringify(value)}`;
    if (argumentText.length > MAX_ARGUMENT_TEXT) break;
  }
  const callShingles = shinglesOf(
    wordTokensOf(argumentText.slice(0, MAX_ARGUMENT_TEXT)),
    new Set(),
  );
  if (callShingles.size === 0) return out;
  const userTexts = userTextsBefore(store, call.position)
    .filter((entry) => entry.position < call.position)
    .map((entry) => entry.text);
  const index = indexOf(store, call.position, userTexts);
  // a later call checked first indexed later user texts: this call's own set then
  let userShingles = index.userShingles;
  if (index.userCount > userTexts.length) {
    userShingles = new Set();
    for (const text of userTexts) shinglesOf(wordTokensOf(text), userShingles);
  }
  // the outputs sharing a key-like token, or two distinct runs, with the call
  const runs = new Map<number, number>();
  const found = new Set<number>();
  for (const shingle of callShingles) {
    if (userShingles.has(shingle)) continue;
    const known = index.postings.get(shingle);
    if (known === undefined) continue;
    const list = typeof known === 'number' ? [known] : known;
    const key = !shingle.includes(' ');
    for (const position of list) {
      leakedReadsWork.count++;
      if (position >= call.position) break;
      if (key) found.add(position);
      else {
        const shared = (runs.get(position) ?? 0) + 1;
        runs.set(position, shared);
        if (shared >= 2) found.add(position);
      }
    }
  }
  for (const position of [...found].sort((a, b) => a - b)) {
    const output = store.probe(position);
    const source = sourceOf(store, index, output.callPosition, userTexts);
    if (source === null || writesBack(call, store.probe(output.callPosition), source.value))
      continue;
    out.push({ tool: output.toolName ?? null, position, ...source, address: output.address });
  }
  return out;
}
