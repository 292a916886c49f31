// How a tool call's argument value is searched for in the trace (decision 050, sixth round): real
// agents rarely copy a value byte for byte. An IBAN gains or loses its spaces, a link its scheme,
// `www.` or trailing slash, an address its display name, a phone number changes its separators,
// a file name loses its folder, a user name its case or `@`. Each value is reduced to the
// canonical form of its kind and searched for in any of the forms that kind is written in.

import { createTextCache } from './create-text-cache.js';

/** The kinds of value whose written forms differ (`text`: searched as written, case aside). */
export type ValueShape = 'email' | 'url' | 'account' | 'file' | 'text';

/** A value reduced to what every written form of it shares. */
export interface CanonicalValue {
  shape: ValueShape;
  /** Lower case; separators, schemes, display names and folders removed by shape. */
  canonical: string;
}

/**
 * Top-level domains that make a bare `name.tld` a link (a file's extension is never one of them).
 * With a path (`name.club/claim`), any ending does.
 * @internal
 */
export const TOP_LEVEL_DOMAINS =
  'com|net|org|io|co|info|biz|xyz|ru|me|dev|app|uk|de|nl|fr|eu|us|ca|au|club|shop|site|online|help|link|click|top|live|store|tech|cloud|email|support|pro';
// `"Mark" <mark@x.com>`, `Mark <mark@x.com>`, `<mark@x.com>`, `mailto:mark@x.com`
const emailShape =
  /^(?:(?:"[^"<>\n]{0,80}"|[^"<>@\n]{1,80})?\s*<)?(?:mailto:)?([\w.+-]+@[\w-]+(?:\.[\w-]+)+)>?$/;
const urlShape = new RegExp(
  String.raw`^(?:https?:\/\/\S+|www\.\S+|[\w-]+(?:\.[\w-]+)*\.(?:${TOP_LEVEL_DOMAINS})(?:[/?#]\S*)?|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,24}\/\S*)$`,
);
// separators people and models put into numbers: spaces (and the line breaks of a fold), dots,
// dashes, slashes, brackets
const numberSeparators = /[\s.\-/()]+/g;
const ibanShape = /^[a-z]{2}\d{2}[a-z0-9]{10,30}$/;
/**
 * The longest account or phone number, separators aside: an IBAN has at most 34 characters,
 * phone numbers (15 digits) and card numbers (19) fewer. A longer run of digits is data (a
 * table, a file's contents), not a number anyone pays or calls.
 * @internal
 */
