import { isWellFormed } from './is-well-formed.js';
import { jsonByteBound } from './json-byte-bound.js';

/**
 * Deepest nesting a value in a block may have. `JSON.stringify` recurses on the stack: past a
 * few thousand levels (fewer in a deeper call stack) it throws a RangeError, which would happen
 * in a sink, after the block was accepted. JSON data from models and tools nests a few levels.
 */
export const maxJsonDepth = 1000;

/**
 * Why `value` cannot be written as JSON exactly, or undefined when it can: a cycle, a BigInt,
 * nesting deeper than {@link maxJsonDepth}, a `toJSON` or getter that throws, or (with
 * `checkKeys`) an object key holding a lone UTF-16 surrogate. Plain JSON data (the common case)
 * is recognised by one bounded walk with no bookkeeping.
 * @param value - any value
 * @param checkKeys - also reject keys that cannot be encoded as UTF-8 (metadata, extra)
 * @returns the reason, to put in an error message, or undefined
 * @internal
 */
export function jsonProblem(value: unknown, checkKeys: boolean): string | undefined {
  try {
    if (jsonByteBound(value, 0) >= 0) return undefined;
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
      const problem = walk(value[i], String(i), depth + 1, ancestors, checkKeys);
      if (problem !== undefined) return problem;
    }
  } else {
    const record = value as Record<string, unknown>;
    for (const name of Object.keys(record)) {
      if (checkKeys && !isWellFormed(name))
        return `the key ${JSON.stringify(name)} contains a lone UTF-16 surrogate`;
      const problem = walk(record[name], name, depth + 1, ancestors, checkKeys);
      if (problem !== undefined) return problem;
    }
  }
  ancestors.pop();
  return undefined;
}
