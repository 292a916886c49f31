/**
 * Claude Code's session files (`~/.claude/projects/<project>/<session>.jsonl`) and the Claude
 * Agent SDK's `stream-json` output hold a run as lines that wrap each API message:
 * `{ type: 'user' | 'assistant', message: { role, content }, uuid, sessionId, timestamp, ... }`,
 * beside lines about the session (`{ type: 'summary' }`, `{ type: 'file-history-snapshot' }`,
 * `{ type: 'system', subtype }`, `{ type: 'result' }`, ...). The messages are Anthropic's, read
 * as such once unwrapped; what the lines hold besides them is kept in the blocks' metadata.
 */
import { isRecord } from '../validation/is-record.js';
import {
  keepTranscriptLine,
  lineTime,
  subagentMessage,
  timeTranscriptEvents,
} from './from-agent-transcript-lines.js';
import { type ChatEventConversion, convertAnthropicMessages } from './from-anthropic-messages.js';
import { keepInBlockMetadata } from './reasoning-items.js';

type JsonObject = Record<string, unknown>;

/**
 * Key of the block metadata that holds the lines about the session (a summary, a file history
 * snapshot, a system or progress line, ...) that came before an event's line, as they are, in
 * order; those after the last message are on the last event.
 */
export const transcriptRecordsMetadataKey = 'transcript_records';

/**
 * Claude Code's line types that are about the session and carry none of the ids
 * {@link isTranscriptMetaLine} looks for (a file history snapshot names only the message it
 * belongs to), or that need no id to be told apart: names no other format gives a record.
 */
const sessionLineTypes = new Set([
  'file-history-snapshot',
  'queue-operation',
  'custom-title',
  'ai-title',
  'agent-name',
  'agent-setting',
  'last-prompt',
  'permission-mode',
  'pr-link',
  'bridge-session',
  'worktree-state',
]);

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
 * message: no `role` and no `message`, and a `type` (not `user` nor `assistant`, whose lines
 * wrap a message) that is one of Claude Code's (a `file-history-snapshot`, a `queue-operation`, a
 * `custom-title`, ...) or any `type` beside the session's or the line's id (`sessionId`,
 * `session_id`, `uuid`, `leafUuid`).
 * @param value - a line as read
 * @returns true for such a line
 * @example
 * ```ts
 * isTranscriptMetaLine({ type: 'summary', summary: 'Fix the build', leafUuid: 'u1' }); // true
 * isTranscriptMetaLine({ type: 'file-history-snapshot', messageId: 'u1', snapshot: {} }); // true
 * ```
 */
export function isTranscriptMetaLine(value: unknown): boolean {
  return (
    isTranscriptRecord(value) &&
    (sessionLineTypes.has(value.type as string) ||
      typeof value.sessionId === 'string' ||
      typeof value.session_id === 'string' ||
      typeof value.uuid === 'string' ||
      typeof value.leafUuid === 'string')
  );
}

/**
 * A line of a transcript that is no message: a record with a `type` and neither `role` nor
 * `message`. Among a transcript's lines, one of a type this reader does not know (a newer Claude
 * Code's) is about the session too. A `user` or `assistant` line without its message is a broken
 * message line, kept to be reported, never left out in silence.
 */
function isTranscriptRecord(value: unknown): value is JsonObject {
  return (
    isRecord(value) &&
    value.role === undefined &&
    value.message === undefined &&
    typeof value.type === 'string' &&
    value.type !== 'user' &&
    value.type !== 'assistant'
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
 * The chat events of a Claude Code session file or Agent SDK `stream-json` output, with the line
 * each came from. All the lines are one run, whatever their `sessionId` (a resumed session's
 * file goes on under a new one):
 * - each `{ type, message }` line becomes its `message`, read as an Anthropic run
 *   (`convertAnthropicMessages`: `tool_use` parts become calls, `tool_result` parts outputs);
 * - what the line holds besides it (`uuid`, `parentUuid`, `sessionId`, `timestamp`, `cwd`,
 *   `gitBranch`, `version`, `requestId`, `toolUseResult`, `isSidechain`, ...) rides on the first
 *   event made of it, in its block's metadata as `transcript_line`;
 * - a line's `timestamp` is the `created_at` of the blocks made of it (under `tracewarden`), 1 ms
 *   after the block before when that one is not earlier, so that blocks keep the file's order;
 *   without any timestamp, blocks are timed as `eventsToBlocks` times them;
 * - a subagent's lines (`isSidechain: true`; in the Agent SDK's output, a `parent_tool_use_id`)
 *   are never the user's words: the prompt the main agent wrote for it, a user message, is read
 *   as the assistant's (`original_role: 'user'`), so that policies do not take it for the user
 *   asking;
 * - the lines about the session (a summary, a file history snapshot, a system or progress line,
 *   a line of a type not known here) are no events: they ride, as they are, on the next event's
 *   block metadata as `transcript_records` (those at the end on the last event).
 *
 * Other values are kept as events, to be read (or reported) as such.
 * @param events - the lines as read
 * @returns the chat events and their lines' positions
 * @example
 * ```ts
 * const { events, sources } = unwrapAgentTranscript(lines);
 * events[0]; // { role: 'user', content: '...', tracewarden: { created_at: '2025-...', metadata: { transcript_line: { uuid, ... } } } }
 * ```
 */
export function unwrapAgentTranscript(events: readonly unknown[]): ChatEventConversion {
  const messages: JsonObject[] = [];
  const lines: number[] = [];
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    if (isWrappedMessage(event)) {
      messages.push(subagentMessage(event));
      lines.push(i);
    } else if (!isTranscriptRecord(event)) {
      messages.push(event as JsonObject);
      lines.push(i);
    }
  }
  const converted = convertAnthropicMessages(messages, undefined);
  const out: ChatEventConversion = { events: [], sources: [] };
  // the lines about the session not yet on an event, and the next line to look at for them
  let records: JsonObject[] = [];
  let next = 0;
  const collect = (end: number) => {
    for (; next < end; next++) {
      const line = events[next];
      if (isTranscriptRecord(line)) records.push(line);
    }
  };
  for (let k = 0; k < converted.events.length; k++) {
    const line = lines[converted.sources[k] as number] as number;
    const original = converted.events[k] as JsonObject;
    // the first event made of a line: the lines about the session before it, its line's fields
    const first = line >= next;
    collect(line);
    next = line + 1;
    const wrapped = events[line];
    if (!first || !isRecord(original) || (records.length === 0 && !isWrappedMessage(wrapped))) {
      out.events.push(original);
      out.sources.push(line);
      continue;
    }
    const event: JsonObject = { ...original };
    if (isWrappedMessage(wrapped)) keepTranscriptLine(event, wrapped);
    if (records.length > 0 && keepInBlockMetadata(event, transcriptRecordsMetadataKey, records))
      records = [];
    out.events.push(event);
    out.sources.push(line);
  }
  collect(events.length);
  const last = out.events.length - 1;
  if (records.length > 0 && last >= 0 && isRecord(out.events[last])) {
    const event: JsonObject = { ...out.events[last] };
    if (keepInBlockMetadata(event, transcriptRecordsMetadataKey, records)) out.events[last] = event;
  }
  const times = out.sources.map((line) => {
    const wrapped = events[line];
    return isWrappedMessage(wrapped) ? lineTime(wrapped) : undefined;
  });
  return { events: timeTranscriptEvents(out.events, times), sources: out.sources };
}
