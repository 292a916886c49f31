import type { ToolCallPolicy, Tracer } from '@tracewarden/core';

// The policy of each tracewardenMiddleware given both a tracer and a policy, by that tracer: the
// tools guardTools wraps with the same tracer check their calls against it when they run (a
// tool approval resumed in a fresh process runs the approved call before any model call, so no
// verdict of the middleware is there: without this, the call ran unchecked).
const policies = new WeakMap<Tracer, ToolCallPolicy>();

/**
 * Says that calls recorded into `tracer` are reviewed against `policy` (the middleware's).
 * @internal
 */
export function registerTracerPolicy(tracer: Tracer, policy: ToolCallPolicy): void {
  policies.set(tracer, policy);
}

/**
 * The policy a middleware reviews the calls of `tracer` against, if any.
 * @internal
 */
export function tracerPolicy(tracer: Tracer | undefined): ToolCallPolicy | undefined {
  return tracer === undefined ? undefined : policies.get(tracer);
}
