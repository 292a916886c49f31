import { TracewardenError } from '../errors/index.js';

/** Options of {@link TracerFlushError}. */
export interface TracerFlushErrorOptions {
  /** The trace whose sinks failed. */
  traceId: string;
  /** `flush` or `shutdown`. */
  operation: 'flush' | 'shutdown';
  /** Every failure, in sink order (usually `SinkError`s). */
  errors: readonly unknown[];
  /** How many sinks failed (a sink may report several errors). @default errors.length */
  failedSinks?: number | undefined;
  /** How many sinks the tracer has. */
  sinkCount?: number | undefined;
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return '(an error that could not be read)';
  }
}

function where(failed: number, total: number | undefined): string {
  // failures of the tracer's own (a deferred block refused when built) belong to no sink
  if (failed === 0) return 'in the tracer';
  const sinks = `${failed} sink${failed === 1 ? '' : 's'}`;
  return total === undefined ? `in ${sinks}` : `in ${sinks} of ${total}`;
}

const marker = Symbol.for('tracewarden.error.TracerFlushError');

/** The text without its final full stop: the message adds its own after it. */
function withoutFinalStop(text: string): string {
  return text.endsWith('.') ? text.slice(0, -1) : text;
}

/**
 * One or more sinks of a tracer failed to flush or close, or threw from `write()`. Every sink
 * was attempted; `errors` holds each failure. Blocks a file sink could not write stay buffered
 * in that sink, so a later `flush()` retries them.
 *
 * @example
 * ```ts
 * try { await tracer.flush(); } catch (e) {
 *   if (TracerFlushError.isInstance(e)) for (const cause of e.errors) console.error(cause);
 * }
 * ```
 */
export class TracerFlushError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: 'TRACER_FLUSH_FAILED';
  /** Every failure, in sink order. */
  readonly errors: readonly unknown[];
  /** The trace whose sinks failed. */
  readonly traceId: string;
  /** How many sinks failed. */
  readonly failedSinks: number;

  /**
   * @param options - the trace id, the operation and every failure
   */
  constructor(options: TracerFlushErrorOptions) {
    const failed = options.failedSinks ?? options.errors.length;
    super('TRACER_FLUSH_FAILED', {
      message: `${options.operation}() of trace ${options.traceId} failed ${where(failed, options.sinkCount)}: ${withoutFinalStop(options.errors.map(describe).join('; '))}. Fix the cause and call flush() again; unwritten blocks are kept.`,
      cause: options.errors[0],
    });
    this.errors = options.errors;
    this.traceId = options.traceId;
    this.failedSinks = options.failedSinks ?? options.errors.length;
  }

  /**
   * Whether `error` is a `TracerFlushError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (TracerFlushError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is TracerFlushError {
    return TracewardenError.hasMarker(error, marker);
  }
}
