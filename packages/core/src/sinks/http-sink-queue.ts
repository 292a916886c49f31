import type { Block } from '../model/index.js';

/** `{"blocks":[` and `]}` around the blocks of a request. */
const envelopeBytes = 13;

/**
 * One buffered block: its write order, and the block until it is serialised (off `write()`'s
 * path: see {@link HttpSinkQueue.prepare}), then its JSON and the JSON's UTF-8 size.
 * @internal
 */
export interface Queued {
  readonly seq: number;
  readonly traceId: string;
  block: Block | undefined;
  json: string;
  bytes: number;
}

/** One trace's buffered blocks, in write order; `head` is the first not yet taken. */
interface TraceQueue {
  items: Queued[];
  head: number;
}

/**
 * The HTTP sink's buffer: blocks queued per trace in write order, numbered across traces, so
 * batches are one trace's (the collector's path names the trace) and a flush knows when every
 * block written before it has left.
 * @internal
 */
export class HttpSinkQueue {
  /** Blocks queued (serialised or not), not yet taken into a batch. */
  queuedBlocks = 0;
  /** UTF-8 bytes of the serialised queued blocks (plus one separator each). */
  queuedBytes = 0;
  /** The seq of the last block added. */
  lastSeq = 0;
  private readonly traces = new Map<string, TraceQueue>();
  private unprepared: Queued[] = [];

  constructor(
    private readonly maxBatchBlocks: number,
    private readonly maxBatchBytes: number,
    /** A block with no JSON form, dropped by `prepare`. */
    private readonly onUnserialisable: (block: Block, cause: unknown) => void,
  ) {}

  /** Queues a block of `traceId` (cheap: serialised later by `prepare`). */
  add(traceId: string, block: Block): void {
    const item: Queued = { seq: ++this.lastSeq, traceId, block, json: '', bytes: 0 };
    const queue = this.traces.get(traceId);
    if (queue === undefined) this.traces.set(traceId, { items: [item], head: 0 });
    else queue.items.push(item);
    this.unprepared.push(item);
    this.queuedBlocks++;
  }

  /** Whether blocks were added since the last `prepare`. */
  get hasUnprepared(): boolean {
    return this.unprepared.length > 0;
  }

  /**
   * Serialises what was added since the last call (`JSON.stringify` is most of a block's cost,
   * so it runs after the writer's synchronous work, not in `write()`). A block with no JSON form
   * is taken out of its trace and handed to `onUnserialisable`.
   */
  prepare(): void {
    if (this.unprepared.length === 0) return;
    const items = this.unprepared;
    this.unprepared = [];
    let dropped: Set<Queued> | undefined;
    for (const item of items) {
      let json: string | undefined;
      let cause: unknown;
      try {
        json = JSON.stringify(item.block);
      } catch (error) {
        cause = error;
      }
      if (typeof json !== 'string') {
        this.queuedBlocks--;
        dropped ??= new Set();
        dropped.add(item);
        this.onUnserialisable(item.block as Block, cause);
        continue;
      }
      item.json = json;
      item.bytes = Buffer.byteLength(json);
      item.block = undefined;
      this.queuedBytes += item.bytes + 1;
    }
    if (dropped !== undefined) this.forget(dropped);
  }

  /** The trace whose first queued block is the oldest, and that block's seq. */
  oldest(): { traceId: string; seq: number } | undefined {
    let oldest: { traceId: string; seq: number } | undefined;
    for (const [traceId, queue] of this.traces) {
      const seq = (queue.items[queue.head] as Queued).seq;
      if (oldest === undefined || seq < oldest.seq) oldest = { traceId, seq };
    }
    return oldest;
  }

  /** Whether enough is queued for a full batch (by count or by bytes). */
  get full(): boolean {
    return this.queuedBlocks >= this.maxBatchBlocks || this.queuedBytes >= this.maxBatchBytes;
  }

  /**
   * Takes the next batch of `traceId`: its oldest blocks, at most `maxBatchBlocks` of them and
   * `maxBatchBytes` of JSON (a larger block goes alone). Call `prepare` first.
   */
  take(traceId: string): Queued[] {
    const queue = this.traces.get(traceId) as TraceQueue;
    const batch: Queued[] = [];
    let bytes = envelopeBytes;
    while (queue.head < queue.items.length && batch.length < this.maxBatchBlocks) {
      const item = queue.items[queue.head] as Queued;
      if (batch.length > 0 && bytes + item.bytes + 1 > this.maxBatchBytes) break;
      batch.push(item);
      bytes += item.bytes + 1;
      queue.head++;
      this.queuedBlocks--;
      this.queuedBytes -= item.bytes + 1;
    }
    if (queue.head === queue.items.length) this.traces.delete(traceId);
    else if (queue.head > 1024 && queue.head * 2 > queue.items.length) {
      queue.items = queue.items.slice(queue.head);
      queue.head = 0;
    }
    return batch;
  }

  /** Takes blocks that could not be serialised out of their traces. */
  private forget(dropped: Set<Queued>): void {
    for (const traceId of new Set([...dropped].map((item) => item.traceId))) {
      const queue = this.traces.get(traceId);
      if (queue === undefined) continue;
      queue.items = queue.items.slice(queue.head).filter((item) => !dropped.has(item));
      queue.head = 0;
      if (queue.items.length === 0) this.traces.delete(traceId);
    }
  }
}
