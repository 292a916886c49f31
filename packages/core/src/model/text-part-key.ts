/**
 * @internal Marks a text part that {@link parseTrace} rewrote from AgentDojo's
 * `{ type: 'text', content: '...' }` to `{ type: 'text', text: '...' }`: the value is the key its
 * text had in the input. Not enumerable, so the part reads, compares and serialises as the
 * normalised part it is; addresses use it to point into the trace as the user gave it.
 */
export const ORIGINAL_TEXT_KEY: unique symbol = Symbol.for('tracewarden.original-text-key');

/**
 * @internal Records on a normalised text part the key its text had in the input.
 * @param part - the normalised part (`{ type: 'text', text }`)
 * @param key - the input's key for the text (`'content'`)
 * @returns the same part
 */
export function markTextPartKey<T extends object>(part: T, key: string): T {
  Object.defineProperty(part, ORIGINAL_TEXT_KEY, { value: key, enumerable: false });
  return part;
}

/**
 * @internal The key of a text part's text in the trace as given: `text`, or `content` for a part
 * {@link parseTrace} read from AgentDojo's shape. Addresses of the text use it
 * (`3.content.0.content:12-40`), so they name a field the user's file has.
 * @param part - a content part
 * @returns the key to write in an address
 * @example
 * ```ts
 * const trace = parseTrace([{ role: 'tool', content: [{ type: 'text', content: 'hi' }] }]);
 * textPartKey((trace[0] as { content: object[] }).content[0]); // 'content'
 * ```
 */
export function textPartKey(part: unknown): string {
  if (typeof part !== 'object' || part === null) return 'text';
  const key = (part as { [ORIGINAL_TEXT_KEY]?: unknown })[ORIGINAL_TEXT_KEY];
  return typeof key === 'string' ? key : 'text';
}
