import type { Block } from '../model/index.js';

/**
 * Where a tracer sends accepted blocks. `write` is on the hot path: it must not block on I/O
 * (buffer, then write in `flush`). After `flush()` resolves, every block written before it was
 * called is durable (for a file sink: on disk); a failed write rejects `flush()` and keeps the
 * blocks, so nothing is lost silently.
 */
export interface Sink {
  /** Called once per accepted block, in acceptance order. Never throws for I/O reasons. */
  write(block: Block): void;
  /** Makes every block written so far durable. Rejects with a `SinkError` if it cannot. */
  flush(): Promise<void>;
  /** Flushes, then releases resources. Further writes are errors. */
  close(): Promise<void>;
}
