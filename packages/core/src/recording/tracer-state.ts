import type { Tracer } from '../tracing/types.js';
import { type ChainKey, PairSet } from './message-fingerprint.js';
import type { NeutralMessage } from './types.js';

/*
 * What recording remembers per tracer, shared by every recorder (and every adapter) writing to
 * it: the conversation prefixes, responses and tool results already recorded.
 * @internal
 */

/** What the recorder remembers per tracer (shared by every recorder writing to it). */
export interface TracerState {
  /** Chain keys of every conversation prefix recorded. */
  prefixes: PairSet;
  /** Hashes of the fingerprints of recorded responses: never re-recorded when re-sent. */
  responses: PairSet;
  /** Call ids whose result is recorded. */
  results: Set<string>;
  /** How many tracer blocks were scanned for results recorded by others. */
  scanned: number;
  /**
   * The leading messages of the last request whose key depends only on fields compared here
   * (string or no content, no tool calls: `messageStep`'s rule), with those fields and the key
   * after each. A history re-sent as the same objects is matched by identity, without a memo
   * lookup or a prefix lookup per message.
   */
  sent: SentMessage[];
}

/** One message of the last request, as {@link TracerState.sent} keeps it. */
export interface SentMessage {
  message: NeutralMessage;
  role: unknown;
  content: unknown;
  toolCallId: unknown;
  /** The chain key of the conversation up to and including this message (among the prefixes). */
  key: ChainKey;
}

/** Whether a message's key depends only on its role, string content and tool call id. */
export function keyedByFields(message: NeutralMessage): boolean {
  const content = message.content;
  return (
    (typeof content === 'string' || content === null || content === undefined) &&
    (message.tool_calls === undefined || message.tool_calls.length === 0)
  );
}

/** Remembers the request's next message and the key after it. */
export function rememberSent(sent: SentMessage[], message: NeutralMessage, key: ChainKey): void {
  sent.push({
    message,
    role: message.role,
    content: message.content,
    toolCallId: message.tool_call_id,
    key,
  });
}

const states = new WeakMap<Tracer, TracerState>();

export function stateOf(tracer: Tracer): TracerState {
  let state = states.get(tracer);
  if (state === undefined) {
    state = {
      prefixes: new PairSet(),
      responses: new PairSet(),
      results: new Set(),
      scanned: 0,
      sent: [],
    };
    states.set(tracer, state);
  }
  return state;
}

/**
 * Whether the result of `callId` is recorded in `tracer` (by a recorder, or by anyone else, e.g.
 * a guarded tool: the tracer's new blocks are scanned once).
 */
export function hasResult(tracer: Tracer, state: TracerState, callId: string): boolean {
  if (state.results.has(callId)) return true;
  const blocks = tracer.blocks();
  for (let i = state.scanned; i < blocks.length; i++) {
    const block = blocks[i];
    if (block?.sub_type === 'TOOL_RESULT') state.results.add(block.payload.call_id);
  }
  state.scanned = blocks.length;
  return state.results.has(callId);
}
