import { AsyncLocalStorage } from 'node:async_hooks';
import type { Tracer } from './types.js';

// Creating the storage does no I/O and starts no timers; it only reserves a context slot.
const storage = new AsyncLocalStorage<Tracer>();

/**
 * Runs `fn` with `tracer` as the active trace: {@link currentTracer} returns it anywhere inside
 * `fn`, including after `await`s, in timers and in promise callbacks started there. Scopes nest:
 * an inner `withTrace` shadows the outer one until it returns.
 *
 * @param tracer - the trace adapters and guards should record into
 * @param fn - the work to run; may be async
 * @returns whatever `fn` returns (a promise if `fn` is async)
 * @example
 * ```ts
 * const tracer = createTracer();
 * await withTrace(tracer, async () => {
 *   await agent.run(); // adapters call currentTracer() and log into `tracer`
 * });
 * ```
 */
export function withTrace<T>(tracer: Tracer, fn: () => T): T {
  return storage.run(tracer, fn);
}

/**
 * The tracer of the innermost enclosing {@link withTrace}, if any.
 *
 * @returns the active tracer, or `undefined` outside any `withTrace`
 * @example
 * ```ts
 * const tracer = currentTracer();
 * tracer?.logThink({ payload: { text: 'retrying with a smaller page size' } });
 * ```
 */
export function currentTracer(): Tracer | undefined {
  return storage.getStore();
}
