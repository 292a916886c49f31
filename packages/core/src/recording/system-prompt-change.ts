import { type ChainKey, messageStep } from './message-fingerprint.js';
import type { TracerState } from './tracer-state.js';
import type { NeutralMessage } from './types.js';

/*
 * A conversation whose system prompt changes from one request to the next (it carries the
 * current time, the user's latest settings, a retrieved memory): the prefix chain starts at the
 * system message, so every later message would look new and the whole history would be recorded
 * again on every call. Each conversation of the trace keeps the chain key after its latest
 * system prompt; a request whose own chain stops short looks for its history after those, and
 * goes on there under its new system prompt when exactly one conversation holds the most of it.
 */

/** Most conversations whose latest system prompt a trace remembers (oldest forgotten first). */
export const maxSystemRoots = 16;

/** Whether a message is a system prompt (`developer` counts as one, as in fingerprints). */
export function isSystemMessage(message: NeutralMessage | undefined): boolean {
  return message?.role === 'system' || message?.role === 'developer';
}

/** Remembers a new conversation's system prompt (the chain key after it). */
export function rememberSystemRoot(state: TracerState, key: ChainKey): void {
  const roots = (state.systemRoots ??= []);
  for (const root of roots) if (root.a === key.a && root.b === key.b) return;
  roots.push(key);
  if (roots.length > maxSystemRoots) roots.shift();
}

/** A conversation goes on under another system prompt: its latest one is now `to`. */
export function moveSystemRoot(state: TracerState, from: ChainKey, to: ChainKey): void {
  const roots = (state.systemRoots ??= []);
  const at = roots.indexOf(from);
  if (at >= 0) roots.splice(at, 1);
  const known = roots.findIndex((root) => root.a === to.a && root.b === to.b);
  if (known >= 0) roots.splice(known, 1);
  roots.push(to);
  if (roots.length > maxSystemRoots) roots.shift();
}

/**
 * Whether another system prompt's history may cover more of the request than its own chain
 * does (`matched` messages): only when an assistant turn follows, a recorded answer. A request
 * that goes on its own conversation adds user messages and tool outputs, never an answer, so
 * this costs a scan of the new messages, not a walk per conversation.
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
 * The conversation of the trace this request goes on, when its system prompt is not the one the
 * history was recorded after (its own chain covers only `matched` messages; 0 for a prompt new
 * to the trace): the one after whose latest system prompt the most of the request's history (up
 * to its last assistant turn) was recorded, provided it includes an answer. Two
 * conversations that hold as much of it (the same opening, the same answers) cannot be told
 * apart: then none, and the request is recorded as before. One walk per conversation, each
 * ending at the first message it did not record.
 * @param state - the trace's recording state
 * @param messages - the request, starting with a system message
 * @param matched - how many of its messages its own chain covers
 * @returns that conversation's latest system prompt (chain key) and how many of the request's
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
  // The history is what the model answered: up to the request's last assistant turn. What
  // follows is this request's own input (a user message, tool outputs), which another
  // conversation may have sent too: it tells nothing about whose history this is.
  let end = messages.length;
  while (end > 1 && (messages[end - 1] as NeutralMessage).role !== 'assistant') end--;
  let best: { root: ChainKey; covered: number } | undefined;
  let tied = false;
  for (let r = roots.length - 1; r >= 0; r--) {
    const root = roots[r] as ChainKey;
    let key = root;
    let index = 1;
    let answered = false;
    for (; index < end; index++) {
      const message = messages[index] as NeutralMessage;
      const next = messageStep(key, message).key;
      if (!state.prefixes.has(next.a, next.b)) break;
      key = next;
      if (message.role === 'assistant') answered = true;
    }
    if (!answered || index <= matched) continue;
    if (best === undefined || index > best.covered) {
      best = { root, covered: index };
      tied = false;
    } else if (index === best.covered) tied = true;
  }
  return tied ? undefined : best;
}

/**
 * Makes a history found after another system prompt known after this request's own too: the
 * prefixes of the request's messages from `from` up to what that history covers, on the
 * request's chain (`key` is its key after its first `from` messages; with `from` 0, its system
 * message is added first), and the ids its turns' calls are recorded under.
 * @internal
 */
export function linkHistory(
  state: TracerState,
  messages: readonly NeutralMessage[],
  from: number,
  key: ChainKey,
  earlier: { root: ChainKey; covered: number },
): void {
  let index = from;
  if (index === 0) {
    key = messageStep(key, messages[0] as NeutralMessage).key;
    state.prefixes.add(key.a, key.b);
    index = 1;
  }
  let before = earlier.root;
  for (let i = 1; i < index; i++) before = messageStep(before, messages[i] as NeutralMessage).key;
  for (; index < earlier.covered; index++) {
    const message = messages[index] as NeutralMessage;
    before = messageStep(before, message).key;
    key = messageStep(key, message).key;
    state.prefixes.add(key.a, key.b);
    if (message.tool_calls !== undefined && message.tool_calls.length > 0) {
      const ids = state.turnCalls.get(before.a, before.b);
      if (ids !== undefined) state.turnCalls.set(key.a, key.b, ids);
    }
  }
}
