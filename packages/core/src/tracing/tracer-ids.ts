import { blockIdAt as blockIdAtKey, type ClockedIdGenerator } from '../model/ids.js';
import type { IdGenerator } from '../model/index.js';
import type { DraftBlock } from '../validation/inspect-block.js';

/**
 * A tracer's source of block ids. Ids drawn for blocks that were then rejected are given back
 * and taken first by later blocks, so a rejection leaves no trace, not even a gap in sequential
 * ids. The tracer's own ids (no `ids` option) read the tracer's clock: a reading just made can be
 * handed over instead of reading the clock again.
 * @internal
 */
export class TracerIds {
  private readonly spareIds: string[] = [];
  /** Draws an id stamped with a given clock reading (the tracer's own ids only). */
  private readonly blockIdAt: ((at: number) => string) | undefined;
  /** `entryToBlocks` draws its block ids through the same spare-aware source. */
  readonly forEntries: IdGenerator;

  constructor(
    private readonly ids: IdGenerator,
    /** The ids are the tracer's own: unique and increasing (a deferred call's ids need no check). */
    readonly own: boolean,
    private readonly clock: () => number,
    /** Date.now is the tracer's clock: a guard's end time (also Date.now) may stamp the ids. */
    private readonly clockIsDateNow: boolean,
  ) {
    this.blockIdAt = own ? (ids as ClockedIdGenerator)[blockIdAtKey] : undefined;
    this.forEntries = {
      blockId: () => this.next(),
      traceId: () => ids.traceId(),
      callId: () => ids.callId(),
    };
  }

  /** The next block id. */
  next(): string {
    return this.spareIds.length === 0 ? this.ids.blockId() : (this.spareIds.shift() as string);
  }

  /** {@link next}, for a block stamped with the clock reading `ms` just made. */
  nextAt(ms: number): string {
    if (this.spareIds.length !== 0) return this.spareIds.shift() as string;
    return this.blockIdAt === undefined ? this.ids.blockId() : this.blockIdAt(ms);
  }

  /** The id of a guarded call's block, stamped with its end time when that is the same clock. */
  nextForGuardedCall(endMs: number | undefined): string {
    // (and still is: fake timers may have replaced Date.now since the tracer took it)
    return this.clockIsDateNow && endMs !== undefined && this.clock === Date.now
      ? this.nextAt(endMs)
      : this.next();
  }

  /** Gives back the ids of blocks that were rejected, to be drawn first, in order. */
  giveBack(inputs: readonly DraftBlock[]): void {
    this.spareIds.unshift(...inputs.map((input) => input.id as string));
  }

  /** Gives back one rejected block's id. */
  giveBackOne(id: string): void {
    this.spareIds.unshift(id);
  }
}
