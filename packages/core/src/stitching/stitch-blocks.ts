import { TraceError } from '../errors/index.js';
import type { Block, ThinkBlock, ToolResultBlock } from '../model/index.js';
import { checkValidationOptions } from '../validation/check-validation-options.js';
import { assembleToolOutput } from './assemble-tool-output.js';
import { compareBlocks, compareSequencedBlocks } from './compare-blocks.js';
import type { StitchedMessage, StitchedToolCall, StitchedTrace } from './types.js';

/** Options of {@link stitchBlocks}. */
export interface StitchBlocksOptions {
  /**
   * The trace to stitch; blocks of other traces are ignored. A block without a `trace_id` (as
   * posted to the collector, whose path names the trace) is taken as of this trace.
   * @default the `trace_id` of the first block that has one
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

// Parent lookup without a Map of every block: an open-addressing table of the parents only
// (MESSAGE and TOOL_CALL blocks) in one Int32Array, two slots per entry (reference + 1, the
// id's hash). A reference is `2 * index` for a message, `2 * index + 1` for a tool call. On a
// million blocks it is about twice as fast as a Map of strings. In front of it, a ring of the
// last parents read: children are usually written right after their parent.
function hashId(id: string): number {
  // FNV-1a from the end, where sortable ids differ.
  let hash = 0x811c9dc5 ^ id.length;
  for (let i = id.length - 1; i >= 0; i--) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash ^ (hash >>> 16);
}

/** Entries of the ring of recent parents, and of the pending children checked per parent. */
const nearby = 32;

// Shared placeholder for a group without children yet, so that childless nodes do not each
// allocate an array that is thrown away. Replaced by a fresh array before returning.
const none: never[] = [];

interface Build {
  /** Message and call nodes in input order; references index these. */
  messages: StitchedMessage[];
  calls: StitchedToolCall[];
  table: Int32Array;
  mask: number;
  recent: Int32Array;
  recentCount: number;
  /** Message nodes whose `thinks` or `tool_calls` were appended out of order. */
  unsortedMessages: StitchedMessage[];
  /** Call nodes whose `results` were appended out of order. */
  unsortedCalls: StitchedToolCall[];
}

function blockOf(build: Build, reference: number): Block {
  return (
    (reference & 1) === 0
      ? (build.messages[reference >> 1] as StitchedMessage)
      : (build.calls[reference >> 1] as StitchedToolCall)
  ).block;
}

// The reference of the parent with this id among those read so far, or -1.
function findParent(build: Build, id: string, hash: number): number {
  const { recent, recentCount } = build;
  for (let k = 1; k <= nearby && k <= recentCount; k++) {
    const slot = 2 * ((recentCount - k) & (nearby - 1));
    if (recent[slot + 1] === hash) {
      const reference = (recent[slot] as number) - 1;
      if (blockOf(build, reference).id === id) return reference;
    }
  }
  const { table, mask } = build;
  for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
    const entry = table[2 * slot] as number;
    if (entry === 0) return -1;
    if (table[2 * slot + 1] === hash && blockOf(build, entry - 1).id === id) return entry - 1;
  }
}

// False when the id is taken (duplicate ids: the caller starts over on the slow path).
function insertParent(build: Build, id: string, hash: number, reference: number): boolean {
  const { table, mask } = build;
  let slot = hash & mask;
  for (let entry = table[2 * slot]; entry !== 0; entry = table[2 * slot]) {
    if (table[2 * slot + 1] === hash && blockOf(build, (entry as number) - 1).id === id) {
      return false;
    }
    slot = (slot + 1) & mask;
  }
  table[2 * slot] = reference + 1;
  table[2 * slot + 1] = hash;
  const recent = 2 * (build.recentCount++ & (nearby - 1));
  build.recent[recent] = reference + 1;
  build.recent[recent + 1] = hash;
  return true;
}

// Each attach function appends a child to its parent's group and notes the group when the
// child sorts before its previous sibling.
function attachThink(build: Build, message: StitchedMessage, think: ThinkBlock): void {
  const thinks = message.thinks;
  if (thinks === none) {
    message.thinks = [think];
    return;
  }
  const last = thinks[thinks.length - 1] as ThinkBlock;
  message.thinks = append(thinks, think);
  if (compareBlocks(last, think) > 0) build.unsortedMessages.push(message);
}

