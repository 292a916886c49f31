import type { EventStore } from '../runtime/event-store.js';
import { PolicyEvent } from '../runtime/policy-event.js';
import { textsOf } from '../runtime/policy-values.js';
import { createTextCache } from './create-text-cache.js';
import {
  canonicalValue,
  isDate,
  MAX_ACCOUNT_LENGTH,
  TOP_LEVEL_DOMAINS,
  valuePattern,
} from './value-pattern.js';

/**
 * Where a value of a tool call's arguments first appeared in the trace: an element of
 * `value_sources(call)` in a policy, the data flow the recommended policy's `attacker-action`
 * rule follows from an injected tool output to the call.
 * @example
 * ```ts
 * import { parsePolicy, type ValueSource } from '@tracewarden/core';
 * const policy = parsePolicy(`
 * raise PolicyViolation("argument value came from a tool output", source=source) if:
 *     (call: ToolCall)
 *     (source: dict) in value_sources(call)
 *     source.role == "tool"
 * `);
 * const [violation] = policy.check(trace).errors;
 * const source = violation?.namedArgs.source as ValueSource | undefined;
 * console.log(source?.value, source?.tool, source?.address); // e.g. 'bob@evil.com' 'read_inbox' '2.content:31-43'
 * ```
 */
export interface ValueSource {
  /** The value as it is in the arguments (a whole short string, or a token found in a long one). */
  value: string;
  /** `email`, `url`, `account` (IBANs, account and phone numbers), `file` or `text`. */
  kind: 'email' | 'url' | 'account' | 'file' | 'text';
  /** Where the value is in the call: `3.tool_calls.0.function.arguments.recipient`. */
  argument: string;
  /**
   * Role of the first event that contains it: `system`, `user`, `assistant`, `tool` (a tool
   * output), or `null` when no earlier event does (the model composed it).
   */
  role: 'system' | 'user' | 'assistant' | 'tool' | null;
  /** Tool whose output first carried it (role `tool`), else `null`. */
  tool: string | null;
  /** Position of that event in the flattened trace (compare with `trace_position(event)`), else -1. */
  position: number;
  /** The characters where it first appeared, e.g. `2.content:131-154`; `null` when never seen. */
  address: string | null;
}

// Each pattern starts only where a token starts (a lookbehind, or `\b` before a prefix no token
// character can follow), never inside a run of the characters it repeats: an unanchored
// `[\w.+-]+@…` tries every position of a long word and scans to its end from each, quadratic
// in the word ("Hello" x 30,000 took over a minute). The email pattern runs only on text with an
// `@` (`mayHold`).
const tokenPatterns: {
  kind: ValueSource['kind'];
  pattern: RegExp;
  mayHold?: (text: string) => boolean;
}[] = [
  {
    kind: 'email',
    pattern: /(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g,
    mayHold: (text) => text.includes('@'),
  },
  {
    kind: 'url',
    pattern: new RegExp(
      String.raw`\bhttps?:\/\/[^\s"'<>]+|\bwww\.[^\s"'<>]+|(?<![@\w.-])[\w-]+(?:\.[\w-]+)*\.(?:${TOP_LEVEL_DOMAINS})\b(?:\/[^\s"'<>]*)?|(?<![@\w.-])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,24}\/[^\s"'<>]*`,
      'gi',
    ),
  },
  // IBANs compact or in groups of four, account and phone numbers with spaces, dashes, brackets
  {
    kind: 'account',
    pattern:
      /\b[A-Z]{2}\d{2}(?:[A-Z0-9]{10,30}|(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?)\b|\+?\(?\d[\d ()-]{6,}\d/g,
  },
  // from the start of the name's run of characters (a leading `.` or `-` is dropped below)
  {
    kind: 'file',
    pattern:
      /(?<![\w.-])[\w.-]+\.(?:pdf|docx?|xlsx?|csv|txt|pptx?|json|zip|png|jpe?g|md|yaml|yml|sh|py)\b/gi,
  },
  // paths: `~/Documents/Private`, `/tmp` (a trailing `/*` or `/` is not part of the value)
  { kind: 'file', pattern: /(?<![\w/.:])~?\/[\w.~-]+(?:\/[\w.~-]+)*/g },
];

// A whole string argument is a value of its own (a user name, a hotel, a password, an id) when
// it is short and on one line.
const MAX_WHOLE = 80;
// two characters: ids like '13' count; one character is too common to trace
const MIN_VALUE = 2;
const MAX_VALUES = 64;

/**
 * The addresses, links, account and phone numbers, file names and paths written in a text,
 * then the addresses written obfuscated (`bob (at) evil (dot) com`) or in base64, as plain
 * addresses in lower case.
 * @param text - any text (a call's argument, a user's message)
 * @returns each token with its kind, in pattern order
 * @internal
 */
export function valuesIn(text: string): { value: string; kind: ValueSource['kind'] }[] {
  const out: { value: string; kind: ValueSource['kind'] }[] = [];
  for (const { kind, pattern, mayHold } of tokenPatterns) {
    if (mayHold !== undefined && !mayHold(text)) continue;
    for (const m of text.matchAll(pattern)) {
      // a closing bracket ends a value: a web agent's `goto [https://…]`, a `{…}` template
      let value = m[0].replace(/[.,;:!?)\]}]+$/, '');
      // a link is the same link with or without its scheme or a trailing slash
      if (kind === 'url')
        value = value.replace(/^(?:https?:\/\/)?(?:www\.)?/i, '').replace(/\/+$/, '');
      else if (kind === 'file') value = value.replace(/^[.-]+/, '');
      // a run of digits longer than any account number is data (a table, a file's contents),
      // and a date is no account either
      else if (kind === 'account' && !isAccountNumber(value)) continue;
      out.push({ value, kind });
    }
  }
  // and the addresses written to get past filters, as plain addresses
  out.push(...hiddenAddressesIn(text));
  return out;
}

