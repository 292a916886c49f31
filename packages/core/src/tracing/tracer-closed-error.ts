import { TracewardenError } from '../errors/index.js';

/** Options of {@link TracerClosedError}. */
export interface TracerClosedErrorOptions {
  /** The trace that was shut down. */
  traceId: string;
  /** The method that was called after `shutdown()`, e.g. `logAct`. */
  method: string;
}

const marker = Symbol.for('tracewarden.error.TracerClosedError');

/**
 * A `log*` or `recordEntry` call reached a tracer after its `shutdown()`. Nothing was recorded.
 * Create a new tracer for a new run.
 *
 * @example
 * ```ts
 * await tracer.shutdown();
 * tracer.logMessage({ role: 'user', content: 'hi' }); // throws TracerClosedError (TRACER_CLOSED)
 * ```
 */
export class TracerClosedError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: 'TRACER_CLOSED';
  /** The trace that was shut down. */
  readonly traceId: string;

  /**
   * @param options - the trace id and the method that was called
   */
  constructor(options: TracerClosedErrorOptions) {
    super('TRACER_CLOSED', {
      message: `${options.method}() was called after shutdown() of trace ${options.traceId}; nothing was recorded. Create a new tracer with createTracer() for a new run.`,
    });
    this.traceId = options.traceId;
  }

  /**
   * Whether `error` is a `TracerClosedError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (TracerClosedError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is TracerClosedError {
    return TracewardenError.hasMarker(error, marker);
  }
}