function attachCall(build: Build, message: StitchedMessage, call: StitchedToolCall): void {
  const calls = message.tool_calls;
  if (calls === none) {
    message.tool_calls = [call];
    return;
  }
  const last = calls[calls.length - 1] as StitchedToolCall;
  message.tool_calls = append(calls, call);
  if (compareSequencedBlocks(last.block, call.block) > 0) build.unsortedMessages.push(message);
}

function attachResult(build: Build, call: StitchedToolCall, result: ToolResultBlock): void {
  const results = call.results;
  if (results === none) {
    call.results = [result];
    return;
  }
  const last = results[results.length - 1] as ToolResultBlock;
  call.results = append(results, result);
  if (compareSequencedBlocks(last, result) > 0) build.unsortedCalls.push(call);
}

/** Children whose parent had not been read when they were, with their parent id's hash. */
interface Pending<T> {
  items: (T | undefined)[];
  hashes: number[];
}

function parentIdOf(item: Block | StitchedToolCall): string {
  return ('block' in item ? item.block : item).parent_block_id as string;
}

// The pending children of a parent just read are usually among the last few pending.
function takePending<T extends Block | StitchedToolCall>(
  pending: Pending<T>,
  id: string,
  hash: number,
  take: (item: T) => void,
): void {
  const { items, hashes } = pending;
  const end = Math.max(0, items.length - nearby);
  for (let i = items.length - 1; i >= end; i--) {
    const item = items[i];
    if (hashes[i] !== hash || item === undefined || parentIdOf(item) !== id) continue;
    take(item);
    items[i] = undefined;
  }
}