// An address written to get past filters: `records (at) northwind-audit (dot) com`,
// `attacker[at]evil[.]com`, `bob at evil dot com`. The bare word "at" counts only when every dot
// after it is written out too ("find us at acme.com" names a site, not a mailbox)
const obfuscatedHint = /[[({<]\s*at\s*[\])}>]|\sat\s[^\n]{1,64}?\sdot\s/i;
const DOT_WRITTEN = String.raw`(?:\s*[[({<]\s*(?:dot|\.)\s*[\])}>]\s*|\s+dot\s+)`;
const LOCAL = String.raw`(?<![\w.+-])([\w+-]+(?:(?:\.|${DOT_WRITTEN})[\w+-]+)*)`;
const obfuscatedAddress = new RegExp(
  String.raw`${LOCAL}\s*[[({<]\s*at\s*[\])}>]\s*([\w-]+(?:(?:\.|${DOT_WRITTEN})[\w-]+)*(?:\.|${DOT_WRITTEN})(?:${TOP_LEVEL_DOMAINS}))(?![\w-])|${LOCAL}\s+at\s+([\w-]+(?:${DOT_WRITTEN}[\w-]+)*${DOT_WRITTEN}(?:${TOP_LEVEL_DOMAINS}))(?![\w-])`,
  'gi',
);
const dotWritten = new RegExp(DOT_WRITTEN, 'gi');
// A token that may be an address in base64 ("ZmluYW5jZUBicmlnaHRwYXJ0cy1wYXkuY29t"): an address
// of six characters or more encodes to eight or more
const base64Token = /(?<![\w+/])[A-Za-z0-9+/]{8,120}={0,2}(?![\w+/=])/g;
const plainAddress = /^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/;

function decodeBase64(token: string): string | null {
  const body = token.replace(/=+$/, '');
  if (body.length % 4 === 1) return null;
  try {
    return atob(body + '='.repeat((4 - (body.length % 4)) % 4));
  } catch {
    return null;
  }
}

/** The addresses a text holds obfuscated or in base64, as plain addresses (lower case). */
function hiddenAddressesIn(text: string): { value: string; kind: ValueSource['kind'] }[] {
  const out: { value: string; kind: ValueSource['kind'] }[] = [];
  if (obfuscatedHint.test(text)) {
    for (const m of text.matchAll(obfuscatedAddress)) {
      const local = (m[1] ?? m[3] ?? '').replace(dotWritten, '.');
      const domain = (m[2] ?? m[4] ?? '').replace(dotWritten, '.');
      out.push({ value: `${local}@${domain}`.toLowerCase(), kind: 'email' });
    }
  }
  for (const m of text.matchAll(base64Token)) {
    // (an address's base64 mixes cases: a word is no encoded address)
    if (!/[a-z]/.test(m[0]) || !/[A-Z0-9]/.test(m[0])) continue;
    const decoded = decodeBase64(m[0]);
    if (decoded !== null && plainAddress.test(decoded))
      out.push({ value: decoded.toLowerCase(), kind: 'email' });
  }
  return out;
}

function isAccountNumber(value: string): boolean {
  let characters = 0;
  for (let i = 0; i < value.length; i++) {
    if (isAlphanumeric(value.charCodeAt(i)) && ++characters > MAX_ACCOUNT_LENGTH) return false;
  }
  return !isDate(value);
}

const isAlphanumeric = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

interface Candidate {
  value: string;
  kind: ValueSource['kind'];
  argument: string;
}

function candidatesOf(call: PolicyEvent): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  const add = (value: string, kind: ValueSource['kind'], argument: string): void => {
    // one candidate per value, however it is written ("GB29 NWBK …" and "GB29NWBK…")
    const key = canonicalValue(value).canonical;
    if (value.length < MIN_VALUE || seen.has(key) || out.length >= MAX_VALUES) return;
    seen.add(key);
    out.push({ value, kind, argument });
  };
  const fn = call.data.function as Record<string, unknown> | undefined;
  for (const piece of textsOf(fn?.arguments, `${call.address}.function.arguments`)) {
    const text = piece.text;
    const argument = piece.address ?? `${call.address}.function.arguments`;
    for (const { value, kind } of valuesIn(text)) add(value, kind, argument);
    const whole = text.trim();
    if (whole.length <= MAX_WHOLE && !whole.includes('\n')) add(whole, 'text', argument);
  }
  return out;
}

