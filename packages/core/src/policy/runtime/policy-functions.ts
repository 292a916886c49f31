import { detectCopyright } from '../detectors/detect-copyright.js';
import { detectPii } from '../detectors/detect-pii.js';
import {
  findInjectedRanges,
  findRequestSentences,
  promptInjectionScore,
} from '../detectors/detect-prompt-injection.js';
import { detectSecrets } from '../detectors/detect-secrets.js';
import { detectUnicode, type UnicodeFinding } from '../detectors/detect-unicode.js';
import { extractHtmlData } from '../detectors/extract-html-data.js';
import { extractLinks, type LinkFinding } from '../detectors/extract-links.js';
import { FuzzyBudgetError, findFuzzy, fuzzyTolerance } from '../detectors/find-fuzzy.js';
import {
  actionKindOf,
  actionKindsOf,
  findActionRequest,
  isUserDelegated,
  isUserRequested,
  toolWordsPattern,
} from '../detectors/find-requested-actions.js';
import { findValueSources, tokenPattern } from '../detectors/find-value-sources.js';
import { PolicyError } from '../policy-error.js';
import type { PiiFinding } from '../policy-types.js';
import { PolicyEvent } from './policy-event.js';
import { cachedRegex } from './policy-regex.js';
import {
  compareOrder,
  getMember,
  MAX_VALUE_DEPTH,
  textsOf,
  toText,
  truthy,
  valueTooDeep,
} from './policy-values.js';
import type { EvalContext } from './rule-plan.js';
import { markRange, textSpan, withLocations } from './value-locations.js';

// `2.content:131-154` (as results show it) -> the internal span location of those characters
const spanLocation = (address: string | null): string | undefined => {
  if (address === null) return undefined;
  const at = address.lastIndexOf(':');
  return at < 0 ? address : `${address.slice(0, at)}\u0000${address.slice(at + 1)}`;
};

/**
 * @internal The most edit-distance cells `fuzzy_contains` computes per text (about 0.25 s): a
 * query and a text both taken from a trace could otherwise take minutes.
 */
export const MAX_FUZZY_CELLS = 20_000_000;

/** @internal A built-in function callable from rules. */
export interface BuiltinFunction {
  min: number;
  max: number;
  named?: readonly string[];
  /** Receives the addresses of its arguments (to mark character ranges). */
  addressed?: boolean;
  call(
    ctx: EvalContext,
    args: unknown[],
    named: Record<string, unknown>,
    addresses: (string | undefined)[],
  ): unknown;
}

function mark(ctx: EvalContext, address: string | undefined, start: number, end: number): void {
  markRange(ctx.ranges, address, start, end);
}

// The label of each finding in the value's texts, each finding's character range marked; each
// label keeps the range it was found at (a typed member over the list points there).
function collect<T extends { start: number; end: number }>(
  ctx: EvalContext,
  value: unknown,
  address: string | undefined,
  find: (text: string) => T[],
  label: (finding: T) => string,
): string[] {
  const out: string[] = [];
  const locations: (string | undefined)[] = [];
  for (const piece of textsOf(value, address)) {
    for (const finding of find(piece.text)) {
      out.push(label(finding));
      locations.push(textSpan(piece.address, finding.start, finding.end));
      mark(ctx, piece.address, finding.start, finding.end);
    }
  }
  return withLocations(out, locations);
}

