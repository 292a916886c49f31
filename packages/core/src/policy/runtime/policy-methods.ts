import { MAX_REPEATED_LENGTH } from './operators.js';
import { PolicyEvent } from './policy-event.js';
import { parseJsonText, toText, valuesEqual } from './policy-values.js';
import { splitLines, splitText, textSpan, withLocations } from './value-locations.js';

// The methods rules may call on values (Python's str, dict and list methods Invariant policies
// use). A fixed whitelist: a rule never reaches JavaScript's own methods.

const stringMethods: Record<string, (s: string, args: unknown[]) => unknown> = {
  lower: (s) => s.toLowerCase(),
  upper: (s) => s.toUpperCase(),
  strip: (s, [chars]) => (typeof chars === 'string' ? trimChars(s, chars, true, true) : s.trim()),
  lstrip: (s, [chars]) =>
    typeof chars === 'string' ? trimChars(s, chars, true, false) : s.trimStart(),
  rstrip: (s, [chars]) =>
    typeof chars === 'string' ? trimChars(s, chars, false, true) : s.trimEnd(),
  startswith: (s, [prefix]) =>
    typeof prefix === 'string'
      ? s.startsWith(prefix)
      : Array.isArray(prefix)
        ? prefix.some((p) => typeof p === 'string' && s.startsWith(p))
        : false,
  endswith: (s, [suffix]) =>
    typeof suffix === 'string'
      ? s.endsWith(suffix)
      : Array.isArray(suffix)
        ? suffix.some((p) => typeof p === 'string' && s.endsWith(p))
        : false,
  split: (s, [separator]) => splitText(s, separator).parts,
  splitlines: (s) => splitLines(s).lines,
  replace: (s, [from, to]) => {
    if (typeof from !== 'string' || typeof to !== 'string') return s;
    const parts = s.split(from);
    // both strings may come from the trace: None rather than a RangeError past the cap
    const length = s.length + (parts.length - 1) * (to.length - from.length);
    return length <= MAX_REPEATED_LENGTH ? parts.join(to) : null;
  },
  count: (s, [sub]) => (typeof sub === 'string' && sub !== '' ? s.split(sub).length - 1 : 0),
  find: (s, [sub]) => (typeof sub === 'string' ? s.indexOf(sub) : -1),
  join: (s, [items]) => {
    if (!Array.isArray(items)) return null;
    const texts = items.map((item) => toText(item));
    let length = s.length * Math.max(0, texts.length - 1);
    for (const text of texts) length += text.length;
    return length <= MAX_REPEATED_LENGTH ? texts.join(s) : null;
  },
  isdigit: (s) => /^\d+$/.test(s),
  contains: (s, [sub]) => typeof sub === 'string' && s.includes(sub),
};

function trimChars(s: string, chars: string, start: boolean, end: boolean): string {
  let a = 0;
  let b = s.length;
  while (start && a < b && chars.includes(s[a] as string)) a++;
  while (end && b > a && chars.includes(s[b - 1] as string)) b--;
  return s.slice(a, b);
}

const dictMethods: Record<string, (d: Record<string, unknown>, args: unknown[]) => unknown> = {
  get: (d, [key, fallback]) =>
    typeof key === 'string' && Object.hasOwn(d, key) && key !== '__proto__'
      ? (d[key] ?? null)
      : (fallback ?? null),
  keys: (d) => Object.keys(d),
  values: (d) => Object.values(d),
  items: (d) => Object.entries(d),
};

const listMethods: Record<string, (l: unknown[], args: unknown[]) => unknown> = {
  count: (l, [item]) => l.filter((x) => valuesEqual(x, item)).length,
  index: (l, [item]) => l.findIndex((x) => valuesEqual(x, item)),
};

/** @internal Every method name the language knows (others are compile errors). */
export const methodNames: ReadonlySet<string> = new Set([
  ...Object.keys(stringMethods),
  ...Object.keys(dictMethods),
  ...Object.keys(listMethods),
]);

/** @internal String methods whose results are parts of the receiver (they keep locations). */
export const locatedMethods: ReadonlySet<string> = new Set([
  'splitlines',
  'split',
  'strip',
  'lstrip',
  'rstrip',
]);

/**
 * @internal {@link callMethod} for {@link locatedMethods}, also returning where the result is: a
 * span of the receiver, or a list whose elements carry their spans.
 */
export function callLocatedMethod(
  target: unknown,
  location: string | undefined,
  name: string,
  args: unknown[],
): [unknown, string | undefined] {
  if (typeof target !== 'string') return [callMethod(target, name, args), undefined];
  if (name === 'splitlines' || name === 'split') {
    const { lines: parts, starts } =
      name === 'splitlines'
        ? splitLines(target)
        : (({ parts: p, starts: s }) => ({ lines: p, starts: s }))(splitText(target, args[0]));
    return [
      withLocations(
        parts,
        parts.map((part, i) =>
          textSpan(location, starts[i] as number, (starts[i] as number) + part.length),
        ),
      ),
      undefined,
    ];
  }
  const result = callMethod(target, name, args);
  if (typeof result !== 'string') return [result, undefined];
  const start =
    name === 'rstrip' ? 0 : target.length - (callMethod(target, 'lstrip', args) as string).length;
  return [result, textSpan(location, start, start + result.length)];
}

/** @internal Calls a whitelisted method on data; None when the value has no such method. */
export function callMethod(target: unknown, name: string, args: unknown[]): unknown {
  if (target instanceof PolicyEvent) target = target.data;
  if (typeof target === 'string') {
    const method = stringMethods[name];
    if (method !== undefined) return method(target, args);
    const parsed = parseJsonText(target);
    if (parsed === undefined) return null;
    target = parsed;
  }
  if (Array.isArray(target)) {
    const method = listMethods[name];
    return method === undefined ? null : method(target, args);
  }
  if (typeof target === 'object' && target !== null) {
    const method = dictMethods[name];
    return method === undefined ? null : method(target as Record<string, unknown>, args);
  }
  return null;
}
