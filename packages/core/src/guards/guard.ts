import type { CircuitState } from '../model/tool-records.js';
import type {
  GuardedFunction,
  GuardInvokeOptions,
  GuardOptions,
  ToolArgs,
} from './guard-options.js';
import { checkGuardArguments, checkInvokeOptions } from './guard-options-schema.js';
import { GuardRuntime } from './guard-runtime.js';

const runtimeOf: unique symbol = Symbol('tracewarden.guardRuntime');

/**
 * The `breakerState` getter of every guarded function: one function, so every guarded function
 * has the same hidden class (see {@link guard}).
 */
function breakerStateOf(
  this: { [runtimeOf]?: GuardRuntime } | undefined,
): CircuitState | undefined {
  return this?.[runtimeOf]?.breakerState;
}

/**
 * Guards a tool function: the returned function takes the same arguments (sync or async tool;
 * always async) and applies, in this order: circuit breaker → rate limit → budget reservation →
 * input validation → execution under retry × timeout → output validation → hallucination check →
 * budget settlement → breaker update → record. Each guard's action is `block` (throw a
 * {@link GuardError}), `warn` (report through `logger`, let the call proceed) or `log` (record only).
 *
 * The tool receives one extra last argument, a {@link GuardCallContext} `{ signal, attempt, callId }`.
 * When anything listens (a `tracer`, the ambient tracer, `onEntry`, `beforeCall`, `afterCall`),
 * each call produces a seed-004 {@link TraceEntry} whose `result.metadata.guard` holds every
 * attempt and guard decision; with a tracer it is recorded as TOOL_CALL + TOOL_RESULT blocks.
 * A successful call after retries has status `success` with `retry_count` > 0; `retried` is never
 * a final status.
 *
 * @param fn - the tool (its `this` is not bound: bind methods first)
 * @param options - guards, tracing, hooks, injectable clock, sleep and random
 * @returns the guarded function, with `invoke`, `breakerState`, `budget` and `stats`
 * @example
 * ```ts
 * const search = guard(async (q: string) => api.search(q), {
 *   name: 'search',
 *   retry: { maxRetries: 2 },
 *   timeout: { timeoutSeconds: 10 },
 *   circuitBreaker: { failureThreshold: 5 },
 *   rateLimit: { callsPerSecond: 5, burst: 5 },
 *   budget: { maxCostPerSession: 1, costPerCall: 0.001 },
 * });
 * await search('tracewarden');
 * ```
 */
export function guard<Args extends unknown[], Result>(
  fn: (...args: Args) => Result | PromiseLike<Result>,
  options: GuardOptions<Result> = {},
): GuardedFunction<ToolArgs<Args>, Result> {
  checkGuardArguments(fn, options);
  const runtime = new GuardRuntime(fn as (...args: unknown[]) => unknown, options as GuardOptions);
  const plan = runtime.quietPlan;
  const guarded =
    plan === undefined
      ? (...args: unknown[]) => runtime.run(args, undefined)
      : (...args: unknown[]) => plan.run(args);
  // `breakerState` is one shared getter: a getter made per function would give each guarded
  // function its own hidden class, which lives in old space and is a root for the young-
  // generation GC (keeping every guard, its tracer and its trace alive until a full GC)
  Object.defineProperties(guarded, {
    name: { value: runtime.name },
    invoke: {
      value: (invokeOptions: GuardInvokeOptions, ...args: unknown[]) => {
        try {
          checkInvokeOptions(invokeOptions);
        } catch (error) {
          return Promise.reject(error);
        }
        return runtime.run(args, invokeOptions);
      },
    },
    toolName: { value: runtime.name, enumerable: true },
    breakerState: { get: breakerStateOf, enumerable: true },
    budget: { value: runtime.budget, enumerable: true },
    stats: { value: runtime.stats, enumerable: true },
    [runtimeOf]: { value: runtime },
  });
  return guarded as unknown as GuardedFunction<ToolArgs<Args>, Result>;
}
