import type {
  Block,
  MessageBlock,
  ThinkBlock,
  ToolCallBlock,
  ToolResultBlock,
} from '../model/index.js';
import { assembleToolOutput } from './assemble-tool-output.js';
import { compareBlocks, compareSequencedBlocks } from './compare-blocks.js';
import type { StitchedMessage, StitchedToolCall, StitchedTrace } from './types.js';

/** Options of {@link stitchBlocks}. */
export interface StitchBlocksOptions {
  /**
   * The trace to stitch; blocks of other traces are ignored.
   * @default the `trace_id` of the first block
   */
  traceId?: string;
}

function compareMessageNodes(a: StitchedMessage, b: StitchedMessage): number {
  return compareBlocks(a.block, b.block);
}

function compareCallNodes(a: StitchedToolCall, b: StitchedToolCall): number {
  return compareSequencedBlocks(a.block, b.block);
}

// Input is usually already in order (blocks are written as they happen): check in O(n) first.
function sortIfNeeded<T>(items: T[], compare: (a: T, b: T) => number): void {
  for (let i = 1; i < items.length; i++) {
    if (compare(items[i - 1] as T, items[i] as T) > 0) {
      items.sort(compare);
      return;
    }
  }
}

// With duplicate ids (invalid input) the block that sorts first owns the children, whatever
// the input order.
function register<T extends { block: Block }>(index: Map<string, T>, node: T): void {
  const id = node.block.id;
  const existing = index.get(id);
  if (existing === undefined || compareBlocks(node.block, existing.block) < 0) index.set(id, node);
}

/**
 * Builds the seed's stitched tree of one trace from its blocks, in any order.
 *
 * Each root MESSAGE holds its THINK blocks (by `created_at`, then `id`) and its TOOL_CALL nodes;
 * each TOOL_CALL node holds its TOOL_RESULT blocks and, when it has results, the assembled
 * `output` (see {@link assembleToolOutput}). Calls and results are ordered by `payload.seq`
 * (missing last), then `created_at`, then `id`; root messages by `created_at`, then `id`.
 * Calls whose parent is missing or not a MESSAGE go to `orphans.tool_calls`, results whose
 * parent call is missing to `orphans.tool_results`, thinks without a MESSAGE parent to
 * `orphans.thinks` (only present when non-empty). The same blocks in any order give the same
 * tree. Blocks straight from `JSON.parse` (missing `metadata` and the like) are accepted.
 * Linear in the number of blocks apart from sorting sibling groups that are out of order.
 *
 * @param blocks - blocks of one trace (others are ignored, see `options.traceId`)
 * @param options - which trace to stitch
 * @returns the stitched tree; the blocks in it are the input objects, not copies
 * @example
 * ```ts
 * const tree = stitchBlocks(tracer.blocks());
 * for (const message of tree.messages) {
 *   console.log(message.block.payload.role, message.tool_calls.map((c) => c.output));
 * }
 * ```
 */
export function stitchBlocks(
  blocks: readonly Block[],
  options: StitchBlocksOptions = {},
): StitchedTrace {
  let traceId = options.traceId;
  if (traceId === undefined) {
    const first = blocks.find((block) => typeof block === 'object' && block !== null);
    traceId = typeof first?.trace_id === 'string' ? first.trace_id : '';
  }
  const messages: StitchedMessage[] = [];
  const calls: StitchedToolCall[] = [];
  const thinks: ThinkBlock[] = [];
  const results: ToolResultBlock[] = [];
  const messageById = new Map<string, StitchedMessage>();
  const callById = new Map<string, StitchedToolCall>();

  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    if (typeof block !== 'object' || block === null || block.trace_id !== traceId) continue;
    switch (block.sub_type) {
      case 'MESSAGE': {
        const node: StitchedMessage = { block: block as MessageBlock, thinks: [], tool_calls: [] };
        messages.push(node);
        register(messageById, node);
        break;
      }
      case 'TOOL_CALL': {
        const node: StitchedToolCall = { block: block as ToolCallBlock, results: [] };
        calls.push(node);
        register(callById, node);
        break;
      }
      case 'THINK':
        thinks.push(block as ThinkBlock);
        break;
      case 'TOOL_RESULT':
        results.push(block as ToolResultBlock);
        break;
    }
  }

  const orphanThinks: ThinkBlock[] = [];
  for (let i = 0; i < thinks.length; i++) {
    const think = thinks[i] as ThinkBlock;
    const parent = messageById.get(think.parent_block_id as string);
    if (parent === undefined) orphanThinks.push(think);
    else parent.thinks.push(think);
  }
  const orphanResults: ToolResultBlock[] = [];
  for (let i = 0; i < results.length; i++) {
    const result = results[i] as ToolResultBlock;
    const parent = callById.get(result.parent_block_id as string);
    if (parent === undefined) orphanResults.push(result);
    else parent.results.push(result);
  }
  const orphanCalls: StitchedToolCall[] = [];
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as StitchedToolCall;
    const parent = messageById.get(call.block.parent_block_id as string);
    if (parent === undefined) orphanCalls.push(call);
    else parent.tool_calls.push(call);
    if (call.results.length > 0) {
      sortIfNeeded(call.results, compareSequencedBlocks);
      const output = assembleToolOutput(call.results);
      if (output !== undefined) call.output = output;
    }
  }

  sortIfNeeded(messages, compareMessageNodes);
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as StitchedMessage;
    sortIfNeeded(message.thinks, compareBlocks);
    sortIfNeeded(message.tool_calls, compareCallNodes);
  }
  sortIfNeeded(orphanCalls, compareCallNodes);
  sortIfNeeded(orphanResults, compareSequencedBlocks);
  sortIfNeeded(orphanThinks, compareBlocks);

  const stitched: StitchedTrace = {
    trace_id: traceId,
    messages,
    orphans: { tool_calls: orphanCalls, tool_results: orphanResults },
  };
  if (orphanThinks.length > 0) stitched.orphans.thinks = orphanThinks;
  return stitched;
}
