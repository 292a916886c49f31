import type { Block, ThinkBlock, ToolResultBlock } from '../model/index.js';
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

// Blocks are usually written in time order, or nearly (several writers appending to one file):
// insertion sort finishes those in about linear time. Past a budget of moves (input far from
// sorted) it hands over to the engine's O(n log n) sort.
function sortIfNeeded<T>(items: T[], compare: (a: T, b: T) => number): void {
  let budget = 8 * items.length + 16;
  for (let i = 1; i < items.length; i++) {
    const item = items[i] as T;
    if (compare(items[i - 1] as T, item) <= 0) continue;
    let j = i - 1;
    while (j >= 0 && compare(items[j] as T, item) > 0) {
      items[j + 1] = items[j] as T;
      j--;
      if (--budget === 0) {
        items[j + 1] = item;
        items.sort(compare);
        return;
      }
    }
    items[j + 1] = item;
  }
}

// Most nodes have one or two children. A first push would give the array room for 17, which
// for a million blocks is hundreds of MB; small arrays are made at their exact size instead.
function append<T>(items: T[], item: T): T[] {
  if (items.length === 0) return [item];
  if (items.length === 1) return [items[0] as T, item];
  items.push(item);
  return items;
}

interface Index {
  messages: StitchedMessage[];
  calls: StitchedToolCall[];
  messageById: Map<string, StitchedMessage>;
  callById: Map<string, StitchedToolCall>;
  /** Children whose parent was not at hand when they were read. */
  thinks: ThinkBlock[];
  results: ToolResultBlock[];
  unattachedCalls: StitchedToolCall[];
}

function isTraceBlock(block: unknown, traceId: string): block is Block {
  return typeof block === 'object' && block !== null && (block as Block).trace_id === traceId;
}

// One pass. A child usually follows its parent closely, so the last message and the last call
// are tried before the maps. Returns undefined when two parents share an id (invalid input),
// for which indexDuplicates decides the owner deterministically.
function indexBlocks(blocks: readonly Block[], traceId: string): Index | undefined {
  const index: Index = {
    messages: [],
    calls: [],
    messageById: new Map(),
    callById: new Map(),
    thinks: [],
    results: [],
    unattachedCalls: [],
  };
  let lastMessage: StitchedMessage | undefined;
  let lastCall: StitchedToolCall | undefined;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    if (!isTraceBlock(block, traceId)) continue;
    switch (block.sub_type) {
      case 'MESSAGE': {
        const node: StitchedMessage = { block, thinks: [], tool_calls: [] };
        index.messages.push(node);
        index.messageById.set(block.id, node);
        lastMessage = node;
        break;
      }
      case 'TOOL_CALL': {
        const node: StitchedToolCall = { block, results: [] };
        index.calls.push(node);
        index.callById.set(block.id, node);
        if (lastMessage !== undefined && block.parent_block_id === lastMessage.block.id) {
          lastMessage.tool_calls = append(lastMessage.tool_calls, node);
        } else {
          index.unattachedCalls.push(node);
        }
        lastCall = node;
        break;
      }
      case 'THINK':
        if (lastMessage !== undefined && block.parent_block_id === lastMessage.block.id) {
          lastMessage.thinks = append(lastMessage.thinks, block);
        } else {
          index.thinks.push(block);
        }
        break;
      case 'TOOL_RESULT':
        if (lastCall !== undefined && block.parent_block_id === lastCall.block.id) {
          lastCall.results = append(lastCall.results, block);
        } else {
          index.results.push(block);
        }
        break;
    }
  }
  if (
    index.messageById.size !== index.messages.length ||
    index.callById.size !== index.calls.length
  ) {
    return undefined;
  }
  return index;
}

// With duplicate ids the block that sorts first owns the children, whatever the input order.
function indexDuplicates(blocks: readonly Block[], traceId: string): Index {
  const index: Index = {
    messages: [],
    calls: [],
    messageById: new Map(),
    callById: new Map(),
    thinks: [],
    results: [],
    unattachedCalls: [],
  };
  const register = <T extends { block: Block }>(byId: Map<string, T>, node: T) => {
    const existing = byId.get(node.block.id);
    if (existing === undefined || compareBlocks(node.block, existing.block) < 0) {
      byId.set(node.block.id, node);
    }
  };
  for (const block of blocks) {
    if (!isTraceBlock(block, traceId)) continue;
    if (block.sub_type === 'MESSAGE') {
      const node: StitchedMessage = { block, thinks: [], tool_calls: [] };
      index.messages.push(node);
      register(index.messageById, node);
    } else if (block.sub_type === 'TOOL_CALL') {
      const node: StitchedToolCall = { block, results: [] };
      index.calls.push(node);
      index.unattachedCalls.push(node);
      register(index.callById, node);
    } else if (block.sub_type === 'THINK') {
      index.thinks.push(block);
    } else if (block.sub_type === 'TOOL_RESULT') {
      index.results.push(block);
    }
  }
  return index;
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
  const index = indexBlocks(blocks, traceId) ?? indexDuplicates(blocks, traceId);
  const { messages, calls, messageById, callById } = index;

  const orphanThinks: ThinkBlock[] = [];
  for (let i = 0; i < index.thinks.length; i++) {
    const think = index.thinks[i] as ThinkBlock;
    const parent = messageById.get(think.parent_block_id as string);
    if (parent === undefined) orphanThinks.push(think);
    else parent.thinks = append(parent.thinks, think);
  }
  const orphanResults: ToolResultBlock[] = [];
  for (let i = 0; i < index.results.length; i++) {
    const result = index.results[i] as ToolResultBlock;
    const parent = callById.get(result.parent_block_id as string);
    if (parent === undefined) orphanResults.push(result);
    else parent.results = append(parent.results, result);
  }
  const orphanCalls: StitchedToolCall[] = [];
  for (let i = 0; i < index.unattachedCalls.length; i++) {
    const call = index.unattachedCalls[i] as StitchedToolCall;
    const parent = messageById.get(call.block.parent_block_id as string);
    if (parent === undefined) orphanCalls.push(call);
    else parent.tool_calls = append(parent.tool_calls, call);
  }
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as StitchedToolCall;
    if (call.results.length === 0) continue;
    sortIfNeeded(call.results, compareSequencedBlocks);
    const output = assembleToolOutput(call.results);
    if (output !== undefined) call.output = output;
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
