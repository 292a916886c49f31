/**
 * Whether `value` comes after `other` in shortlex order: a longer string comes later, and
 * strings of one length compare by UTF-16 code units. A total order, as `>` is, so a key after
 * every key entered so far is new without a lookup. Unlike `>`, it also rises along counters
 * written without zero padding (`call_9` before `call_10`, as in parseTrace's
 * `call_<event>_<call>`); along keys of one length (ULIDs, padded counters) it is `>`.
 * @internal
 */
export function isAfterInShortlex(value: string, other: string): boolean {
  const length = value.length;
  const otherLength = other.length;
  return length > otherLength || (length === otherLength && value > other);
}
