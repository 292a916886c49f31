import type { Block } from '../model/index.js';
import { stitchBlocks } from './stitch-blocks.js';
import type { StitchedTrace } from './types.js';

/**
 * Stitches blocks of any number of traces: one tree per `trace_id`, ordered by `trace_id`.
 * Blocks without a string `trace_id` are ignored.
 *
 * @param blocks - blocks of one or more traces, in any order
 * @returns one {@link StitchedTrace} per trace, sorted by `trace_id`
 * @example
 * ```ts
 * const trees = stitchTraces(blocksFromFile);
 * trees.map((tree) => tree.trace_id); // ['tr_01...', 'tr_02...']
 * ```
 */
export function stitchTraces(blocks: readonly Block[]): StitchedTrace[] {
  const byTrace = new Map<string, Block[]>();
  for (const block of blocks) {
    if (typeof block !== 'object' || block === null || typeof block.trace_id !== 'string') continue;
    const group = byTrace.get(block.trace_id);
    if (group === undefined) byTrace.set(block.trace_id, [block]);
    else group.push(block);
  }
  return [...byTrace.keys()]
    .sort()
    .map((traceId) => stitchBlocks(byTrace.get(traceId) ?? [], { traceId }));
}
