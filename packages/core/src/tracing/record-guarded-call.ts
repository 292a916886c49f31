import type { GuardedCallRecord } from '../convert/entry-to-blocks.js';
import type { Tracer } from './types.js';

/**
 * Key of the method through which `createTracer`'s tracers record a guarded call without its
 * `TraceEntry` (see `guardedCallToBlocks`): a guard with no other listener skips building the
 * entry, and the tracer adopts blocks whose values it checked instead of inspecting them again
 * (with sinks: recorded and written at once; without: on the next read). Kept because users with
 * a memory or JSONL file sink gain from it, not only sinkless tracers (decision 080). Other
 * `Tracer` implementations lack it and get `recordEntry`.
 * @internal
 */
export const recordGuardedCall: unique symbol = Symbol('tracewarden.recordGuardedCall');

/**
 * Key under which `createTracer` puts, on each direct-recording method, the public method it
 * stands in for (`recordEntry`, `logMessage`). The direct path is taken only while the tracer's
 * public method is still that one: a wrapper with its own `recordEntry` or `logMessage` (a Proxy,
 * `Object.create(tracer)`, a spread copy, a method patched in place) sees every call through it.
 * @internal
 */
export const standsInFor: unique symbol = Symbol('tracewarden.standsInFor');

/**
 * Whether a tracer's direct-recording method may be used instead of its public method (see
 * {@link standsInFor}): `direct` is the tracer's method under the direct path's key,
 * `publicMethod` its `recordEntry` or `logMessage` (read by name at the call site: one shape).
 * @internal
 */
export function ownsDirectPath(direct: unknown, publicMethod: unknown): boolean {
  return (
    direct !== undefined && (direct as { [standsInFor]?: unknown })[standsInFor] === publicMethod
  );
}

/** A tracer that records guarded calls directly. @internal */
export interface GuardedCallTracer extends Tracer {
  /**
   * Records the call as `recordEntry` would its entry (attaching to the most recent MESSAGE).
   * @param endMs - `Date.now()` at the call's end, when the guard's clock is `Date.now`: a tracer
   *   whose clock is `Date.now` may draw the blocks' ids at it rather than read the clock again
   */
  [recordGuardedCall](record: GuardedCallRecord, endMs?: number): void;
}
