import { TraceError } from '../errors/index.js';

interface NativeBuffer {
  byteLength(value: string, encoding: 'utf8'): number;
}

// Node's Buffer.byteLength counts natively without allocating; only worth its call overhead on
// long strings. Absent outside Node, where the loop below is used for every length.
const nativeBuffer = (globalThis as { Buffer?: NativeBuffer }).Buffer;
const nativeThreshold = 2048;

/**
 * UTF-8 byte length of a string, counted from its UTF-16 code units. A lone surrogate counts 3
 * bytes, as the U+FFFD an encoder would write in its place.
 * @internal
 */
export function stringByteLength(value: string): number {
  const length = value.length;
  if (length > nativeThreshold && nativeBuffer !== undefined) {
    return nativeBuffer.byteLength(value, 'utf8');
  }
  let bytes = length;
  for (let i = 0; i < length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) {
      bytes += 1;
      continue;
    }
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        // a pair is 2 code units and 4 bytes
        bytes += 2;
        i++;
        continue;
      }
    }
    bytes += 2;
  }
  return bytes;
}

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
