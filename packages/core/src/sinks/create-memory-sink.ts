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

/** Whether a memory sink was closed: read by the shared `closed` getter. */
interface MemorySinkStatus {
  closed: boolean;
}

const statusKey: unique symbol = Symbol('tracewarden.memorySinkStatus');

function closedOf(this: { [statusKey]?: MemorySinkStatus }): boolean {
  return this[statusKey]?.closed === true;
}

// One getter shared by every memory sink. A getter written in the object literal is a new
// function per sink, which gives each sink a hidden class of its own; those maps live in old
// space and point at the young getter, whose context holds the sink's blocks, so every
// scavenge kept every sink's blocks alive and promoted them: ~6.7 µs of GC per traced guarded
// call, sustained (bench/guards.bench.ts, memory sink row; decision 080).
const closedProperty: PropertyDescriptor = { get: closedOf, enumerable: true, configurable: true };

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
  const status: MemorySinkStatus = { closed: false };
  const sink = {
    blocks,
    write(block: Block) {
      if (status.closed) {
        throw new SinkError({
          code: 'SINK_CLOSED',
          message: `memory sink: write() of block ${String((block as { id?: unknown } | null | undefined)?.id)} after close(); create a new sink`,
        });
      }
      blocks.push(block);
    },
    flush() {
      return Promise.resolve();
    },
    close() {
      status.closed = true;
      return Promise.resolve();
    },
  };
  Object.defineProperty(sink, statusKey, { value: status });
  Object.defineProperty(sink, 'closed', closedProperty);
  return sink as typeof sink & { readonly closed: boolean };
}
