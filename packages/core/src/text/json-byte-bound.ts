import { isWellFormed } from './is-well-formed.js';

// Deeper values take the exact path (JSON.stringify), which also catches cycles.
const maxDepth = 32;

/**
 * An upper bound of the UTF-8 bytes of `JSON.stringify(value)`, without building the string, or
 * -1 when the value needs the exact path: anything `JSON.stringify` would reject or transform
 * (BigInt, functions, `toJSON`, class instances), a lone surrogate, or nesting deeper than 32.
 * A string of length L serialises to at most 6L + 2 bytes (`\uXXXX` escapes), so the bound is
 * loose, but it lets the validator skip serialising the common small value entirely.
 * @internal
 */
export function jsonByteBound(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      return isWellFormed(value) ? value.length * 6 + 2 : -1;
    case 'number':
      // longest forms: -0.0000012345678901234567 (25: 17 digits after "0.00000", for magnitudes
      // in [1e-6, 1e-5)), -1.2345678901234567e-308 (24)
      return 25;
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      if (depth >= maxDepth) return -1;
      if (Array.isArray(value)) {
        let total = 2 + value.length;
        for (let i = 0; i < value.length; i++) {
          const bound = jsonByteBound(value[i], depth + 1);
          if (bound < 0) return -1;
          total += bound;
        }
        return total;
      }
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return -1;
      const record = value as Record<string, unknown>;
      let total = 2;
      // for-in, not Object.keys: no array per object. It may also visit enumerable inherited
      // keys (a polluted Object.prototype), which JSON.stringify skips: that only raises the
      // bound, and a bound need not be tight.
      for (const key in record) {
        const item = record[key];
        if (key === 'toJSON' && typeof item === 'function') return -1;
        const bound = jsonByteBound(item, depth + 1);
        if (bound < 0 || !isWellFormed(key)) return -1;
        // quotes, colon and comma around the key
        total += key.length * 6 + 4 + bound;
      }
      return total;
    }
    case 'undefined':
      // nested: omitted, or `null` in an array; at the top it has no JSON form at all
      return depth === 0 ? -1 : 4;
    default:
      return -1;
  }
}
