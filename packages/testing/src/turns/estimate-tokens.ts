/**
 * A rough, deterministic token count: one token per four characters, rounded up.
 *
 * @internal
 * @param text - Text to count.
 * @returns The estimated number of tokens; `0` for empty text.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
