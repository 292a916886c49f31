import type { GuardedCallRecord } from '../convert/entry-to-blocks.js';
import type { Tracer } from './types.js';

/**
 * Key of the method through which `createTracer`'s tracers record a guarded call without its
 * `TraceEntry` (see `guardedCallToBlocks`): a guard with no other listener skips building the
 * entry. Other `Tracer` implementations lack it and get `recordEntry`.
 * @internal
 */
export const recordGuardedCall: unique symbol = Symbol('tracewarden.recordGuardedCall');

/** A tracer that records guarded calls directly. @internal */
export interface GuardedCallTracer extends Tracer {
  /**
   * Records the call as `recordEntry` would its entry (attaching to the most recent MESSAGE).
   * @param endMs - `Date.now()` at the call's end, when the guard's clock is `Date.now`: a tracer
   *   whose clock is `Date.now` may draw the blocks' ids at it rather than read the clock again
   */
  [recordGuardedCall](record: GuardedCallRecord, endMs?: number): void;
}
