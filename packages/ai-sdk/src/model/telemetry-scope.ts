import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Set while the telemetry integration runs a model call it records itself: the middleware then
 * passes the call through, so a user who adds both records each call once.
 * @internal
 */
export const telemetryScope = new AsyncLocalStorage<true>();
