import type { Block } from '../model/index.js';
import type { Sink } from './sink.js';
import { SinkError } from './sink-error.js';

/** A {@link Sink} that keeps blocks in an array. */
export interface MemorySink extends Sink {
  /** Every block written, in order (a live view; do not mutate). */
  readonly blocks: readonly Block[];
  /** Whether `close()` was called. */
  readonly closed: boolean;
}

/**
 * Creates a sink that keeps every block in memory, for tests, the demo and short scripts.
 * `flush` has nothing to do; after `close`, `write` throws a {@link SinkError} `SINK_CLOSED`.
 *
 * @returns a {@link MemorySink} whose `blocks` grows with each write
 * @example
 * ```ts
 * const sink = createMemorySink();
 * const tracer = createTracer({ sinks: [sink] });
 * tracer.logMessage({ role: 'user', content: 'hi' });
 * sink.blocks.length; // 1
 * ```
 */
export function createMemorySink(): MemorySink {
  const blocks: Block[] = [];
  let closed = false;
  return {
    blocks,
    get closed() {
      return closed;
    },
    write(block) {
      if (closed) {
        throw new SinkError({
          code: 'SINK_CLOSED',
          message: `memory sink: write() of block ${block.id} after close(); create a new sink`,
        });
      }
      blocks.push(block);
    },
    flush() {
      return Promise.resolve();
    },
    close() {
      closed = true;
      return Promise.resolve();
    },
  };
}