function roleOf(event: PolicyEvent): ValueSource['role'] {
  if (event.kind === 'ToolOutput') return 'tool';
  const role = event.data.role;
  if (role === 'system' || role === 'developer') return 'system';
  if (role === 'user') return 'user';
  if (role === 'assistant') return 'assistant';
  if (role === 'tool' || role === 'function') return 'tool';
  return null;
}

// Lower-cased texts of events, by the text itself: traces are re-checked on every proposed call
const lowered = createTextCache<string>(4096);
function lower(text: string): string {
  const known = lowered.get(text);
  if (known !== undefined) return known;
  const value = text.toLowerCase();
  lowered.set(text, value);
  return value;
}

const results = new WeakMap<PolicyEvent, ValueSource[]>();

/**
 * For each value in a tool call's arguments — emails, URLs and domains, IBANs and account or
 * phone numbers, file names, and each whole short string (user names, hotel names, passwords,
 * ids) — the first message or tool output before the call that contains it (case-insensitive,
 * as a whole token, in any format of its kind: an IBAN with or without spaces, a link with or
 * without scheme, an address with a display name, a phone number with other separators, a file
 * name with its folder; see `valuePattern`), with its role and the address of the characters. A
 * value whose first source is a tool output never came from the user or the system prompt.
 *
 * A link no earlier text holds as written (the model filled in its query: an injection's
 * `https://telemetry.x.io/check?key=<the key>`) keeps its source `null`, and its host and path
 * (`telemetry.x.io/check`), else its host (`telemetry.x.io`), follows it as a value of its own
 * with the source that supplied it.
 * @param store - the events of the trace
 * @param call - a tool-call event of that store
 * @returns one source per distinct value, in argument order
 * @internal
 */
export function findValueSources(store: EventStore, call: PolicyEvent): ValueSource[] {
  const known = results.get(call);
  if (known !== undefined) return known;
  const candidates = candidatesOf(call);
  const sources = candidates.map(unseen);
  locate(store, call, sources);
  const seen = new Set(candidates.map((c) => canonicalValue(c.value).canonical));
  const parts: { after: ValueSource; options: ValueSource[] }[] = [];
  for (const source of sources) {
    if (source.kind !== 'url' || source.position >= 0) continue;
    const options = linkParts(source.value)
      .filter((part) => !seen.has(canonicalValue(part).canonical))
      .map((part) => unseen({ value: part, kind: 'url', argument: source.argument }));
    if (options.length > 0) parts.push({ after: source, options });
  }
  if (parts.length === 0) {
    results.set(call, sources);
    return sources;
  }
  locate(
    store,
    call,
    parts.flatMap((part) => part.options),
  );
  const out: ValueSource[] = [];
  for (const source of sources) {
    out.push(source);
    // the longest part of the link an earlier text holds
    const found = parts
      .find((part) => part.after === source)
      ?.options.find((option) => option.position >= 0);
    const key = found === undefined ? '' : canonicalValue(found.value).canonical;
    if (found !== undefined && !seen.has(key)) {
      seen.add(key);
      out.push(found);
    }
  }
  results.set(call, out);
  return out;
}

function unseen({ value, kind, argument }: Candidate): ValueSource {
  return { value, kind, argument, role: null, tool: null, position: -1, address: null };
}

// A link's host and path without its query or fragment, then its host alone (`value` as
// `valuesIn` gives it: no scheme, no `www.`), longest first; each only when it is shorter than
// the link and its host has a dot
function linkParts(value: string): string[] {
  const lower = value.toLowerCase();
  const path = lower.replace(/[?#].*$/s, '').replace(/\/+$/, '');
  const host = lower.replace(/[/?#:].*$/s, '');
  if (!host.includes('.') || host.length < MIN_VALUE) return [];
  const out: string[] = [];
  if (path !== lower && path !== host) out.push(path);
  if (host !== lower) out.push(host);
  return out;
}

// Fills in where each source's value first appeared in an event before the call
function locate(store: EventStore, call: PolicyEvent, sources: ValueSource[]): void {
  let open = sources.length;
  const needles = sources.map((source) => valuePattern(source.value));
  for (let position = 0; position < call.position && open > 0; position++) {
    const event = store.probe(position);
    if (event.kind !== 'Message' && event.kind !== 'ToolOutput') continue;
    const role = roleOf(event);
    for (const piece of textsOf(event, undefined)) {
      const text = lower(piece.text);
      sources.forEach((source, i) => {
        if (source.position >= 0) return;
        const match = (needles[i] as RegExp).exec(text);
        if (match === null) return;
        const at = match.index;
        source.role = role;
        source.tool = role === 'tool' ? (event.toolName ?? null) : null;
        source.position = position;
        source.address =
          piece.address === undefined
            ? event.address
            : `${piece.address}:${at}-${at + match[0].length}`;
        open--;
      });
    }
  }
}

/** @internal Whether a value is a trace event (for `trace_position`). */
export const isPolicyEvent = (value: unknown): value is PolicyEvent => value instanceof PolicyEvent;
