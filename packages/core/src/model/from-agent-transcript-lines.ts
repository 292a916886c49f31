/**
 * What a Claude Code session file's or Agent SDK output's lines hold besides their messages, put
 * on the chat events made of them: the line's own fields, the time of its blocks, and whether a
 * user message is a subagent's prompt. See `unwrapAgentTranscript`.
 */
import { blockFieldsKey } from '../convert/block-fields.js';
import { isIsoTimestamp } from '../text/is-iso-timestamp.js';
import { isRecord } from '../validation/is-record.js';
import { formatIsoTimestamp } from './format-iso-timestamp.js';
import { reasoningPartText } from './reasoning-parts.js';

type JsonObject = Record<string, unknown>;

/**
 * Key of the block metadata that holds what a line of a Claude Code session file or Agent SDK
 * output holds besides its message (`uuid`, `parentUuid`, `sessionId`, `timestamp`, `cwd`,
 * `gitBranch`, `version`, `requestId`, `toolUseResult`, `isSidechain`, ...), on the first event
 * made of the line. @internal
 */
export const transcriptLineMetadataKey = 'transcript_line';

/**
 * Sets `key` of the block metadata the event's block gets (under `tracewarden`, as
 * `blocksToEvents` writes a block's metadata, so that it is no payload field and no policy reads
 * it). An event whose field of ours is no object (a user's) is left as it is.
 */
function setBlockMetadata(event: JsonObject, key: string, value: unknown): void {
  const current = event[blockFieldsKey];
  if (current !== undefined && !isRecord(current)) return;
  const metadata = isRecord(current?.metadata) ? current.metadata : {};
  event[blockFieldsKey] = { ...current, metadata: { ...metadata, [key]: value } };
}

/**
 * Keeps what a line holds besides its message on the (first) event made of it, in its block's
 * metadata as {@link transcriptLineMetadataKey}. @internal
 * @param event - the event, a copy of the caller's object
 * @param line - the line, `{ type, message, ... }`
 */
export function keepTranscriptLine(event: JsonObject, line: JsonObject): void {
  const { message: _message, ...fields } = line;
  setBlockMetadata(event, transcriptLineMetadataKey, fields);
}

/**
 * The time of a line, from its `timestamp` (an ISO 8601 date-time, as Claude Code writes it), in
 * milliseconds since the epoch; `undefined` without one. @internal
 */
export function lineTime(line: JsonObject): number | undefined {
  const timestamp = line.timestamp;
  if (typeof timestamp !== 'string' || !isIsoTimestamp(timestamp)) return undefined;
  const time = Date.parse(timestamp);
  return Number.isFinite(time) && time >= 0 ? time : undefined;
}

/**
 * A line's message, as the run reads it. A subagent's line (`isSidechain: true` in a Claude Code
 * session file; a `parent_tool_use_id` in the Agent SDK's output) is never the user's: its user
 * message is the prompt the main agent wrote for the subagent (or what came back to it), read as
 * the assistant's with `original_role: 'user'`, so that a policy does not take the words an
 * injected tool output put in the agent's mouth for the user asking. Its tool results stay tool
 * outputs. @internal
 * @param line - a line that wraps a message
 * @returns the message, or a copy with its role rewritten
 */
export function subagentMessage(line: { message: JsonObject } & JsonObject): JsonObject {
  const message = line.message;
  const subagent =
    line.isSidechain === true ||
    (typeof line.parent_tool_use_id === 'string' && line.parent_tool_use_id !== '');
  if (!subagent || message.role !== 'user') return message;
  return { ...message, role: 'assistant', original_role: 'user' };
}

/** Sets `created_at` under `tracewarden`, unless a time is there already or the field is not ours. */
function setTime(target: JsonObject, createdAt: string): void {
  const current = target[blockFieldsKey];
  if (current !== undefined && !isRecord(current)) return;
  if (current?.created_at !== undefined) return;
  target[blockFieldsKey] = { ...current, created_at: createdAt };
}

/**
 * The text of an assistant message's THINK block: its `reasoning_content`, or the text of its
 * reasoning parts (Anthropic's `thinking`) joined as `parseTrace` joins them into it.
 */
function reasoningOf(event: JsonObject): string | undefined {
  if (event.reasoning_content !== undefined)
    return typeof event.reasoning_content === 'string' && event.reasoning_content !== ''
      ? event.reasoning_content
      : undefined;
  if (event.role !== 'assistant' || !Array.isArray(event.content)) return undefined;
  const texts: string[] = [];
  for (const part of event.content) {
    const text = reasoningPartText(part);
    if (text !== undefined) texts.push(text);
  }
  return texts.length === 0 ? undefined : texts.join('\n\n');
}

/** How many blocks `eventsToBlocks` times for an event: it, its THINK block, its calls. */
function timedBlocks(event: unknown): number {
  if (!isRecord(event)) return 1;
  if (event.role === 'tool') return 1;
  const thinks = reasoningOf(event) === undefined ? 0 : 1;
  return 1 + thinks + (Array.isArray(event.tool_calls) ? event.tool_calls.length : 0);
}

/**
 * The events with the times of their blocks under `tracewarden` (`created_at` of the event, of
 * its THINK block and of each call), in the blocks' order (a message, its THINK, its calls):
 * each its line's time, or 1 ms after the block before when that one is not earlier (several
 * blocks of a line, lines written out of order), so that `created_at` increases strictly in the
 * file's order, as `eventsToBlocks`' own times do. Blocks before the first line with a time are
 * the milliseconds before it. Without any time, the events are returned as they are. @internal
 * @param events - the events, copies the caller may change
 * @param times - the time of each event's line, or `undefined`
 * @returns the events, timed
 */
export function timeTranscriptEvents(
  events: JsonObject[],
  times: readonly (number | undefined)[],
): JsonObject[] {
  let before = 0;
  let start: number | undefined;
  for (let k = 0; k < events.length && start === undefined; k++) {
    start = times[k];
    if (start === undefined) before += timedBlocks(events[k]);
  }
  if (start === undefined) return events;
  let clock = start - before - 1;
  const stamp = (time: number | undefined): string => {
    clock = time !== undefined && time > clock ? time : clock + 1;
    return formatIsoTimestamp(clock);
  };
  return events.map((original, k) => {
    const time = times[k];
    if (!isRecord(original)) {
      stamp(time);
      return original;
    }
    const event: JsonObject = { ...original };
    setTime(event, stamp(time));
    if (event.role === 'tool') return event;
    const reasoning = reasoningOf(event);
    if (reasoning !== undefined) {
      const createdAt = stamp(time);
      const fields = event[blockFieldsKey];
      if (isRecord(fields) && fields.thinks === undefined)
        event[blockFieldsKey] = {
          ...fields,
          thinks: [{ length: reasoning.length, created_at: createdAt }],
        };
    }
    if (Array.isArray(event.tool_calls)) {
      event.tool_calls = event.tool_calls.map((call: unknown) => {
        const createdAt = stamp(time);
        if (!isRecord(call)) return call;
        const timed: JsonObject = { ...call };
        setTime(timed, createdAt);
        return timed;
      });
    }
    return event;
  });
}
