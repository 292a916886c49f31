import { AsyncLocalStorage } from 'node:async_hooks';
import { configurationError } from '../errors/validate-options.js';
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
 * @throws {ConfigurationError} when `tracer` is not a tracer or `fn` not a function
 * @example
 * ```ts
 * const tracer = createTracer();
 * await withTrace(tracer, async () => {
 *   await new Promise((resolve) => setTimeout(resolve, 1));
 *   // adapters and guards find the trace here without being handed it
 *   currentTracer()?.logMessage({ role: 'user', content: 'still in the trace after an await' });
 * });
 * console.log(tracer.blocks().length); // → 1
 * ```
 */
export function withTrace<T>(tracer: Tracer, fn: () => T): T {
  // checked by hand, not by schema: withTrace runs per request, and a wrong tracer would
  // otherwise surface later, in every guard and adapter that finds it
  if (
    (typeof tracer !== 'object' && typeof tracer !== 'function') ||
    tracer === null ||
    typeof tracer.recordEntry !== 'function' ||
    typeof tracer.logMessage !== 'function'
  )
    throw configurationError('withTrace', 'tracer', 'a Tracer (from createTracer())', tracer);
  if (typeof fn !== 'function')
    throw configurationError('withTrace', 'fn', 'a function to run in the trace', fn);
  return storage.run(tracer, fn);
}

/**
 * The tracer of the innermost enclosing {@link withTrace}, if any.
 *
 * @returns the active tracer, or `undefined` outside any `withTrace`
 * @example
 * ```ts
 * const tracer = createTracer();
 * withTrace(tracer, () => {
 *   const active = currentTracer();
 *   const message = active?.logMessage({ role: 'assistant', content: null });
 *   if (message !== undefined)
 *     active?.logThink({ parent_block_id: message.id, payload: { text: 'page size too large; retrying' } });
 * });
 * console.log(currentTracer()); // → undefined
 * console.log(tracer.blocks().map((block) => block.sub_type).join(' ')); // → MESSAGE THINK
 * ```
 */
export function currentTracer(): Tracer | undefined {
  return storage.getStore();
}
