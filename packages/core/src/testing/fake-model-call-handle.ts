import type {
  ModelCallAttempt,
  ModelCallDelta,
  ModelCallHandle,
  ModelCallOutcome,
  ModelCallResponse,
} from '../recording/types.js';
import { createTracer } from '../tracing/create-tracer.js';
import type { Tracer } from '../tracing/types.js';

/** How a {@link FakeModelCallHandle} ended. */
export type FakeCallEnd =
  | { kind: 'finished'; response: ModelCallResponse | undefined }
  | { kind: 'failed'; error: unknown }
  | { kind: 'cancelled' };

/** A {@link ModelCallHandle} that records what an adapter fed it, for adapter unit tests. */
export interface FakeModelCallHandle extends ModelCallHandle {
  /** Every delta given to `chunk()`, copied. */
  readonly deltas: ModelCallDelta[];
  /** Every attempt given to `attempt()`. */
  readonly attempts: ModelCallAttempt[];
  /** How the call ended (`undefined` while in flight). */
  readonly ended: FakeCallEnd | undefined;
  /** Makes the next `chunk()` return `error` (as the live budget cut-off does) and abort. */
  stopOnNextChunk(error: Error): void;
}

/** Options of {@link createFakeModelCallHandle}. */
export interface FakeModelCallHandleOptions {
  /** The outcome `finish()` returns. @default success, no tool calls */
  outcome?: Partial<ModelCallOutcome> | undefined;
  /** What `finish()` throws (e.g. a `PolicyViolationError`), after recording the end. */
  finishThrows?: unknown;
  /** @default a new tracer */
  tracer?: Tracer | undefined;
}

/**
 * A fake model call handle: records the deltas, attempts and end an adapter feeds it, and lets
 * a test make it stop a stream (`stopOnNextChunk`) or fail `finish()`, without a recorder.
 * @param options - the outcome `finish()` returns or what it throws
 * @returns the fake handle
 * @example
 * ```ts
 * const handle = createFakeModelCallHandle();
 * const gate = createStreamGate(handle, { holdToolCalls: false, dropToolCalls: false });
 * gate.push({ text: 'hi' }, 'content');
 * gate.end(false);
 * handle.ended; // { kind: 'finished', response: undefined }
 * ```
 */
export function createFakeModelCallHandle(
  options: FakeModelCallHandleOptions = {},
): FakeModelCallHandle {
  const controller = new AbortController();
  const deltas: ModelCallDelta[] = [];
  const attempts: ModelCallAttempt[] = [];
  let ended: FakeCallEnd | undefined;
  let stopError: Error | undefined;
  let stopped: Error | undefined;
  const tracer = options.tracer ?? createTracer();
  const handle: FakeModelCallHandle = {
    tracer,
    get signal() {
      return controller.signal;
    },
    get stopped() {
      return stopped !== undefined;
    },
    admission: undefined,
    get deltas() {
      return deltas;
    },
    get attempts() {
      return attempts;
    },
    get ended() {
      return ended;
    },
    stopOnNextChunk(error) {
      stopError = error;
    },
    attempt(attempt) {
      attempts.push({
        attempt: attempt.attempt ?? attempts.length + 1,
        ...attempt,
      } as ModelCallAttempt);
    },
    chunk(delta) {
      deltas.push({ ...delta });
      if (stopError === undefined) return undefined;
      stopped = stopError;
      stopError = undefined;
      controller.abort(stopped);
      return stopped;
    },
    finish(response) {
      if (ended === undefined) ended = { kind: 'finished', response };
      if (options.finishThrows !== undefined) throw options.finishThrows;
      return { status: 'success', toolCalls: [], refused: false, ...options.outcome };
    },
    fail(error) {
      const reason = stopped ?? error;
      if (ended === undefined) ended = { kind: 'failed', error: reason };
      return reason;
    },
    cancel() {
      if (ended === undefined) ended = { kind: 'cancelled' };
    },
    end(error, signal) {
      if (stopped === undefined && signal?.aborted === true) {
        handle.cancel();
        return error;
      }
      return handle.fail(error);
    },
  };
  return handle;
}
