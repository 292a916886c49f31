import type { Block, Trace, TraceError } from '@tracewarden/core';

/** Where a block `eventsToBlocks` made comes from: its event, its address (`3.tool_calls.0`). */
export interface BlockOrigin {
  event: number;
  address: string;
  block: Block;
}

/**
 * Whether an event has no content: absent, `null` or `""`, as seeds 000/003 allow on every event
 * (`content: Optional[str]`: any string, the empty one included), or an empty list of parts,
 * while a system or user MESSAGE block needs some (seed 002). Real chat logs hold all four (an
 * empty user turn, a turn whose only part was an attachment left out).
 */
function hasNoContent(content: unknown): boolean {
  return (
    content === undefined ||
    content === null ||
    content === '' ||
    (Array.isArray(content) && content.every(isEmptyTextPart))
  );
}

/** A text part without text (`""`, `null` or none): a list of only these holds no content. */
function isEmptyTextPart(part: unknown): boolean {
  if (typeof part !== 'object' || part === null) return false;
  const { type, text } = part as { type?: unknown; text?: unknown };
  return type === 'text' && (text === '' || text === null || text === undefined);
}

function describeContent(content: unknown): string {
  if (content === undefined) return 'no content field';
  if (content === null) return 'content null';
  if (content === '') return 'content ""';
  return Array.isArray(content) && content.length > 0
    ? 'only text parts without text'
    : 'content []';
}

/**
 * Whether a `validateBlocks` error on a chat event's blocks is only seed 002's "non-empty
 * content" rule of MESSAGE blocks, met by an event without content: a rule of blocks, not of
 * events (seeds 000/003), so a problem only when the events are to become blocks.
 * Constant time: the error's code and field are tested before its block is read.
 *
 * @param error - an error of `validateBlocks`
 * @param origin - the error's block and its event, when known
 * @returns whether the error is an event's missing content
 */
export function isMissingEventContent(
  error: TraceError,
  origin: BlockOrigin | undefined,
): origin is BlockOrigin {
  if (error.code !== 'VALIDATION' || error.details.field !== 'content') return false;
  const block = origin?.block;
  return block?.sub_type === 'MESSAGE' && hasNoContent(block.payload.content);
}

/**
 * The message of a system or user event without content that is to become a MESSAGE block.
 *
 * @param index - the event's position in its trace
 * @param event - the event
 * @returns the message, naming the event and the seed-002 rule
 */
export function missingEventContentMessage(
  index: number,
  event: Trace[number] | undefined,
): string {
  return `event ${index} (role ${JSON.stringify(event?.role)}) has no content (${describeContent(event?.content)}), which a chat event may have (seeds 000, 003), but a seed-002 MESSAGE block needs non-empty content for a system or user message: it cannot be converted to blocks; give it content, or convert --to events`;
}
