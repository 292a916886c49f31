// A history trimmed from the front ("sliding window": each request sends the system prompt and
// the last N messages): the request's first messages are no continuation of any recorded prefix,
// yet they are the tail of the last request and its answer. Found here, they are not recorded
// again.
import { type ChainKey, messageStep, rootChainKey } from './message-fingerprint.js';
import type { NeutralMessage } from './types.js';

/** What a request leaves for the next one to align a trimmed history against. @internal */
export interface LastRequest {
  /**
   * The role of each of the request's messages as it was sent, then `assistant` for its answer
   * once recorded (a snapshot: a history edited in place must not match its old self).
   */
  roles: unknown[];
  /** The chain key after each (`keys[i]` after the `i`th). */
  keys: ChainKey[];
}

/** Fewest messages a trimmed window must share with the last request's tail. */
const minimumOverlap = 2;

const roleOf = (message: NeutralMessage): unknown =>
  message.role === 'developer' ? 'system' : message.role;

/**
 * Whether `message` is the last request's message at `at` (or its answer) re-sent: the same
 * chain key from the key before it (keys are made when a request is recorded, so a message
 * edited in place since then does not match).
 */
function isSentAt(last: LastRequest, at: number, message: NeutralMessage): boolean {
  if (last.roles[at] !== roleOf(message)) return false;
  const key = messageStep(at === 0 ? rootChainKey : (last.keys[at - 1] as ChainKey), message).key;
  const kept = last.keys[at] as ChainKey;
  return key.a === kept.a && key.b === kept.b;
}

/**
 * Whether a request and the last one share their start: the same system prompt (the first
 * message's key), or neither starts with one. A request under another system prompt is
 * `linkHistory`'s.
 * @param keys - the keys of the request's messages walked so far
 * @internal
 */
export function sameSystemPrompt(
  last: LastRequest,
  keys: readonly ChainKey[],
  messages: readonly NeutralMessage[],
): boolean {
  const first = messages[0];
  const lastFirstIsSystem = last.roles[0] === 'system';
  if (first === undefined || roleOf(first) !== 'system') return !lastFirstIsSystem;
  const own = keys[0];
  const kept = last.keys[0];
  return (
    lastFirstIsSystem &&
    own !== undefined &&
    kept !== undefined &&
    own.a === kept.a &&
    own.b === kept.b
  );
}

/**
 * Where a request's messages from `index` on repeat the last request's tail: the first position
 * `from` in the last request (its answer included) such that everything from there to its end
 * (at least two messages) is what `messages[index..]` starts with. The caller goes on from the
 * key after the last of them.
 * @returns `from` and how many messages matched, else `undefined`
 * @internal
 */
export function alignTrimmedHistory(
  last: LastRequest,
  messages: readonly NeutralMessage[],
  index: number,
): { from: number; count: number } | undefined {
  const length = last.roles.length;
  const first = messages[index] as NeutralMessage;
  for (let from = 0; from <= length - minimumOverlap; from++) {
    const count = length - from;
    if (index + count > messages.length || !isSentAt(last, from, first)) continue;
    let matched = 1;
    while (
      matched < count &&
      isSentAt(last, from + matched, messages[index + matched] as NeutralMessage)
    )
      matched++;
    if (matched === count) return { from, count };
  }
  return undefined;
}