// Invariant's link pattern (invariant.parsers.html): a scheme, a host, then path segments up to a
// space, newline or quote
const invariantLink = /https?:\/\/(?:[-\p{L}\p{N}_.]|%[\da-fA-F]{2})+(?:\/[^ \n"]+)*/gu;

function findInvariantLinks(text: string): { url: string; start: number; end: number }[] {
  return [...text.matchAll(invariantLink)].map((m) => ({
    url: m[0],
    start: m.index,
    end: m.index + m[0].length,
  }));
}

/**
 * The text (or image) parts of values, flattened as Invariant's `text(...)` / `image(...)` do: a
 * string is itself, a message or tool output gives the parts of its content, a list of content
 * parts gives each part of the wanted kind, lists recurse, anything else gives nothing.
 */
function contentParts(
  values: readonly unknown[],
  addresses: readonly (string | undefined)[],
  kind: 'text' | 'image',
): string[] {
  const parts: ContentParts = { kind, out: [], locations: [] };
  for (let i = 0; i < values.length; i++) collectParts(parts, values[i], addresses[i], 0);
  return withLocations(parts.out, parts.locations);
}

interface ContentParts {
  kind: 'text' | 'image';
  out: string[];
  locations: (string | undefined)[];
}

function collectParts(
  parts: ContentParts,
  value: unknown,
  address: string | undefined,
  depth: number,
): void {
  if (depth > MAX_VALUE_DEPTH) valueTooDeep(address);
  if (value instanceof PolicyEvent) {
    if (value.kind === 'Message' || value.kind === 'ToolOutput')
      collectParts(parts, value.data.content ?? null, `${value.address}.content`, depth + 1);
    return;
  }
  if (typeof value === 'string') {
    if (parts.kind === 'text') {
      parts.out.push(value);
      parts.locations.push(address);
    }
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      collectParts(
        parts,
        value[i],
        address === undefined ? undefined : `${address}.${i}`,
        depth + 1,
      );
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const part = value as Record<string, unknown>;
  if (parts.kind === 'text' && part.type === 'text' && typeof part.text === 'string') {
    parts.out.push(part.text);
    parts.locations.push(address === undefined ? undefined : `${address}.text`);
  } else if (parts.kind === 'image' && (part.type === 'image_url' || part.type === 'image')) {
    const image = part.image_url;
    if (typeof image === 'string') {
      parts.out.push(image);
      parts.locations.push(address === undefined ? undefined : `${address}.image_url`);
    } else if (typeof getMember(image, 'url') === 'string') {
      parts.out.push(getMember(image, 'url') as string);
      parts.locations.push(address === undefined ? undefined : `${address}.image_url.url`);
    }
  }
}

// Python's min/max/sum: over the arguments when there are several, else over the one iterable
const operands = (args: readonly unknown[]): unknown => (args.length > 1 ? [...args] : args[0]);

const findingType = (finding: { type: string }): string => finding.type;
const linkUrl = (link: LinkFinding): string => link.url;
const linkDomain = (link: LinkFinding): string => link.domain;

// Whole-token searches for values, by value (a policy asks about the same values at each output)
const needles = new Map<string, RegExp>();
function needleOf(value: string): RegExp {
  let needle = needles.get(value);
  if (needle === undefined) {
    if (needles.size >= 4096) needles.delete(needles.keys().next().value as string);
    needle = tokenPattern(value.toLowerCase());
    needles.set(value, needle);
  }
  return needle;
}

// The injected ranges of a text: the built-in detector's windows, or the whole text when a
// replacement classifier scores it at `threshold`
function injectedRanges(ctx: EvalContext, text: string, threshold: number): [number, number][] {
  const classifier = ctx.run.detectors.promptInjection;
  if (classifier === undefined) return findInjectedRanges(text, threshold);
  return classifier(text) >= threshold ? [[0, text.length]] : [];
}

const number = (value: unknown): number | null => {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)))
    return Number(value);
  return null;
};

const iterable = (value: unknown): unknown[] | null => {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return [...value];
  if (typeof value === 'object' && value !== null && !(value instanceof PolicyEvent))
    return Object.keys(value);
  return null;
};

// The smallest ('<') or largest ('>') item, the first of equals; null when there are none.
const extreme = (value: unknown, order: '<' | '>'): unknown =>
  (iterable(value) ?? []).reduce<unknown>(
    (a, b) => (a === undefined || compareOrder(b, a, order) ? b : a),
    undefined,
  ) ?? null;

