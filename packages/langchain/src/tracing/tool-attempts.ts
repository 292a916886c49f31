import type { Tracer } from '@tracewarden/core';
import type { ToolResultInput } from './tool-result-of.js';

/**
 * The attempts of tool calls a retry middleware (`toolRetryMiddleware`) runs again: per trace,
 * the calls (by id) whose last run failed, with the attempt it was. A run of such a call is the
 * next attempt, and its result is recorded beside the failure (core's `recordToolResult`
 * `retry`). Forgotten when a model call starts: the last answer's retries are over, and an id
 * the next answer uses again (`call_0`) is a new call. A call without an id (`""`) has none.
 * @internal
 */
export class ToolAttempts {
  readonly #failed = new WeakMap<Tracer, Map<string, number>>();

  /** The attempt a run of this call is: 1, or one more than its last failed run's. */
  of(tracer: Tracer, callId: string): number {
    return callId === '' ? 1 : (this.#failed.get(tracer)?.get(callId) ?? 0) + 1;
  }

  /** A run of this call ended: after a failure another attempt may follow. */
  ended(tracer: Tracer, callId: string, attempt: number, failed: boolean): void {
    if (callId === '') return;
    let tries = this.#failed.get(tracer);
    if (!failed) {
      tries?.delete(callId);
      return;
    }
    if (tries === undefined) this.#failed.set(tracer, (tries = new Map()));
    tries.set(callId, attempt);
  }

  /** A model call started in this trace: its retries are over. */
  forget(tracer: Tracer): void {
    this.#failed.delete(tracer);
  }
}

/**
 * A result of a call's later attempt: recorded beside the earlier attempt's result, with its
 * number (`metadata.attempt`). The first attempt's is recorded as it is.
 * @internal
 */
export function asAttempt(input: ToolResultInput, attempt: number): ToolResultInput {
  if (attempt === 1) return input;
  return { ...input, retry: true, metadata: { ...input.metadata, attempt } };
}
