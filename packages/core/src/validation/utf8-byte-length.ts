import { TraceError } from '../errors/index.js';
import { stringByteLength } from '../text/string-byte-length.js';

/**
 * The UTF-8 byte length of a value as the byte limits count it (seed 002): a string counts the
 * bytes of the string itself, any other value the bytes of its `JSON.stringify` form. Values
 * without a JSON form (`undefined`, functions, symbols) count 0. A lone surrogate in a string
 * counts 3 bytes (the U+FFFD it would be encoded as); the validator rejects such strings.
 *
 * @param value - a string or any JSON-serialisable value
 * @returns the number of UTF-8 bytes
 * @throws {@link TraceError} `VALIDATION` when the value cannot be serialised (a cycle, a BigInt,
 *   nesting too deep for `JSON.stringify`)
 * @example
 * ```ts
 * utf8ByteLength('héllo'); // 6
 * utf8ByteLength({ city: 'bogotá' }); // 18, the bytes of {"city":"bogotá"}
 * ```
 */
export function utf8ByteLength(value: unknown): number {
  if (typeof value === 'string') return stringByteLength(value);
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (cause) {
    throw new TraceError({
      code: 'VALIDATION',
      message: `Cannot count the bytes of a value that JSON.stringify rejects (${cause instanceof Error ? cause.message : String(cause)}); pass JSON data: no cycles, no BigInt, no extreme nesting`,
      cause,
    });
  }
  return json === undefined ? 0 : stringByteLength(json);
}
