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
