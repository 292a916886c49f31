/**
 * A bounded cache keyed by texts (oldest entries dropped first), safe for long texts.
 *
 * Why not a plain `Map<string, V>`: V8 hashes a string of more than 16,383 characters by its
 * length alone, so every long text of one length lands in one bucket and each lookup compares
 * the texts there character by character. A detector that caches the tool outputs of an agent
 * loop then spends milliseconds per call comparing 30 KB outputs of equal length
 * (bench/detection.bench.ts, "one new 30 KB output": this key took two lookups from about 3 ms
 * each to microseconds). Long texts are keyed here by their length and a hash of their
 * characters instead, and confirmed by comparison.
 * @internal
 */
export interface TextCache<V> {
  /** The value cached for `text`, or `undefined`. */
  get(text: string): V | undefined;
  /** Caches `value` for `text`, dropping the oldest entry when full. */
  set(text: string, value: V): void;
}

// V8's String::kMaxHashCalcLength: longer strings are hashed by their length only
const FULLY_HASHED = 16_383;

// characters hashed at each end of a long text, and the stride of the sample in between
const ENDS = 2048;
const STRIDE = 31;

/**
 * FNV-1a over both ends of the text and a sample of its middle; a string key of it is hashed
 * in full by V8. Texts that differ only between sampled characters share a key and are told
 * apart by comparison.
 */
function keyOf(text: string): string {
  let hash = 0x811c9dc5;
  const n = text.length;
  for (let i = 0; i < n; i += i < ENDS || i >= n - ENDS ? 1 : STRIDE) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return `${n}:${hash >>> 0}`;
}

/**
 * @param size - the number of entries kept
 * @returns an empty cache
 * @internal
 */
export function createTextCache<V>(size: number): TextCache<V> {
  const short = new Map<string, V>();
  const long = new Map<string, { text: string; value: V }>();
  // the last long text looked up and its key: a policy asks about the same output several times
  let lastText: string | undefined;
  let lastKey = '';
  const longKey = (text: string): string => {
    if (text !== lastText || lastText === undefined) {
      lastKey = keyOf(text);
      lastText = text;
    }
    return lastKey;
  };
  return {
    get(text) {
      if (text.length <= FULLY_HASHED) return short.get(text);
      const entry = long.get(longKey(text));
      return entry !== undefined && entry.text === text ? entry.value : undefined;
    },
    set(text, value) {
      if (text.length <= FULLY_HASHED) {
        if (short.size >= size) short.delete(short.keys().next().value as string);
        short.set(text, value);
        return;
      }
      if (long.size >= size) long.delete(long.keys().next().value as string);
      long.set(longKey(text), { text, value });
    },
  };
}
