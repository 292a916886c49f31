import type { Block } from '@tracewarden/core';

/**
 * A trace's blocks reordered so that each comes after its parent, otherwise in their order: what
 * a reader that checks parents as it goes (`validate` on a JSONL file, a collector) needs. Chat
 * events may answer a call before the call appears (decision 003); their TOOL_RESULT then
 * follows the TOOL_CALL in the file, its `created_at` still telling the event order.
 *
 * @param blocks - one trace's blocks
 * @returns the same blocks (the array itself when already in order)
 * @example
 * ```ts
 * parentsFirst([result, call, message]).map((block) => block.sub_type); // ['MESSAGE', 'TOOL_CALL', 'TOOL_RESULT']
 * ```
 */
export function parentsFirst(blocks: Block[]): Block[] {
  const ids = new Set<string>();
  for (const block of blocks) ids.add(block.id);
  const placed = new Set<string>();
  const waiting = new Map<string, Block[]>();
  const out: Block[] = [];
  let moved = false;
  const place = (block: Block) => {
    out.push(block);
    placed.add(block.id);
    const children = waiting.get(block.id);
    if (children === undefined) return;
    waiting.delete(block.id);
    for (const child of children) place(child);
  };
  for (const block of blocks) {
    const parent = block.parent_block_id;
    if (typeof parent !== 'string' || placed.has(parent) || !ids.has(parent)) {
      place(block);
      continue;
    }
    moved = true;
    const children = waiting.get(parent);
    if (children === undefined) waiting.set(parent, [block]);
    else children.push(block);
  }
  // parents that never came (a cycle, which valid blocks cannot have): as they were
  for (const children of waiting.values()) out.push(...children);
  return moved ? out : blocks;
}
