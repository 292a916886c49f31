import { isWellFormed } from '../text/is-well-formed.js';

type JsonObject = Record<string, unknown>;

function isPlainObject(value: object): value is JsonObject {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Whether a JSON value holds a lone UTF-16 surrogate in any string or key. Iterative, so data
 * nested deeper than the call stack is read, not a RangeError; plain arrays and objects only
 * (what `JSON.parse` makes).
 * @param value - a JSON value
 * @returns true when some string or key is not well-formed
 */
export function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return !isWellFormed(value);
  if (typeof value !== 'object' || value === null) return false;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const next = stack.pop() as object;
    if (Array.isArray(next)) {
      for (let i = 0; i < next.length; i++) {
        const item: unknown = next[i];
        if (typeof item === 'string') {
          if (!isWellFormed(item)) return true;
        } else if (typeof item === 'object' && item !== null) stack.push(item);
      }
    } else if (isPlainObject(next)) {
      for (const key in next) {
        if (!isWellFormed(key)) return true;
        const item = next[key];
        if (typeof item === 'string') {
          if (!isWellFormed(item)) return true;
        } else if (typeof item === 'object' && item !== null) stack.push(item);
      }
    }
  }
  return false;
}

/** How many lone surrogates a string holds (a high one followed by a low one is a pair). */
function countLoneSurrogates(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xd800 || code > 0xdfff) continue;
    if (code <= 0xdbff) {
      const after = text.charCodeAt(i + 1);
      if (after >= 0xdc00 && after <= 0xdfff) {
        i++;
        continue;
      }
    }
    count++;
  }
  return count;
}

function replaceInString(text: string, found: { count: number }): string {
  if (isWellFormed(text)) return text;
  found.count += countLoneSurrogates(text);
  return (text as string & { toWellFormed(): string }).toWellFormed();
}

/**
 * A copy of a JSON value with every lone UTF-16 surrogate (in strings and keys) replaced by
 * U+FFFD, the replacement character, as a UTF-8 decoder does; parts without one are shared, not
 * copied, and the input is never changed. Recursive: call it only on values
 * {@link hasLoneSurrogate} found one in.
 * @param value - a JSON value
 * @param found - `count` is increased by the number of surrogates replaced
 * @returns the value, well-formed
 */
export function replaceLoneSurrogates(value: unknown, found: { count: number }): unknown {
  if (typeof value === 'string') return replaceInString(value, found);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const replaced = replaceLoneSurrogates(item, found);
      if (replaced !== item) {
        copy ??= value.slice();
        copy[i] = replaced;
      }
    }
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  let changed = false;
  const copy: JsonObject = {};
  for (const key in value) {
    const item = value[key];
    const name = replaceInString(key, found);
    const replaced = replaceLoneSurrogates(item, found);
    if (name !== key || replaced !== item) changed = true;
    // two keys that differ only in their lone surrogates: the later one wins, as in JSON.parse
    if (name === '__proto__') {
      Object.defineProperty(copy, name, {
        value: replaced,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else copy[name] = replaced;
  }
  return changed ? copy : value;
}
