import { AsyncLocalStorage } from 'node:async_hooks';
import type { ReviewedCalls, Tracer } from '@tracewarden/core';

/**
 * Set while the telemetry integration runs a model call it records itself, to its tracer and the
 * names of the call's tools that run through its `executeTool` (which refuses a blocked call): a middleware
 * that only traces then passes the call through, so a user who adds both records each call once,
 * and an enforcing middleware keeps a blocked call of such a tool for `executeTool` to refuse.
 * @internal
 */
export const telemetryScope = new AsyncLocalStorage<TelemetryScope>();

/** What {@link telemetryScope} holds while the integration runs a model call. @internal */
export interface TelemetryScope {
  /** Whether a blocked call of this tool is refused by the integration's `executeTool`. */
  refusesAtTool: (toolName: string) => boolean;
  /** The tracer the integration records the call into. */
  tracer: Tracer | undefined;
  /**
   * The verdicts of an enforcing middleware inside the call (set when it reviewed the answer):
   * the integration records them on its TOOL_CALL blocks, so its trace shows each blocked call
   * with its violations though the middleware recorded its own copy elsewhere.
   */
  reviewed: ReviewedCalls | undefined;
}
