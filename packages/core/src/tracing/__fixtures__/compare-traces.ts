import type { Block } from '../../model/index.js';
import type { Sink } from '../../sinks/sink.js';

/** A sink that accepts everything: its presence alone makes a tracer record at once. */
export const noopSink: Sink = { write() {}, flush: async () => {}, close: async () => {} };

/**
 * Block ids and call ids replaced by their order of appearance, so traces of different tracers
 * compare (guarded calls take call ids from a process-wide sequence).
 */
export function normalise(blocks: readonly Block[]): unknown[] {
  const ids = new Map<string, number>();
  const calls = new Map<string, number>();
  const idOf = (id: string | null) => {
    if (id === null) return null;
    if (!ids.has(id)) ids.set(id, ids.size);
    return ids.get(id);
  };
  const callOf = (id: unknown) => {
    if (typeof id !== 'string') return id;
    if (!calls.has(id)) calls.set(id, calls.size);
    return `call#${calls.get(id)}`;
  };
  return blocks.map((block) => ({
    ...block,
    id: idOf(block.id),
    trace_id: 'trace',
    parent_block_id: idOf(block.parent_block_id),
    payload:
      'call_id' in block.payload
        ? { ...block.payload, call_id: callOf(block.payload.call_id) }
        : block.payload,
  }));
}
