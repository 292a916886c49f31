// The built-ins that read and convert values, as Python and Invariant define them: len, any, all,
// min, max, sum, the conversions, text and image parts, regex match and find, access checks.
import { type BuiltinFunction, markFound, numberOf } from './builtin-function.js';
import { contentParts } from './content-parts.js';
import { PolicyEvent } from './policy-event.js';
import { cachedRegex } from './policy-regex.js';
import { compareOrder, getMember, textsOf, toText, truthy } from './policy-values.js';
import { textSpan, withLocations } from './value-locations.js';

// Python's min/max/sum: over the arguments when there are several, else over the one iterable
const operands = (args: readonly unknown[]): unknown => (args.length > 1 ? [...args] : args[0]);

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

/** @internal The built-ins over values: Python's, Invariant's text and image parts, regexes. */
export const valueFunctions: Readonly<Record<string, BuiltinFunction>> = {
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
      const initial = Array.isArray(first) && args.length === 2 ? (numberOf(start) ?? 0) : 0;
      return (iterable(items) ?? []).reduce<number>((a, b) => a + (numberOf(b) ?? 0), initial);
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
      const n = numberOf(value);
      return n === null ? null : Math.trunc(n);
    },
  },
  float: { min: 1, max: 1, call: (_ctx, [value]) => numberOf(value) },
  bool: { min: 1, max: 1, call: (_ctx, [value]) => truthy(value) },
  match: {
    min: 2,
    max: 2,
    addressed: true,
    call: (ctx, [pattern, text], _named, addresses) => {
      if (typeof pattern !== 'string' || typeof text !== 'string') return false;
      const m = cachedRegex(pattern, 'start')?.search(text);
      if (m === null || m === undefined) return false;
      markFound(ctx, addresses[1], 0, m.end);
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
          markFound(ctx, piece.address, m.start, m.end);
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
};
