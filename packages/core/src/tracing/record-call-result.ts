import type { Tracer } from './types.js';

/**
 * Key of the method through which `createTracer`'s tracers record a tool's result under the
 * TOOL_CALL with its call id, for `recordToolResult` (every adapter's tool results and
 * `guardTools({ tracer })`). The tracer builds the TOOL_RESULT itself under a call it holds, so
 * the fields that hold by construction (ids, trace id, parent, block type, payload shape) are not
 * inspected again; the output, metadata and extra are (decision 080, third pass). Taken only
 * while the tracer's `logObserve` is its own (see `standsInFor`); not enumerable, so a spread
 * copy of a tracer does not carry it. Other `Tracer` implementations get `logObserve`.
 * @internal
 */
export const recordCallResult: unique symbol = Symbol('tracewarden.recordCallResult');

/** A tracer that records tool results directly. @internal */
export interface CallResultTracer extends Tracer {
  /**
   * Records `output` as the TOOL_RESULT of the TOOL_CALL with `callId`, as
   * `logObserve({ parent_block_id: call.id, payload: { call_id: callId, output }, metadata, extra })`
   * would.
   * @returns false, recording nothing, when the trace has no TOOL_CALL with this call id
   * @throws TraceError as `logObserve` would for the same result
   */
  [recordCallResult](
    callId: string,
    output: unknown,
    metadata: Record<string, unknown> | undefined,
    extra: Record<string, unknown> | undefined,
  ): boolean;
}
