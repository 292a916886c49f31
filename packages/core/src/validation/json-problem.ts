import { isWellFormed } from '../text/is-well-formed.js';

/**
 * Deepest nesting a value in a block may have. `JSON.stringify` recurses on the stack: past a
 * few thousand levels (fewer in a deeper call stack) it throws a RangeError, which would happen
 * in a sink, after the block was accepted. JSON data from models and tools nests a few levels.
 */
export const maxJsonDepth = 1000;

/**
 * Why `value` cannot be written as JSON exactly, or undefined when it can: a cycle, a BigInt,
 * nesting deeper than {@link maxJsonDepth}, a `toJSON` or getter that throws, or (with
 * `checkKeys`) one of the value's own keys holding a lone UTF-16 surrogate (the keys of
 * `metadata` and `extra`; nested data is JSON like any payload, and JSON.stringify escapes it). Plain JSON data (the common case)
 * is recognised by one bounded walk with no bookkeeping.
 * @param value - any value
 * @param checkKeys - also reject keys that cannot be encoded as UTF-8 (metadata, extra)
 * @returns the reason, to put in an error message, or undefined
 * @internal
 */
export function jsonProblem(value: unknown, checkKeys: boolean): string | undefined {
  if (value === trustedFirst || value === trustedSecond) return undefined;
  try {
    if (plainJson(value, 0, checkKeys)) return undefined;
    return walk(value, '', 0, [], checkKeys);
  } catch (error) {
    let reason: string;
    try {
      reason = error instanceof Error ? error.message : String(error);
    } catch {
      reason = 'an unreadable error';
    }
    return `reading it threw (${reason})`;
  }
}

// Objects built to be JSON (see trustWritable): not walked. Two plain references, not a
// WeakSet: weak collections cost every garbage collection, and this is the traced hot path.
let trustedFirst: object | undefined;
let trustedSecond: object | undefined;

/**
 * Runs `validate` with two objects its caller built from parts it already knows to be plain JSON
 * (the tracer's metadata of a guarded call: the guard's own strings and numbers), so validation
 * skips walking them. Validation is synchronous: the trust ends when `validate` returns.
 * @internal
 */
export function withTrustedJson<T>(first: object, second: object, validate: () => T): T {
  trustedFirst = first;
  trustedSecond = second;
  try {
    return validate();
  } finally {
    trustedFirst = undefined;
    trustedSecond = undefined;
  }
}

// Deeper values take the exact walk, which also tracks ancestors (cycles).
const plainDepth = 32;

/**
 * Whether `value` is plain JSON data, checked in one walk with no bookkeeping: primitives (any
 * string: a lone surrogate in a value is escaped by JSON.stringify), arrays and plain objects
 * without `toJSON`, at most {@link plainDepth} deep (which also rules out cycles); with
 * `checkKeys`, keys without a lone surrogate. False means "take the exact walk", not "invalid".
 */
function plainJson(value: unknown, depth: number, checkKeys: boolean): boolean {
  if (typeof value !== 'object') return typeof value !== 'bigint';
  if (value === null) return true;
  if (depth >= plainDepth) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object') {
        if (item !== null && !plainJson(item, depth + 1, false)) return false;
      } else if (typeof item === 'bigint') return false;
    }
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    if (typeof item === 'object') {
      if (item !== null && !plainJson(item, depth + 1, false)) return false;
    } else if (typeof item === 'bigint' || (key === 'toJSON' && typeof item === 'function'))
      return false;
    if (checkKeys && !isWellFormed(key)) return false;
  }
  return true;
}

function walk(
  input: unknown,
  key: string,
  depth: number,
  ancestors: object[],
  checkKeys: boolean,
): string | undefined {
  let value = input;
  if (typeof value === 'bigint') return 'it contains a BigInt';
  if (typeof value !== 'object' || value === null) return undefined;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    value = toJSON.call(value, key);
    if (typeof value === 'bigint') return 'it contains a BigInt';
    if (typeof value !== 'object' || value === null) return undefined;
  }
  if (depth >= maxJsonDepth) return `it is nested more than ${maxJsonDepth} levels deep`;
  // ancestors, not every object seen: a value shared by two branches is no cycle
  if (ancestors.includes(value)) return 'it contains a cycle (a value that contains itself)';
  ancestors.push(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = walk(value[i], String(i), depth + 1, ancestors, false);
      if (problem !== undefined) return problem;
    }
  } else {
    const record = value as Record<string, unknown>;
    for (const name of Object.keys(record)) {
      if (checkKeys && !isWellFormed(name))
        return `the key ${JSON.stringify(name)} contains a lone UTF-16 surrogate`;
      const problem = walk(record[name], name, depth + 1, ancestors, false);
      if (problem !== undefined) return problem;
    }
  }
  ancestors.pop();
  return undefined;
}
