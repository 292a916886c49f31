import type { Tracer } from './types.js';

/**
 * Key of the set of functions `createTracer`'s tracers run when `shutdown()` is first called,
 * before the last blocks go to the sinks: what is still in flight in this trace (a model call
 * whose stream nobody finished reading) is recorded then, not lost. Not enumerable; other
 * `Tracer` implementations have none, and nothing is run for them.
 * @internal
 */
export const beforeShutdown: unique symbol = Symbol('tracewarden.beforeShutdown');

/** A tracer that runs functions before it shuts down. @internal */
export interface ShutdownHookTracer extends Tracer {
  readonly [beforeShutdown]: Set<() => void>;
}

/**
 * Runs `hook` once when `tracer` shuts down (`createTracer`'s tracers; no other).
 * @returns whether the tracer takes hooks
 * @internal
 */
export function onTracerShutdown(tracer: Tracer, hook: () => void): boolean {
  const hooks = (tracer as Partial<ShutdownHookTracer>)[beforeShutdown];
  if (hooks === undefined) return false;
  hooks.add(hook);
  return true;
}
