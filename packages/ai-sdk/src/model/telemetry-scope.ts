import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Set while the telemetry integration runs a model call it records itself, to the names of the
 * call's tools that run through its `executeTool` (which refuses a blocked call): a middleware
 * that only traces then passes the call through, so a user who adds both records each call once,
 * and an enforcing middleware keeps a blocked call of such a tool for `executeTool` to refuse.
 * @internal
 */
export const telemetryScope = new AsyncLocalStorage<(toolName: string) => boolean>();
