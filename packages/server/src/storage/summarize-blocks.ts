import type { Block } from '@tracewarden/core';

/** What a batch of blocks adds to its trace's row in the traces list. @internal */
export interface BlocksSummary {
  count: number;
  /** Blocks whose `metadata.status` is a status other than `success`. */
  errors: number;
  /**
   * Sum of `metadata.cost` (the recorder's `cost_micro_usd` / `cost_usd`, or a USD number); a
   * block's cost outside 0 to a million USD is left out.
   */
  costMicroUsd: number;
  /**
   * Sum of the lengths of `metadata.violations` (a refused call's TOOL_RESULT, which repeats its
   * TOOL_CALL's, left out).
   */
  violations: number;
  /** The earliest user MESSAGE of the batch (by `created_at`, then `id`), as text. */
  firstUserMessage: { text: string; createdAt: string; blockId: string } | undefined;
}

/** Longest first user message kept in the traces list (the block itself keeps all of it). */
const maxPreviewCharacters = 500;

/**
 * Largest cost one block adds to its trace's total: a million USD, in micro-USD. A larger (or
 * negative) figure is no model call's price (micro-dollars sent as dollars, a bad counter): the
 * block keeps it, the total leaves it out, so the total stays exact and readable.
 */
const maxBlockCostMicroUsd = 1e12;

/**
 * Largest total kept for a trace: the largest integer a JavaScript number holds exactly (the
 * stores cap their sum there, so reading the row never fails).
 * @internal
 */
export const maxTraceCostMicroUsd = Number.MAX_SAFE_INTEGER;

function inRange(micro: number): number {
  return micro >= 0 && micro <= maxBlockCostMicroUsd ? micro : 0;
}

function costMicroUsd(metadata: Record<string, unknown>): number {
  const cost = metadata.cost ?? metadata.cost_usd;
  if (typeof cost === 'number' && Number.isFinite(cost)) return inRange(Math.round(cost * 1e6));
  if (typeof cost === 'object' && cost !== null) {
    const record = cost as Record<string, unknown>;
    if (typeof record.cost_micro_usd === 'number' && Number.isFinite(record.cost_micro_usd)) {
      return inRange(Math.round(record.cost_micro_usd));
    }
    if (typeof record.cost_usd === 'number' && Number.isFinite(record.cost_usd)) {
      return inRange(Math.round(record.cost_usd * 1e6));
    }
  }
  return 0;
}

/** The first characters of a text, never half of a surrogate pair (stored as U+FFFD). */
function preview(text: string): string {
  if (text.length <= maxPreviewCharacters) return text;
  const last = text.charCodeAt(maxPreviewCharacters - 1);
  // a high surrogate last: its pair is cut off, so leave it out too
  const end = last >= 0xd800 && last <= 0xdbff ? maxPreviewCharacters - 1 : maxPreviewCharacters;
  return text.slice(0, end);
}

/** Text of a message's content: a string, or its text parts joined. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      typeof part === 'object' && part !== null && typeof part.text === 'string' ? part.text : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}

/**
 * Whether block `a` comes before `b` in the seed's order (`created_at`, then `id`).
 * @internal
 */
export function isEarlier(
  a: { createdAt: string; blockId: string },
  b: { createdAt: string; blockId: string },
): boolean {
  const timeA = Date.parse(a.createdAt);
  const timeB = Date.parse(b.createdAt);
  if (timeA !== timeB && !Number.isNaN(timeA) && !Number.isNaN(timeB)) return timeA < timeB;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt;
  return a.blockId < b.blockId;
}

/**
 * Reads the list columns (status, cost, violations, first user message) from accepted blocks'
 * metadata, so listing traces never reads their blocks.
 * @internal
 */
export function summarizeBlocks(blocks: readonly Block[]): BlocksSummary {
  const summary: BlocksSummary = {
    count: blocks.length,
    errors: 0,
    costMicroUsd: 0,
    violations: 0,
    firstUserMessage: undefined,
  };
  for (const block of blocks) {
    const metadata = block.metadata;
    if (typeof metadata.status === 'string' && metadata.status !== 'success') summary.errors++;
    summary.costMicroUsd = Math.min(
      summary.costMicroUsd + costMicroUsd(metadata),
      maxTraceCostMicroUsd,
    );
    // a refused call's TOOL_RESULT repeats its TOOL_CALL's violations: counted once, there
    if (
      Array.isArray(metadata.violations) &&
      !(block.sub_type === 'TOOL_RESULT' && metadata.refused === true)
    )
      summary.violations += metadata.violations.length;
    if (block.sub_type === 'MESSAGE' && block.payload.role === 'user') {
      const candidate = { createdAt: block.created_at, blockId: block.id };
      const current = summary.firstUserMessage;
      if (current === undefined || isEarlier(candidate, current)) {
        summary.firstUserMessage = {
          ...candidate,
          text: preview(contentText(block.payload.content)),
        };
      }
    }
  }
  return summary;
}
