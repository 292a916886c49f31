/**
 * Claude Code's session files (`~/.claude/projects/<project>/<session>.jsonl`) and the Claude
 * Agent SDK's `stream-json` output hold a run as lines that wrap each API message:
 * `{ type: 'user' | 'assistant', message: { role, content }, uuid, sessionId, ... }`, beside
 * lines about the session (`{ type: 'summary' }`, `{ type: 'system', subtype: 'init' }`,
 * `{ type: 'result' }`). The messages are Anthropic's, read as such once unwrapped.
 */
import { isRecord } from '../validation/is-record.js';
import type { ChatEventConversion } from './from-anthropic-messages.js';

type JsonObject = Record<string, unknown>;

/**
 * Whether a line wraps a message, as Claude Code's session files and the Agent SDK's output do:
 * `{ type: 'assistant', message: { role, content } }`.
 * @param value - a line as read
 * @returns true for such a line
 * @example
 * ```ts
 * isWrappedMessage({ type: 'user', message: { role: 'user', content: 'hi' } }); // true
 * ```
 */
export function isWrappedMessage(value: unknown): value is { message: JsonObject } {
  return (
    isRecord(value) &&
    value.role === undefined &&
    (value.type === 'user' || value.type === 'assistant' || value.type === 'system') &&
    isRecord(value.message) &&
    typeof value.message.role === 'string'
  );
}

/**
 * Whether a line of a Claude Code session file or Agent SDK output is about the session, not a
 * message: a `type` and the session's or the line's id (`sessionId`, `session_id`, `uuid`,
 * `leafUuid`), no `role` and no `message`.
 * @param value - a line as read
 * @returns true for such a line
 * @example
 * ```ts
 * isTranscriptMetaLine({ type: 'summary', summary: 'Fix the build', leafUuid: 'u1' }); // true
 * ```
 */
export function isTranscriptMetaLine(value: unknown): boolean {
  return (
    isRecord(value) &&
    value.role === undefined &&
    value.message === undefined &&
    typeof value.type === 'string' &&
    (typeof value.sessionId === 'string' ||
      typeof value.session_id === 'string' ||
      typeof value.uuid === 'string' ||
      typeof value.leafUuid === 'string')
  );
}

/**
 * Whether events are the lines of a Claude Code session file or Agent SDK `stream-json` output:
 * some line wraps a message (`{ type: 'assistant', message: { role, content } }`).
 * @param events - a trace's events as read
 * @returns true when {@link unwrapAgentTranscript} would change them
 * @example
 * ```ts
 * hasAgentTranscriptLines([{ type: 'user', message: { role: 'user', content: 'hi' } }]); // true
 * ```
 */
export function hasAgentTranscriptLines(events: readonly unknown[]): boolean {
  return events.some(isWrappedMessage);
}

/**
 * The messages of a Claude Code session file or Agent SDK `stream-json` output, unwrapped, with
 * the line each came from: each `{ type, message }` line becomes its `message`, and the lines
 * about the session (a summary, the `init` and `result` lines) are left out. Other values are
 * kept. The messages are in Anthropic's shape: `convertToChatEvents` rewrites them next.
 * @param events - the lines as read
 * @returns the messages and their lines' positions
 * @example
 * ```ts
 * unwrapAgentTranscript(lines).events[0]; // { role: 'user', content: '...' }
 * ```
 */
export function unwrapAgentTranscript(events: readonly unknown[]): ChatEventConversion {
  const out: ChatEventConversion = { events: [], sources: [] };
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    if (isWrappedMessage(event)) {
      out.events.push(event.message);
      out.sources.push(i);
    } else if (!isTranscriptMetaLine(event)) {
      out.events.push(event as JsonObject);
      out.sources.push(i);
    }
  }
  return out;
}