// The fast path: one pass over the blocks, each child attached as soon as both it and its
// parent have been read; root messages kept in order as they come (insertion, within a
// budget), sibling groups checked as they grow and sorted only when out of order. Undefined
// when two parents share an id.
function stitchWithTable(blocks: readonly Block[], traceId: string): StitchedTrace | undefined {
  let size = 16;
  while (size < 2 * blocks.length) size *= 2;
  const build: Build = {
    messages: [],
    calls: [],
    table: new Int32Array(2 * size),
    mask: size - 1,
    recent: new Int32Array(2 * nearby),
    recentCount: 0,
    unsortedMessages: [],
    unsortedCalls: [],
  };
  const { messages, calls } = build;
  const roots: StitchedMessage[] = [];
  let rootsSorted = true;
  let moves = 8 * blocks.length + 16;
  const pendingThinks: Pending<ThinkBlock> = { items: [], hashes: [] };
  const pendingCalls: Pending<StitchedToolCall> = { items: [], hashes: [] };
  const pendingResults: Pending<ToolResultBlock> = { items: [], hashes: [] };
  const orphanCalls: StitchedToolCall[] = [];
  const orphanResults: ToolResultBlock[] = [];
  const orphanThinks: ThinkBlock[] = [];
  let message: StitchedMessage | undefined;
  let call: StitchedToolCall | undefined;
  const takeThink = (think: ThinkBlock) => attachThink(build, message as StitchedMessage, think);
  const takeCall = (child: StitchedToolCall) =>
    attachCall(build, message as StitchedMessage, child);
  const takeResult = (result: ToolResultBlock) =>
    attachResult(build, call as StitchedToolCall, result);

  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    if (!isTraceBlock(block, traceId)) continue;
    const subType = block.sub_type;
    if (subType === 'MESSAGE') {
      message = { block, thinks: none, tool_calls: none };
      const id = block.id;
      if (typeof id === 'string') {
        const hash = hashId(id);
        if (!insertParent(build, id, hash, 2 * messages.length)) return undefined;
        takePending(pendingThinks, id, hash, takeThink);
        takePending(pendingCalls, id, hash, takeCall);
      }
      messages.push(message);
      // Keep roots ordered as they come: usually nothing to do, or a short move back. Past
      // the budget of moves (input far from sorted) they are sorted once at the end.
      let j = roots.length;
      roots.push(message);
      if (rootsSorted) {
        while (j > 0 && compareBlocks((roots[j - 1] as StitchedMessage).block, block) > 0) {
          roots[j] = roots[j - 1] as StitchedMessage;
          j--;
          if (--moves === 0) {
            rootsSorted = false;
            break;
          }
        }
        roots[j] = message;
      }
      continue;
    }
    if (subType === 'TOOL_CALL') {
      call = { block, results: none };
      const id = block.id;
      if (typeof id === 'string') {
        const hash = hashId(id);
        if (!insertParent(build, id, hash, 2 * calls.length + 1)) return undefined;
        takePending(pendingResults, id, hash, takeResult);
      }
      calls.push(call);
    } else if (subType !== 'THINK' && subType !== 'TOOL_RESULT') {
      continue;
    }
    const parentId = block.parent_block_id;
    if (typeof parentId !== 'string') {
      if (subType === 'TOOL_CALL') orphanCalls.push(call as StitchedToolCall);
      else if (subType === 'THINK') orphanThinks.push(block);
      else orphanResults.push(block as ToolResultBlock);
      continue;
    }
    const hash = hashId(parentId);
    const reference = findParent(build, parentId, hash);
    if (reference === -1) {
      const pending: Pending<unknown> =
        subType === 'TOOL_CALL'
          ? pendingCalls
          : subType === 'THINK'
            ? pendingThinks
            : pendingResults;
      pending.items.push(subType === 'TOOL_CALL' ? call : block);
      pending.hashes.push(hash);
    } else if (subType === 'TOOL_RESULT') {
      if ((reference & 1) === 1) {
        attachResult(build, calls[reference >> 1] as StitchedToolCall, block);
      } else orphanResults.push(block);
    } else if ((reference & 1) === 1) {
      if (subType === 'TOOL_CALL') orphanCalls.push(call as StitchedToolCall);
      else orphanThinks.push(block as ThinkBlock);
    } else if (subType === 'TOOL_CALL') {
      attachCall(build, messages[reference >> 1] as StitchedMessage, call as StitchedToolCall);
    } else {
      attachThink(build, messages[reference >> 1] as StitchedMessage, block as ThinkBlock);
    }
  }

  // Children read before a parent far ahead of them, or whose parent is missing.
  const parentIndex = (item: Block | StitchedToolCall, kind: number) => {
    const parentId = parentIdOf(item);
    const reference = findParent(build, parentId, hashId(parentId));
    return reference === -1 || (reference & 1) !== kind ? -1 : reference >> 1;
  };
  for (const think of pendingThinks.items) {
    if (think === undefined) continue;
    const index = parentIndex(think, 0);
    if (index === -1) orphanThinks.push(think);
    else attachThink(build, messages[index] as StitchedMessage, think);
  }
  for (const child of pendingCalls.items) {
    if (child === undefined) continue;
    const index = parentIndex(child, 0);
    if (index === -1) orphanCalls.push(child);
    else attachCall(build, messages[index] as StitchedMessage, child);
  }
  for (const result of pendingResults.items) {
    if (result === undefined) continue;
    const index = parentIndex(result, 1);
    if (index === -1) orphanResults.push(result);
    else attachResult(build, calls[index] as StitchedToolCall, result);
  }

  for (let i = 0; i < build.unsortedCalls.length; i++) {
    sortIfNeeded((build.unsortedCalls[i] as StitchedToolCall).results, compareSequencedBlocks);
  }
  for (let i = 0; i < calls.length; i++) {
    const node = calls[i] as StitchedToolCall;
    if (node.results === none) {
      node.results = [];
      continue;
    }
    const output = assembleToolOutput(node.results);
    if (output !== undefined) node.output = output;
  }
  for (let i = 0; i < build.unsortedMessages.length; i++) {
    const node = build.unsortedMessages[i] as StitchedMessage;
    sortIfNeeded(node.thinks, compareBlocks);
    sortIfNeeded(node.tool_calls, compareCallNodes);
  }
  for (let i = 0; i < messages.length; i++) {
    const node = messages[i] as StitchedMessage;
    if (node.thinks === none) node.thinks = [];
    if (node.tool_calls === none) node.tool_calls = [];
  }
  if (!rootsSorted) sortIfNeeded(roots, compareMessageNodes);
  return finish(traceId, roots, orphanCalls, orphanResults, orphanThinks);
}

