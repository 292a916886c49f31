import { AsyncLocalStorage } from 'node:async_hooks';
import { configurationError } from '../errors/validate-options.js';
import type { TraceEntry } from '../model/tool-records.js';
import type { Tracer } from './types.js';

/**
 * One tool call an adapter runs for the model (`executeToolCalls`, an agent middleware's tool
 * step): the model's call id, and the trace that holds its TOOL_CALL. The first guarded function
 * called inside {@link ToolCallScope.run} — directly, or through the user's own function around
 * it (`({ city }) => guardedWeather(city)`) — that would record into that trace (or nowhere)
 * takes the call: it records no TOOL_CALL of its own under a new id, and hands its record (its
 * decisions, attempts, retries, cost) to the scope. The adapter then records the TOOL_RESULT of
 * what the model reads, with {@link scopedResultMetadata} adding the guard's record.
 *
 * @example
 * ```ts
 * const scope = new ToolCallScope('call_1', tracer);
 * const value = await scope.run(() => tools[name](args));
 * recordToolResult(tracer, {
 *   callId: 'call_1',
 *   output: String(value),
 *   metadata: scopedResultMetadata(scope, { status: 'success' }),
 * });
 * ```
 */
export class ToolCallScope {
  #claimed = false;
  #entry: TraceEntry | undefined;
  /** The enclosing `withTrace` tracer when the scope was made: `currentTracer()` inside it. */
  readonly outer: Tracer | undefined;

  /**
   * @param callId - the model's call id (the TOOL_CALL's `call_id`)
   * @param tracer - the trace that holds the TOOL_CALL; a guarded function that would record
   *   into another trace does not take the call
   */
  constructor(
    readonly callId: string,
    readonly tracer: Tracer | undefined,
  ) {
    if (typeof callId !== 'string' || callId === '')
      throw configurationError('ToolCallScope', 'callId', 'a non-empty string', callId);
    this.outer = currentTracer();
  }

  /** Whether a guarded function took the call. */
  get claimed(): boolean {
    return this.#claimed;
  }

  /** The record of the guarded function that took the call, once it finished. */
  get entry(): TraceEntry | undefined {
    return this.#entry;
  }

  /**
   * Takes the call for a guarded function: the first call gets the scope, later ones (a second
   * guarded function in the same tool) `undefined`.
   * @internal
   */
  claim(): this | undefined {
    if (this.#claimed) return undefined;
    this.#claimed = true;
    return this;
  }

  /** Keeps the record of the guarded function that took the call. @internal */
  hold(entry: TraceEntry): void {
    this.#entry = entry;
  }

  /** Runs `fn` (the tool) in this scope; `currentTracer()` inside it is still {@link outer}. */
  run<T>(fn: () => T): T {
    return storage.run(this, fn);
  }
}

// Creating the storage does no I/O and starts no timers; it only reserves a context slot.
const storage = new AsyncLocalStorage<Tracer | ToolCallScope>();

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
  const store = storage.getStore();
  return store instanceof ToolCallScope ? store.outer : store;
}

/**
 * What the innermost `withTrace` or {@link ToolCallScope.run} put in scope (one read for the
 * guard, which needs both).
 * @internal
 */
export function ambientScope(): Tracer | ToolCallScope | undefined {
  return storage.getStore();
}