/** @internal The built-in functions of the policy language. */
export const builtins: Readonly<Record<string, BuiltinFunction>> = {
  len: {
    min: 1,
    max: 1,
    call: (_ctx, [value]) => {
      if (typeof value === 'string' || Array.isArray(value)) return value.length;
      if (value instanceof PolicyEvent) return null;
      if (typeof value === 'object' && value !== null) return Object.keys(value).length;
      return null;
    },
  },
  any: { min: 1, max: 1, call: (_ctx, [value]) => (iterable(value) ?? []).some(truthy) },
  empty: {
    min: 1,
    max: 1,
    call: (_ctx, [value]) => {
      const items = iterable(value);
      return items === null ? null : items.length === 0;
    },
  },
  tuple: { min: 0, max: 1, call: (_ctx, [value]) => (value === undefined ? [] : iterable(value)) },
  // Invariant prints and then ignores the line; rules cannot reach the host, so this only holds
  print: { min: 0, max: Number.POSITIVE_INFINITY, call: () => true },
  all: { min: 1, max: 1, call: (_ctx, [value]) => (iterable(value) ?? []).every(truthy) },
  min: {
    min: 1,
    max: Number.POSITIVE_INFINITY,
    call: (_ctx, args) => extreme(operands(args), '<'),
  },
  max: {
    min: 1,
    max: Number.POSITIVE_INFINITY,
    call: (_ctx, args) => extreme(operands(args), '>'),
  },
  sum: {
    min: 1,
    max: Number.POSITIVE_INFINITY,
    call: (_ctx, args) => {
      // sum(list, start) as in Python; sum(a, b, c) of numbers as Invariant's n-ary form
      const [first, start] = args;
      const items = Array.isArray(first) && args.length <= 2 ? first : args;
      const initial = Array.isArray(first) && args.length === 2 ? (number(start) ?? 0) : 0;
      return (iterable(items) ?? []).reduce<number>((a, b) => a + (number(b) ?? 0), initial);
    },
  },
  text: {
    min: 1,
    max: Number.POSITIVE_INFINITY,
    addressed: true,
    call: (_ctx, args, _named, addresses) => contentParts(args, addresses, 'text'),
  },
  image: {
    min: 1,
    max: Number.POSITIVE_INFINITY,
    addressed: true,
    call: (_ctx, args, _named, addresses) => contentParts(args, addresses, 'image'),
  },
  should_allow_rbac: {
    min: 5,
    max: 5,
    // Invariant's access_control: some role of the user grants the scope (`data` is unused there too)
    call: (_ctx, [_data, scope, user, userRoles, roleGrants]) => {
      if (typeof scope !== 'string' || typeof user !== 'string') return false;
      const roles = getMember(userRoles, user);
      if (!Array.isArray(roles)) return false;
      return roles.some(
        (role) =>
          typeof role === 'string' && getMember(getMember(roleGrants, role), scope) === true,
      );
    },
  },
  abs: {
    min: 1,
    max: 1,
    call: (_ctx, [value]) => (typeof value === 'number' ? Math.abs(value) : null),
  },
  str: { min: 1, max: 1, call: (_ctx, [value]) => toText(value) },
  int: {
    min: 1,
    max: 1,
    call: (_ctx, [value]) => {
      const n = number(value);
      return n === null ? null : Math.trunc(n);
    },
  },
  float: { min: 1, max: 1, call: (_ctx, [value]) => number(value) },
  bool: { min: 1, max: 1, call: (_ctx, [value]) => truthy(value) },
  match: {
    min: 2,
    max: 2,
    addressed: true,
    call: (ctx, [pattern, text], _named, addresses) => {
      if (typeof pattern !== 'string' || typeof text !== 'string') return false;
      const m = cachedRegex(pattern, 'start')?.search(text);
      if (m === null || m === undefined) return false;
      mark(ctx, addresses[1], 0, m.end);
      return true;
    },
  },
  find: {
    min: 2,
    max: 2,
    addressed: true,
    call: (ctx, [pattern, value], _named, addresses) => {
      if (typeof pattern !== 'string') return [];
      const regex = cachedRegex(pattern, 'none');
      if (regex === null) return [];
      const out: string[] = [];
      const locations: (string | undefined)[] = [];
      for (const piece of textsOf(value, addresses[1])) {
        for (const m of regex.searchAll(piece.text)) {
          out.push(piece.text.slice(m.start, m.end));
          locations.push(textSpan(piece.address, m.start, m.end));
          mark(ctx, piece.address, m.start, m.end);
        }
      }
      return withLocations(out, locations);
    },
  },
  tool_call: {
    min: 1,
    max: 1,
    call: (ctx, [value]) => {
      if (!(value instanceof PolicyEvent)) return null;
      if (value.kind === 'ToolCall') return value;
      const at = value.callPosition;
      return at < 0 ? null : ctx.run.store.event(at);
    },
  },
  json_loads: {
    min: 1,
    max: 1,
    call: (_ctx, [value]) => {
      if (typeof value !== 'string') return null;
      try {
        return JSON.parse(value);
      } catch {
        return null;
      }
    },
  },
  server: {
    min: 1,
    max: 1,
    call: (_ctx, [value]) => getMember(getMember(value, 'metadata'), 'server'),
  },
  secrets: {
    min: 1,
    max: 1,
    addressed: true,
    call: (ctx, [value], _named, addresses) =>
      collect(ctx, value, addresses[0], ctx.run.detectors.secrets ?? detectSecrets, findingType),
  },
  pii: {
    min: 1,
    max: 2,
    named: ['entities'],
    addressed: true,
    call: (ctx, [value, positional], named, addresses) => {
      const wanted = named.entities ?? positional;
      const filter = Array.isArray(wanted) ? new Set(wanted.map(String)) : undefined;
      const detector = ctx.run.detectors.pii ?? detectPii;
      return collect<PiiFinding>(
        ctx,
        value,
        addresses[0],
        (text) =>
          filter === undefined ? detector(text) : detector(text).filter((f) => filter.has(f.type)),
        findingType,
      );
    },
  },
  prompt_injection: {
    min: 1,
    max: 2,
    named: ['threshold'],
    addressed: true,
    call: (ctx, [value, positional], named, addresses) => {
      const threshold = number(named.threshold ?? positional) ?? 0.5;
      const score = ctx.run.detectors.promptInjection ?? promptInjectionScore;
      let found = false;
      for (const piece of textsOf(value, addresses[0])) {
        if (score(piece.text) >= threshold) {
          found = true;
          mark(ctx, piece.address, 0, piece.text.length);
        }
      }
      return found;
    },
  },
  links: {
    min: 1,
    max: 1,
    addressed: true,
    call: (ctx, [value], _named, addresses) =>
      collect(ctx, value, addresses[0], extractLinks, linkUrl),
  },
  unicode: {
    min: 1,
    max: 2,
    named: ['categories'],
    addressed: true,
    call: (ctx, [value, positional], named, addresses) => {
      const wanted = named.categories ?? positional;
      const categories = Array.isArray(wanted) ? wanted.map(String) : undefined;
      const found = collect<UnicodeFinding>(
        ctx,
        value,
        addresses[0],
        (text) => detectUnicode(text, categories),
        findingType,
      );
      return [...new Set(found)];
    },
  },
  copyright: {
    min: 1,
    max: 1,
    addressed: true,
    call: (ctx, [value], _named, addresses) =>
      collect(ctx, value, addresses[0], detectCopyright, findingType),
  },
  html_code: {
    min: 1,
    max: 1,
    addressed: true,
    call: (ctx, [value], _named, addresses) => {
      const altTexts: string[] = [];
      const altLocations: (string | undefined)[] = [];
      const links: string[] = [];
      const linkLocations: (string | undefined)[] = [];
      for (const piece of textsOf(value, addresses[0])) {
        const data = extractHtmlData(piece.text);
        for (const alt of data.altTexts) {
          altTexts.push(alt.value);
          altLocations.push(textSpan(piece.address, alt.start, alt.end));
          mark(ctx, piece.address, alt.start, alt.end);
        }
        for (const link of data.links) {
          links.push(link.value);
          linkLocations.push(textSpan(piece.address, link.start, link.end));
          mark(ctx, piece.address, link.start, link.end);
        }
      }
      return {
        alt_texts: withLocations(altTexts, altLocations),
        links: withLocations(links, linkLocations),
      };
    },
  },
  fuzzy_contains: {
    min: 2,
    max: 4,
    named: ['query_similarity_threshold', 'use_semantic'],
    addressed: true,
    call: (ctx, [value, query, positional], named, addresses) => {
      const threshold = number(named.query_similarity_threshold ?? positional) ?? 0.8;
      if (typeof query !== 'string' || threshold < 0 || threshold > 1) return false;
      const tolerance = fuzzyTolerance(query, threshold);
      let found = false;
      for (const piece of textsOf(value, addresses[0])) {
        let hit: ReturnType<typeof findFuzzy>;
        try {
          hit = findFuzzy(piece.text, query, tolerance, MAX_FUZZY_CELLS);
        } catch (error) {
          if (!(error instanceof FuzzyBudgetError)) throw error;
          throw new PolicyError({
            code: 'POLICY_LIMIT',
            message: `fuzzy_contains could not finish: ${error.message} (MAX_FUZZY_CELLS = ${MAX_FUZZY_CELLS}); use a shorter query`,
          });
        }
        if (hit === null) continue;
        found = true;
        mark(ctx, piece.address, hit.start, hit.end);
      }
      return found;
    },
  },
  /**
   * Where each value of a tool call's arguments first appeared in the trace (issue 16): a list of
   * `{value, kind, argument, role, tool, position, address}`, each element located at the
   * characters where its value first appeared, so violations point from the source to the call.
   */
  value_sources: {
    min: 1,
    max: 1,
    call: (ctx, [value]) => {
      if (!(value instanceof PolicyEvent) || value.kind !== 'ToolCall') return [];
      const sources = findValueSources(ctx.run.store, value);
      return withLocations(
        sources.map((source) => ({ ...source })),
        sources.map((source) => spanLocation(source.address)),
      );
    },
  },
  /**
   * Whether `value` (case-insensitively, as a whole token) is in the parts of `event` that read
   * as an injection at `threshold` (the windows the detector scores that high; with a replacement
   * classifier, the whole text it scores that high): the injected instructions name it.
   */
  injected_value: {
    min: 2,
    max: 3,
    named: ['threshold'],
    addressed: true,
    call: (ctx, [event, value, positional], named, addresses) => {
      const threshold = number(named.threshold ?? positional) ?? 0.4;
      if (typeof value !== 'string' || value.length < 2) return false;
      let found = false;
      for (const piece of textsOf(event, addresses[0])) {
        for (const [start, end] of injectedRanges(ctx, piece.text, threshold)) {
          const match = needleOf(value).exec(piece.text.slice(start, end).toLowerCase());
          if (match === null) continue;
          found = true;
          mark(ctx, piece.address, start + match.index, start + match.index + match[0].length);
        }
      }
      return found;
    },
  },
  /**
   * Whether the injected parts of `event` (as for `injected_value`) ask for the kind of action
   * `call` performs (a payment, a message, granting access, a deletion, visiting a link, a
   * change, a booking, running a command: read from the tool's name).
   */
  requested_action: {
    min: 2,
    max: 3,
    named: ['threshold'],
    addressed: true,
    call: (ctx, [event, call, positional], named, addresses) => {
      const threshold = number(named.threshold ?? positional) ?? 0.4;
      if (!(call instanceof PolicyEvent) || call.kind !== 'ToolCall') return false;
      const kind = actionKindOf(call.toolName ?? '');
      if (kind === null) return false;
      let found = false;
      for (const piece of textsOf(event, addresses[0])) {
        for (const [start, end] of injectedRanges(ctx, piece.text, threshold)) {
          const at = findActionRequest(piece.text.slice(start, end), kind);
          if (at === null) continue;
          found = true;
          mark(ctx, piece.address, start + at[0], start + at[1]);
        }
      }
      return found;
    },
  },
  /**
   * Whether the user asked for `call`: a user message before it asks for the kind of action it
   * performs (see `requested_action`) or gave one of its argument values (its target); true as
   * well when the tool's name does not tell its kind.
   */
  user_requested: {
    min: 1,
    max: 1,
    call: (ctx, [call]) => {
      if (!(call instanceof PolicyEvent) || call.kind !== 'ToolCall') return true;
      return isUserRequested(ctx.run.store, call);
    },
  },
  /**
   * Whether a sentence of `event` asks, in the imperative, for the kind of action `call`
   * performs and names `value` (in that sentence or the next): "TODO: send the file to
   * x@y.com", "- [ ] Transfer 4,900 EUR to NL91...". Needs no detector score: a bare request
   * has no cue to the model.
   */
  requested_value: {
    min: 3,
    max: 3,
    addressed: true,
    call: (ctx, [event, call, value], _named, addresses) => {
      if (!(call instanceof PolicyEvent) || call.kind !== 'ToolCall') return false;
      if (typeof value !== 'string' || value.length < 2) return false;
      const kinds = actionKindsOf(call.toolName ?? '');
      // a tool whose name tells no kind is asked for by its own words ("add ... as a teacher")
      const words = kinds.length === 0 ? toolWordsPattern(call.toolName ?? '') : null;
      if (kinds.length === 0 && words === null) return false;
      let found = false;
      for (const piece of textsOf(event, addresses[0])) {
        for (const [start, end] of findRequestSentences(piece.text)) {
          const request = piece.text.slice(start, end);
          const asked =
            words === null
              ? kinds.some((kind) => findActionRequest(request, kind) !== null)
              : words.test(request.toLowerCase());
          if (!asked) continue;
          const match = needleOf(value).exec(request.toLowerCase());
          if (match === null) continue;
          found = true;
          mark(ctx, piece.address, start + match.index, start + match.index + match[0].length);
        }
      }
      return found;
    },
  },
  /**
   * Whether a user message before `call` hands the agent instructions found in data ("do the
   * tasks on my to-do list", "follow the instructions in the email", "do what she asks").
   */
  user_delegated: {
    min: 1,
    max: 1,
    call: (ctx, [call]) => {
      if (!(call instanceof PolicyEvent) || call.kind !== 'ToolCall') return false;
      return isUserDelegated(ctx.run.store, call);
    },
  },
  /** An event's position in the flattened trace (compare with `value_sources(...)[i].position`). */
  trace_position: {
    min: 1,
    max: 1,
    call: (_ctx, [value]) => (value instanceof PolicyEvent ? value.position : null),
  },
  /** `links` as `from invariant.parsers.html import links` defines it (Invariant's URL regex). */
  html_links: {
    min: 1,
    max: 1,
    addressed: true,
    call: (ctx, [value], _named, addresses) =>
      collect(ctx, value, addresses[0], findInvariantLinks, (link) => link.url),
  },
  domains: {
    min: 1,
    max: 1,
    addressed: true,
    call: (ctx, [value], _named, addresses) =>
      collect(ctx, value, addresses[0], extractLinks, linkDomain),
  },
};
