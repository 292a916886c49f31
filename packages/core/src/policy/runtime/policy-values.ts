import { isRecord } from './is-record.js';
import { type AddressedText, PolicyEvent } from './policy-event.js';

const forbidden = new Set(['__proto__', 'constructor', 'prototype']);

/** @internal Whether a member or key name may never be read by a rule. */
export function isForbiddenMember(name: string): boolean {
  return forbidden.has(name);
}

const jsonCache = new Map<string, unknown>();

/** @internal Parses JSON text (cached), or returns undefined when it is not JSON. */
export function parseJsonText(text: string): unknown {
  const trimmed = text.trimStart();
  const first = trimmed[0];
  if (first !== '{' && first !== '[') return undefined;
  if (jsonCache.has(text)) return jsonCache.get(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (jsonCache.size > 512) jsonCache.clear();
  jsonCache.set(text, value);
  return value;
}

/** @internal Python truthiness. */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '')
    return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isRecord(value)) return Object.keys(value).length > 0;
  return true;
}

/** @internal Member access on data: own properties only; JSON strings are parsed first. */
export function getMember(value: unknown, name: string): unknown {
  if (forbidden.has(name)) return null;
  if (value instanceof PolicyEvent) value = value.data;
  else if (typeof value === 'string') value = parseJsonText(value);
  if (isRecord(value) && Object.hasOwn(value, name)) {
    const member = value[name];
    return member === undefined ? null : member;
  }
  return null;
}

/** @internal `value[key]`: lists by (negative) index, dicts by key, strings by index. */
export function getIndex(value: unknown, key: unknown): unknown {
  if (value instanceof PolicyEvent) value = value.data;
  if (typeof key === 'number' && Number.isInteger(key)) {
    if (Array.isArray(value) || typeof value === 'string') {
      const at = key < 0 ? value.length + key : key;
      const item = value[at];
      return item === undefined ? null : item;
    }
  }
  if (typeof key === 'string') return getMember(value, key);
  return null;
}

/** @internal Deep equality on data; events compare by position. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a instanceof PolicyEvent || b instanceof PolicyEvent) {
    // by position: a filter may look at a transient copy of a cached event
    return a instanceof PolicyEvent && b instanceof PolicyEvent && a.position === b.position;
  }
  if (Array.isArray(a)) {
    return (
      Array.isArray(b) && a.length === b.length && a.every((item, i) => valuesEqual(item, b[i]))
    );
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && valuesEqual(a[k], b[k]))
    );
  }
  return a === b;
}

/** @internal Ordering comparison: numbers with numbers, strings with strings, else false. */
export function compareOrder(a: unknown, b: unknown, operator: '<' | '>' | '<=' | '>='): boolean {
  const comparable =
    (typeof a === 'number' && typeof b === 'number') ||
    (typeof a === 'string' && typeof b === 'string');
  if (!comparable) return false;
  const x = a as number | string;
  const y = b as number | string;
  switch (operator) {
    case '<':
      return x < y;
    case '>':
      return x > y;
    case '<=':
      return x <= y;
    default:
      return x >= y;
  }
}

/**
 * The text pieces of a value, with addresses when known: a string, each text chunk of a
 * multi-part content, an event's content, a tool call's string arguments.
 * @internal
 */
export function textsOf(value: unknown, address: string | undefined): AddressedText[] {
  if (value instanceof PolicyEvent) {
    const event = value;
    if (event.texts !== undefined) return event.texts;
    let texts: AddressedText[];
    if (event.kind === 'ToolCall') {
      const fn = event.data.function;
      const args = isRecord(fn) ? fn.arguments : undefined;
      texts = textsOf(args, `${event.address}.function.arguments`);
    } else if (event.kind === 'Tool') texts = textsOf(event.data, event.address);
    else texts = textsOf(event.data.content ?? null, `${event.address}.content`);
    event.texts = texts;
    return texts;
  }
  if (typeof value === 'string') return [{ text: value, address }];
  if (Array.isArray(value)) {
    const out: AddressedText[] = [];
    value.forEach((item, i) => {
      const at = address === undefined ? undefined : `${address}.${i}`;
      if (isRecord(item) && typeof item.text === 'string') {
        out.push({ text: item.text, address: at === undefined ? undefined : `${at}.text` });
      } else {
        out.push(...textsOf(item, at));
      }
    });
    return out;
  }
  if (isRecord(value)) {
    if (typeof value.text === 'string' && value.type === 'text') {
      return [{ text: value.text, address: address === undefined ? undefined : `${address}.text` }];
    }
    const out: AddressedText[] = [];
    for (const [k, v] of Object.entries(value)) {
      out.push(...textsOf(v, address === undefined ? undefined : `${address}.${k}`));
    }
    return out;
  }
  return [];
}

/** @internal A value as plain data for results (events become their data). */
export function toPlain(value: unknown): unknown {
  if (value instanceof PolicyEvent) return value.data;
  if (Array.isArray(value)) return value.map(toPlain);
  return value === undefined ? null : value;
}

/** @internal Python-style string form. */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(toPlain(value));
}
