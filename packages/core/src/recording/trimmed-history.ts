// A history trimmed from the front ("sliding window": each request sends the system prompt and
// the last N messages): the request's first messages are no continuation of any recorded prefix,
// yet they are the tail of the last request and its answer. Found here, they are not recorded
// again.
import { type ChainKey, messageStep, rootChainKey } from './message-fingerprint.js';
import { isSystemMessage } from './system-prompt-change.js';
import type { NeutralMessage } from './types.js';

/** What a request leaves for the next one to align a trimmed history against. @internal */
export interface LastRequest {
  /** Whether its first message is a system prompt. */
  startsWithSystem: boolean;
  /**
   * The chain key after each of its messages, then after its answer once recorded (keys are made
   * when a request is recorded: a history edited in place since then does not match them).
   */
  keys: ChainKey[];
}

/** Fewest messages a trimmed window must share with the last request's tail. */
const minimumOverlap = 2;

/**
 * Whether `message` is the last request's message at `at` (or its answer) re-sent: the same
 * chain key from the key before it (the key holds the role, the content and the tool calls).
 */
function isSentAt(last: LastRequest, at: number, message: NeutralMessage): boolean {
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
  if (!isSystemMessage(messages[0])) return !last.startsWithSystem;
  const own = keys[0];
  const kept = last.keys[0];
  return (
    last.startsWithSystem &&
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
  const length = last.keys.length;
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