function finish(
  traceId: string,
  messages: StitchedMessage[],
  orphanCalls: StitchedToolCall[],
  orphanResults: ToolResultBlock[],
  orphanThinks: ThinkBlock[],
): StitchedTrace {
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

/** A block of the trace: its `trace_id`, or none (a block as posted, the trace given by its path). */
function isTraceBlock(block: unknown, traceId: string): block is Block {
  if (typeof block !== 'object' || block === null) return false;
  const blockTrace = (block as Partial<Block>).trace_id;
  return blockTrace === traceId || blockTrace === undefined;
}

// The slow path, for duplicate ids (invalid input): the block that sorts first owns the
// children, whatever the input order.
function stitchWithMaps(blocks: readonly Block[], traceId: string): StitchedTrace {
  const messages: StitchedMessage[] = [];
  const calls: StitchedToolCall[] = [];
  const messageById = new Map<string, StitchedMessage>();
  const callById = new Map<string, StitchedToolCall>();
  const thinks: ThinkBlock[] = [];
  const results: ToolResultBlock[] = [];
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
      messages.push(node);
      register(messageById, node);
    } else if (block.sub_type === 'TOOL_CALL') {
      const node: StitchedToolCall = { block, results: [] };
      calls.push(node);
      register(callById, node);
    } else if (block.sub_type === 'THINK') {
      thinks.push(block);
    } else if (block.sub_type === 'TOOL_RESULT') {
      results.push(block);
    }
  }
  const orphanThinks: ThinkBlock[] = [];
  for (const think of thinks) {
    const parent = messageById.get(think.parent_block_id as string);
    if (parent === undefined) orphanThinks.push(think);
    else parent.thinks.push(think);
  }
  const orphanResults: ToolResultBlock[] = [];
  for (const result of results) {
    const parent = callById.get(result.parent_block_id as string);
    if (parent === undefined) orphanResults.push(result);
    else parent.results.push(result);
  }
  const orphanCalls: StitchedToolCall[] = [];
  for (const call of calls) {
    const parent = messageById.get(call.block.parent_block_id as string);
    if (parent === undefined) orphanCalls.push(call);
    else parent.tool_calls.push(call);
    if (call.results.length === 0) continue;
    sortIfNeeded(call.results, compareSequencedBlocks);
    const output = assembleToolOutput(call.results);
    if (output !== undefined) call.output = output;
  }
  sortIfNeeded(messages, compareMessageNodes);
  for (const message of messages) {
    sortIfNeeded(message.thinks, compareBlocks);
    sortIfNeeded(message.tool_calls, compareCallNodes);
  }
  return finish(traceId, messages, orphanCalls, orphanResults, orphanThinks);
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
/** Any other iterable as an array; anything else (null, a number, a single block) is bad input. */
function blocksArray(blocks: unknown): readonly Block[] {
  const iterable = blocks as { [Symbol.iterator]?: unknown } | null | undefined;
  if (
    (typeof blocks === 'object' || typeof blocks === 'function') &&
    blocks !== null &&
    typeof iterable?.[Symbol.iterator] === 'function'
  )
    return Array.from(blocks as Iterable<Block>);
  throw new TraceError({
    code: 'VALIDATION',
    message: `stitchBlocks: blocks must be an array of blocks, got ${blocks === null ? 'null' : typeof blocks}; pass the blocks of one trace`,
    details: { path: '' },
  });
}

export function stitchBlocks(
  blocks: readonly Block[],
  options: StitchBlocksOptions = {},
): StitchedTrace {
  if (!Array.isArray(blocks)) blocks = blocksArray(blocks);
  checkValidationOptions('stitchBlocks', options, false);
  let traceId = options.traceId;
  if (traceId !== undefined && typeof traceId !== 'string')
    throw new TraceError({
      code: 'VALIDATION',
      message: `stitchBlocks: options.traceId must be a trace id string, got ${typeof traceId}`,
      details: { field: 'traceId', path: 'options.traceId' },
    });
  if (traceId === undefined) {
    const first = blocks.find(
      (block) => typeof block === 'object' && block !== null && block.trace_id !== undefined,
    );
    traceId = typeof first?.trace_id === 'string' ? first.trace_id : '';
  }
  return stitchWithTable(blocks, traceId) ?? stitchWithMaps(blocks, traceId);
}