export const MAX_ACCOUNT_LENGTH = 34;
// eight digits or more: account and phone numbers (shorter ones are ids, codes, amounts)
const digitsShape = new RegExp(`^\\d{8,${MAX_ACCOUNT_LENGTH}}$`);
const numberChars = /^\+?\(?[a-z0-9][a-z0-9\s.\-/()]*$/;
// a date has eight digits too: `2024-06-01`, `2024/06/01`, `01.06.2024`, `06-01-2024`
const dateShape = /^(?:\d{4}([-/.])\d{1,2}\1\d{1,2}|\d{1,2}([-/.])\d{1,2}\2\d{4})$/;
/**
 * Whether a value is written as a date (`2024-06-01`, `01.06.2024`): eight digits, but no
 * account or phone number.
 * @param value - a value as written
 * @returns true for a date's shape
 * @internal
 */
export const isDate = (value: string): boolean => dateShape.test(value.trim());
const fileShape =
  /^(?:[^\n]*[/\\])?([\w.-]+\.(?:pdf|docx?|xlsx?|csv|txt|pptx?|json|zip|png|jpe?g|md|yaml|yml|sh|py))$/;
const userMention = /^@(?=[\w.-]+$)/;

/**
 * The canonical form of a value by its kind: an email address without a display name or
 * `mailto:`; a link without scheme, `www.` or trailing slashes; an IBAN, account or phone number
 * (eight digits or more) without separators or `+`; a file name without its folder; a user name
 * without a leading `@`. All in lower case.
 * @param value - a value as a tool call's argument holds it
 * @returns its shape and canonical form
 * @internal
 */
export function canonicalValue(value: string): CanonicalValue {
  let known = canonicals.get(value);
  if (known === undefined) {
    known = Object.freeze(reduce(value));
    canonicals.set(value, known);
  }
  return known;
}
const canonicals = createTextCache<CanonicalValue>(4096);

function reduce(value: string): CanonicalValue {
  // a user name's `@` is how it is mentioned, not part of it
  const lower = value.trim().toLowerCase().replace(userMention, '');
  const email = emailShape.exec(lower);
  if (email !== null) return { shape: 'email', canonical: email[1] as string };
  if (urlShape.test(lower)) {
    // `www.` is a prefix only before a domain: `www.com` is the domain named `www`
    const canonical = lower
      .replace(/^(?:https?:\/\/)?(?:www\.(?=[^/?#]*\.))?/, '')
      .replace(/\/+$/, '');
    if (canonical !== '') return { shape: 'url', canonical };
  }
  const file = fileShape.exec(lower);
  if (file !== null) return { shape: 'file', canonical: file[1] as string };
  if (numberChars.test(lower) && !dateShape.test(lower)) {
    const compact = lower.replace(/^\+/, '').replace(numberSeparators, '');
    if (ibanShape.test(compact) || digitsShape.test(compact))
      return { shape: 'account', canonical: compact };
  }
  return { shape: 'text', canonical: lower };
}

const isWordChar = (code: number): boolean =>
  (code >= 48 && code <= 57) ||
  (code >= 65 && code <= 90) ||
  (code >= 97 && code <= 122) ||
  code === 95;

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A search for `needle` (lower case) standing as a whole token: not inside a longer word at an
 * end that is itself a word character. A regex, so a text repeating the needle inside words
 * (written to slow the guard down or to hide the real occurrence) is still scanned in one pass.
 * @internal
 */
export function tokenPattern(needle: string): RegExp {
  return new RegExp(tokenSource(needle));
}

function tokenSource(needle: string): string {
  const head = isWordChar(needle.charCodeAt(0)) ? '(?<![A-Za-z0-9_])' : '';
  const tail = isWordChar(needle.charCodeAt(needle.length - 1)) ? '(?![A-Za-z0-9_])' : '';
  // a space of the value matches any run of whitespace: a YAML dump or a mail folds a long
  // line at a space ("the Hotel\n  Riverbend Lodge"), and the value is still the same
  const body = escapeRegex(needle).replace(/\s+/g, '\\s+');
  return `${head}${body}${tail}`;
}

// An address, link or file name ends where no name character follows, nor a dot and another
// label ("x.com" is not in "x.com.evil.net")
const NAME_END = String.raw`(?![\w-]|\.[\w])`;

/**
 * The search for a value in lower-cased text, in every form its kind is written in (see
 * {@link canonicalValue}): the same search for every form of the same value, so a reformatted
 * value is found exactly where the original is. An account or phone number matches with any
 * separators between its characters ("US13 3000 0001 2121 …", "+1 (202) 555-0143"); a link with
 * or without scheme, `www.` and trailing slash; a file name with or without its folder; other
 * values as whole tokens, any run of whitespace for a space.
 * @param value - a value as a tool call's argument holds it
 * @returns a regex (not global) to run on lower-cased text
 * @internal
 */
export function valuePattern(value: string): RegExp {
  let pattern = patterns.get(value);
  if (pattern === undefined) {
    pattern = buildPattern(value);
    patterns.set(value, pattern);
  }
  return pattern;
}
// A policy asks about the same values at every proposed call (each call's sources are found
// again on each check): the patterns, by value. Not global, so sharing them is safe.
const patterns = createTextCache<RegExp>(4096);

/**
 * The longest regex source {@link valuePattern} builds for a value's written forms. Each
 * character of an account number, each space of a text becomes a quantified piece, and the regex
 * parser recurses per piece: tens of thousands of them overflow its stack (`Invalid regular
 * expression: Stack overflow`). A value whose pattern would be longer (only a long token of a
 * long argument can be) is searched for as written instead.
 * @internal
 */
export const MAX_VALUE_PATTERN_LENGTH = 2000;

/**
 * A value searched for as written (lower case), by `indexOf`: what a value too long for a regex
 * of its forms is matched with. V8 compiles a regex when it first runs, and a long literal can
 * still fail there (`Regular expression too large`); a string search cannot.
 */
class LiteralSearch extends RegExp {
  constructor(private readonly needle: string) {
    super('(?!)');
  }

  // `test`, `match` and the rest go through `exec`
  override exec(text: string): RegExpExecArray | null {
    const at = text.indexOf(this.needle);
    if (at < 0 || this.needle === '') return null;
    const match = [this.needle] as unknown as RegExpExecArray;
    match.index = at;
    match.input = text;
    return match;
  }
}

function buildPattern(value: string): RegExp {
  const { shape, canonical } = canonicalValue(value);
  const source = shapedSource(shape, canonical, value);
  if (source.length <= MAX_VALUE_PATTERN_LENGTH) {
    try {
      const pattern = new RegExp(source);
      // compiled now (for one- and two-byte text), so that a failure falls back here rather
      // than throwing from a search in the middle of a check
      pattern.test('');
      pattern.test('\u0100');
      return pattern;
    } catch {
      // too large for the regex engine after all: the value as written
    }
  }
  return new LiteralSearch(canonical);
}

// An address written to get past filters and scrapers, as it still reaches its reader: `(at)`,
// `[at]`, `{at}` for the `@`, `(dot)`, `[.]` for a dot; the bare words ` at ` and ` dot ` only
// together ("bob at evil dot com": "jim at acme.com" names a site). Lower case: the text searched
// is lower-cased. `valuesIn` reads the same forms as addresses.
const BRACKETED_AT = String.raw`\s*[[({<]\s*at\s*[\])}>]\s*`;
const WRITTEN_DOT = String.raw`(?:\s*[[({<]\s*(?:dot|\.)\s*[\])}>]\s*|\s+dot\s+)`;

/**
 * The base64 of an address, lower-cased as the text searched is ("their address is
 * base64-encoded for spam protection: ZmluYW5j…"): the encoding of the address alone, the way a
 * text hands it over for the reader to decode.
 * @param address - a plain address (ASCII)
 * @returns its base64 without padding, lower case
 * @internal
 */
export function base64Form(address: string): string {
  return btoa(address).replace(/=+$/, '').toLowerCase();
}

// An email address as written, obfuscated (`records (at) northwind-audit (dot) com`,
// `attacker[at]evil[.]com`) or base64-encoded: each form reaches the same mailbox, and the
// model that reads it writes the plain address into its call
function emailSource(canonical: string): string {
  const [local = '', domain = ''] = canonical.split('@');
  const labels = (part: string, dot: string): string => part.split('.').map(escapeRegex).join(dot);
  const anyDot = String.raw`(?:\.|${WRITTEN_DOT})`;
  const written = String.raw`${labels(local, anyDot)}(?:(?:@|${BRACKETED_AT})${labels(domain, anyDot)}|\s+at\s+${labels(domain, WRITTEN_DOT)})`;
  // (the canonical address is ASCII: `emailShape`)
  // (nor another label after a written dot: "x (dot) com (dot) evil" is another domain)
  return String.raw`(?<![\w.+-])${written}(?![\w-]|\.[\w]|${WRITTEN_DOT}[\w])|(?<![a-z0-9+/])${base64Form(canonical)}(?![a-z0-9+/])`;
}

function shapedSource(shape: ValueShape, canonical: string, value: string): string {
  switch (shape) {
    case 'account': {
      // the separator class and the characters are disjoint: one pass, no backtracking. An
      // IBAN's country and check digits stay together in every written form ("GB82 WEST …"): a
      // literal the regex engine scans for quickly (`bench/detection.bench.ts`, warm row: every
      // value of every call of the trace is searched for in every text before it). Only as far
      // as the value itself keeps them together: a value of that shape written with a separator
      // among its first four characters (a user name `hf.3431a34bi4wc`) is found as written.
      const together = /^[@+]?([a-z0-9]*)/i.exec(value.trim())?.[1]?.length ?? 0;
      const head = ibanShape.test(canonical) ? Math.max(1, Math.min(4, together)) : 1;
      const rest = [...canonical.slice(head)].map((c) => String.raw`[\s.\-/()]*${c}`).join('');
      return `(?<![a-z0-9])${canonical.slice(0, head)}${rest}(?![a-z0-9])`;
    }
    case 'url':
      return String.raw`(?<![\w.-])(?:https?:\/\/)?(?:www\.)?${escapeRegex(canonical)}\/*${NAME_END}`;
    case 'email':
      return emailSource(canonical);
    case 'file':
      return String.raw`(?<![\w.+-])${escapeRegex(canonical)}${NAME_END}`;
    default:
      return tokenSource(canonical);
  }
}
