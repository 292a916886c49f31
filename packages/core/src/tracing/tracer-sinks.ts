import type { Block } from '../model/index.js';
import type { Sink } from '../sinks/sink.js';
import { TracerFlushError } from './tracer-flush-error.js';

/**
 * A tracer's sinks: each accepted block goes to every sink's `write()`. A sink that throws is
 * reported to `onError` and remembered, and the next `flush()` or `close()` rejects with every
 * error kept since the last one and the number of sinks that failed.
 * @internal
 */
export class TracerSinks {
  readonly count: number;
  /** Blocks went to the sinks since the last flush began (for `flushOnExit`). */
  unflushed = false;
  private readonly errors: unknown[] = [];
  /** Which sinks threw from `write()` since the last flush, for the failed-sink count. */
  private readonly failedWrites = new Set<number>();

  constructor(
    readonly sinks: readonly Sink[],
    private readonly traceId: string,
    private readonly onError: ((error: unknown) => void) | undefined,
  ) {
    this.count = sinks.length;
  }

  /** Sends an accepted block to every sink. */
  write(block: Block): void {
    this.unflushed = true;
    const sinks = this.sinks;
    for (let i = 0; i < this.count; i++) {
      try {
        (sinks[i] as Sink).write(block);
      } catch (error) {
        this.errors.push(error);
        this.failedWrites.add(i);
        if (this.onError !== undefined) this.onError(error);
      }
    }
  }

  /** Reports a failure that is not a sink's (a deferred block the trace refused at last). */
  report(error: unknown): void {
    this.errors.push(error);
    if (this.onError !== undefined) this.onError(error);
  }

  /** Flushes (`flush`) or closes (`close`) every sink; rejects with what failed since the last. */
  async settle(operation: 'flush' | 'shutdown'): Promise<void> {
    this.unflushed = false;
    const errors = this.errors.splice(0);
    const failed = new Set(this.failedWrites);
    this.failedWrites.clear();
    const settled = await Promise.allSettled(
      this.sinks.map(async (sink) => (operation === 'flush' ? sink.flush() : sink.close())),
    );
    settled.forEach((outcome, i) => {
      if (outcome.status !== 'rejected') return;
      errors.push(outcome.reason);
      failed.add(i);
    });
    if (errors.length > 0)
      throw new TracerFlushError({
        traceId: this.traceId,
        operation,
        errors,
        failedSinks: failed.size,
        sinkCount: this.count,
      });
  }
}
