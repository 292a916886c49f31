/**
 * Splits text into pieces of at most `size` code points (never inside a surrogate pair).
 *
 * @internal
 * @param text - Text to split.
 * @param size - Code points per piece, at least 1.
 * @returns The pieces; empty for empty text.
 */
export function splitIntoChunks(text: string, size: number): string[] {
  const codePoints = Array.from(text);
  const chunks: string[] = [];
  for (let start = 0; start < codePoints.length; start += size) {
    chunks.push(codePoints.slice(start, start + size).join(''));
  }
  return chunks;
}
