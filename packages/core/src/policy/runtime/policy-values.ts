import { blockFieldsKey } from '../../convert/block-fields.js';
import { textPartKey } from '../../model/text-part-key.js';
import { PolicyError } from '../policy-error.js';
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
export function valuesEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (depth > MAX_VALUE_DEPTH) valueTooDeep(undefined);
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a instanceof PolicyEvent || b instanceof PolicyEvent) {
    // by position: a filter may look at a transient copy of a cached event
    return a instanceof PolicyEvent && b instanceof PolicyEvent && a.position === b.position;
  }
  if (Array.isArray(a)) {
    return (
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => valuesEqual(item, b[i], depth + 1))
    );
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && valuesEqual(a[k], b[k], depth + 1))
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
  if (value instanceof PolicyEvent) return eventTexts(value);
  const out: AddressedText[] = [];
  collectTexts(value, address, out, 0);
  return out;
}

/** An event's text pieces, computed once and cached on the event. */
function eventTexts(event: PolicyEvent): AddressedText[] {
  if (event.texts !== undefined) return event.texts;
  let texts: AddressedText[];
  if (event.kind === 'ToolCall') {
    const fn = event.data.function;
    const args = isRecord(fn) ? fn.arguments : undefined;
    texts = textsOf(args, `${event.address}.function.arguments`);
    // a seed-004 entry's positional arguments (`args`), which converting to events keeps beside
    // the keyword ones, under `tracewarden.payload.args`: arguments of the call all the same
    const kept = event.data[blockFieldsKey];
    const payload = isRecord(kept) ? kept.payload : undefined;
    const positional = isRecord(payload) ? payload.args : undefined;
    if (Array.isArray(positional) && positional.length > 0)
      texts = texts.concat(textsOf(positional, `${event.address}.${blockFieldsKey}.payload.args`));
  } else if (event.kind === 'Tool') texts = textsOf(event.data, event.address);
  else texts = textsOf(event.data.content ?? null, `${event.address}.content`);
  event.texts = texts;
  return texts;
}

function collectTexts(
  value: unknown,
  address: string | undefined,
  out: AddressedText[],
  depth: number,
): void {
  if (depth > MAX_VALUE_DEPTH) valueTooDeep(address);
  if (value instanceof PolicyEvent) {
    for (const text of eventTexts(value)) out.push(text);
    return;
  }
  if (typeof value === 'string') {
    out.push({ text: value, address });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const at = address === undefined ? undefined : `${address}.${i}`;
      if (isRecord(item) && typeof item.text === 'string') {
        out.push({
          text: item.text,
          address: at === undefined ? undefined : `${at}.${textPartKey(item)}`,
        });
      } else {
        collectTexts(item, at, out, depth + 1);
      }
    });
    return;
  }
  if (isRecord(value)) {
    if (typeof value.text === 'string' && value.type === 'text') {
      out.push({
        text: value.text,
        address: address === undefined ? undefined : `${address}.${textPartKey(value)}`,
      });
      return;
    }
    for (const [k, v] of Object.entries(value)) {
      collectTexts(v, address === undefined ? undefined : `${address}.${k}`, out, depth + 1);
    }
  }
}

/** @internal A value as plain data for results (events become their data). */
export function toPlain(value: unknown, depth = 0): unknown {
  if (value instanceof PolicyEvent) return value.data;
  if (Array.isArray(value)) {
    if (depth > MAX_VALUE_DEPTH) valueTooDeep(undefined);
    return value.map((item) => toPlain(item, depth + 1));
  }
  return value === undefined ? null : value;
}

/** @internal Python-style string form. */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return String(value);
  try {
    return JSON.stringify(toPlain(value));
  } catch (error) {
    // deeper than JSON.stringify's stack allows (or a cycle built by a host function)
    if (PolicyError.isPolicyError(error)) throw error;
    return valueTooDeep(undefined);
  }
}

/**
 * How deep the policy engine follows nested trace values (texts, equality, results). Deeper
 * data is a `POLICY_LIMIT` error rather than ignored: content hidden below the limit must not
 * pass a check unseen, and recursing without a limit ends in a RangeError.
 * @internal
 */
export const MAX_VALUE_DEPTH = 256;

/** @internal Throws the `POLICY_LIMIT` error for data deeper than {@link MAX_VALUE_DEPTH}. */
export function valueTooDeep(address: string | undefined): never {
  throw new PolicyError({
    code: 'POLICY_LIMIT',
    message: `a trace value is nested deeper than MAX_VALUE_DEPTH (${MAX_VALUE_DEPTH}) levels${address === undefined ? '' : ` (at ${address.replace('\u0000', ':')})`}; such data cannot be checked`,
  });
}
