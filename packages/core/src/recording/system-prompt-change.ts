import { type ChainKey, messageStep } from './message-fingerprint.js';
import type { TracerState } from './tracer-state.js';
import type { NeutralMessage } from './types.js';

/*
 * A conversation whose system prompt changes from one request to the next (it carries the
 * current time, the user's latest settings, a retrieved memory): the prefix chain starts at the
 * system message, so every later message would look new and the whole history would be recorded
 * again on every call. The rest of the request is looked for after the system prompts recorded
 * before; the conversation goes on there, under its new system prompt.
 */

/** Most leading system messages remembered per trace (oldest forgotten first). */
export const maxSystemRoots = 16;

/** Whether a message is a system prompt (`developer` counts as one, as in fingerprints). */
export function isSystemMessage(message: NeutralMessage | undefined): boolean {
  return message?.role === 'system' || message?.role === 'developer';
}

/** Remembers the chain key after a request's leading system message. */
export function rememberSystemRoot(state: TracerState, key: ChainKey): void {
  const roots = (state.systemRoots ??= []);
  for (const root of roots) if (root.a === key.a && root.b === key.b) return;
  roots.push(key);
  if (roots.length > maxSystemRoots) roots.shift();
}

/**
 * Whether another system prompt's history may cover more of the request than its own chain
 * does (`matched` messages): only when an assistant turn follows, a recorded answer. A request
 * that goes on its own conversation adds user messages and tool outputs, never an answer, so
 * this costs a scan of the new messages, not a walk per system prompt.
 * @internal
 */
export function mayFollowOtherSystem(
  messages: readonly NeutralMessage[],
  matched: number,
): boolean {
  if (!isSystemMessage(messages[0])) return false;
  for (let i = Math.max(matched, 1); i < messages.length; i++)
    if ((messages[i] as NeutralMessage).role === 'assistant') return true;
  return false;
}

/**
 * The earlier system prompt this request's history was recorded after, when the request's own
 * system prompt covers less of it (`matched` messages; 0 when the prompt is new to the trace):
 * the one after which the most of the request's later messages were recorded, provided they
 * include an assistant turn (a model's recorded answer: the same conversation, not another one
 * that opened with the same user message).
 * @param state - the trace's recording state
 * @param messages - the request, starting with a system message
 * @param matched - how many of its messages its own chain covers
 * @returns the chain key after that earlier system message and how many of the request's
 *   messages (the system message included) its history covers, or `undefined`
 * @internal
 */
export function historyUnderEarlierSystem(
  state: TracerState,
  messages: readonly NeutralMessage[],
  matched: number,
): { root: ChainKey; covered: number } | undefined {
  const roots = state.systemRoots;
  if (roots === undefined) return undefined;
  let best: { root: ChainKey; covered: number } | undefined;
  // the latest system prompt first: a conversation usually goes on after its last one
  for (let r = roots.length - 1; r >= 0; r--) {
    const root = roots[r] as ChainKey;
    let key = root;
    let index = 1;
    let answered = false;
    for (; index < messages.length; index++) {
      const message = messages[index] as NeutralMessage;
      const next = messageStep(key, message).key;
      if (!state.prefixes.has(next.a, next.b)) break;
      key = next;
      if (message.role === 'assistant') answered = true;
    }
    if (answered && index > matched && (best === undefined || index > best.covered))
      best = { root, covered: index };
  }
  return best;
}
