// The data a call sends out that the agent read from a source the user never named (the
// recommended policy's `toxic-flow` rule): a private repository the issue asked about, a secret
// file a tool description asked for. Read by the `leaked_reads` built-in.
import type { EventStore } from '../runtime/event-store.js';
import type { PolicyEvent } from '../runtime/policy-event.js';
import { textsOf } from '../runtime/policy-values.js';
import { createTextCache } from './create-text-cache.js';
import { isReadOnlyTool, userTextsBefore } from './find-requested-actions.js';
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

// An argument naming a container: a repository, a bucket, a folder, a site
const containerKey =
  /^(?:repo|repos|repository|repo_name|repository_name|project|bucket|database|db|channel|drive|folder|directory|dir|workspace|site|url|uri|link)$/;
// An argument naming an item: a file, a path, a document
const itemKey = /^(?:path|file|filename|file_name|filepath|file_path|document|doc|page|note)$/;
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

const isSecretPath = (value: string): boolean =>
  value.length <= MAX_VALUE && secretPath.test(value.toLowerCase());

// The top-level string arguments of a call, parsed when the model sent them as JSON text
function argumentsOf(call: PolicyEvent): [string, unknown][] {
  const fn = call.data.function as Record<string, unknown> | undefined;
  let args = fn?.arguments;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return [];
    }
  }
  return args !== null && typeof args === 'object' && !Array.isArray(args)
    ? Object.entries(args as Record<string, unknown>)
    : [];
}

const said = (userTexts: readonly string[], value: string): boolean => {
  const needle = valuePattern(value);
  return userTexts.some((text) => needle.test(text));
};

// A path the user named: as written, by its file's name, or (not a secret's) by a folder of it
function pathNamed(userTexts: readonly string[], value: string, secret: boolean): boolean {
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
  const entries = argumentsOf(call).filter(
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
const wordsCache = createTextCache<string[]>(1024);
function wordsOf(text: string): string[] {
  let known = wordsCache.get(text);
  if (known === undefined) {
    known = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
    wordsCache.set(text, known);
  }
  return known;
}

// Runs of three words, and the key-like tokens, of a text
function shinglesOf(words: readonly string[], into: Set<string>): Set<string> {
  for (let i = 0; i + 2 < words.length; i++)
    into.add(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  for (const word of words) if (keyToken.test(word)) into.add(word);
  return into;
}

// Whether an output's text shares with the call two runs of three words, or a key-like token,
// that no user message holds
function carries(
  callShingles: ReadonlySet<string>,
  userShingles: ReadonlySet<string>,
  output: PolicyEvent,
): boolean {
  let shared = 0;
  for (const piece of textsOf(output, undefined)) {
    const words = wordsOf(piece.text);
    for (let i = 0; i < words.length; i++) {
      const word = words[i] as string;
      if (keyToken.test(word) && callShingles.has(word) && !userShingles.has(word)) return true;
      if (i + 2 >= words.length) continue;
      const shingle = `${word} ${words[i + 1]} ${words[i + 2]}`;
      if (callShingles.has(shingle) && !userShingles.has(shingle) && ++shared >= 2) return true;
    }
  }
  return false;
}

const results = new WeakMap<PolicyEvent, LeakedRead[]>();

/**
 * The tool outputs before `call` whose content `call`'s arguments carry (two runs of three
 * words, or a key or token, that no user message holds) and whose own call read a source the
 * user's messages never named: a repository, folder or site they did not write, or a file of no
 * container they named, or a secret's path (an SSH key, `.env`, `mcp.json`, a credentials file)
 * they did not name. Calls whose tool only reads (`get_*`, `list_*`, `search_*`) carry nothing
 * out and get none.
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
  for (const [, value] of argumentsOf(call)) {
    argumentText += ` ${typeof value === 'string' ? value : JSON.stringify(value)}`;
    if (argumentText.length > MAX_ARGUMENT_TEXT) break;
  }
  const callShingles = shinglesOf(wordsOf(argumentText.slice(0, MAX_ARGUMENT_TEXT)), new Set());
  if (callShingles.size === 0) return out;
  const entries = userTextsBefore(store, call.position).filter(
    (entry) => entry.position < call.position,
  );
  const userTexts = entries.map((entry) => entry.text);
  const userShingles = new Set<string>();
  for (const text of userTexts) shinglesOf(wordsOf(text), userShingles);
  for (const position of store.candidates('ToolOutput')) {
    if (position >= call.position) break;
    const output = store.probe(position);
    if (output.callPosition < 0) continue;
    const source = unnamedSource(store.probe(output.callPosition), userTexts);
    if (source === null || !carries(callShingles, userShingles, output)) continue;
    out.push({ tool: output.toolName ?? null, position, ...source, address: output.address });
  }
  return out;
}
