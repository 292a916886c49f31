import { TracewardenError } from '../errors/index.js';

/** Codes of {@link SinkError}. */
export type SinkErrorCode = 'SINK_WRITE_FAILED' | 'SINK_CLOSED';

/** Options of {@link SinkError}. */
export interface SinkErrorOptions {
  /** `SINK_WRITE_FAILED` or `SINK_CLOSED`. */
  code: SinkErrorCode;
  /** What went wrong and what to do about it. */
  message: string;
  /** The file (or other destination) the sink writes to, when it has one. */
  path?: string;
  /** Number of blocks still buffered, kept for the next `flush()`. */
  pendingBlocks?: number;
  /** Number of blocks the sink could not write at all (no JSON form) and dropped. */
  droppedBlocks?: number;
  /** The underlying I/O error. */
  cause?: unknown;
}

/**
 * A sink could not make blocks durable (`SINK_WRITE_FAILED`: the blocks stay buffered and the
 * next `flush()` retries them), or was used after `close()` (`SINK_CLOSED`).
 *
 * @example
 * ```ts
 * try { await sink.flush(); } catch (e) {
 *   if (e instanceof SinkError && e.code === 'SINK_WRITE_FAILED') console.error(e.path, e.cause);
 * }
 * ```
 */
export class SinkError extends TracewardenError {
  declare readonly code: SinkErrorCode;
  /** The destination path, when the sink writes to a file. */
  readonly path: string | undefined;
  /** Blocks still buffered after the failure (retried by the next `flush()`). */
  readonly pendingBlocks: number | undefined;
  /** Blocks dropped because they have no JSON form (reported by every later `flush()`). */
  readonly droppedBlocks: number | undefined;

  /**
   * @param options - code, message, and the path, pending count and cause when known
   */
  constructor(options: SinkErrorOptions) {
    super(options.code, { message: options.message, cause: options.cause });
    this.path = options.path;
    this.pendingBlocks = options.pendingBlocks;
    this.droppedBlocks = options.droppedBlocks;
  }

  /**
   * Whether `error` is a sink error, from this or any other copy of the package.
   * @param error - any thrown value
   * @returns true for a tracewarden error with code `SINK_WRITE_FAILED` or `SINK_CLOSED`
   */
  static override isInstance(error: unknown): error is SinkError {
    return (
      TracewardenError.isInstance(error) &&
      (error.code === 'SINK_WRITE_FAILED' || error.code === 'SINK_CLOSED')
    );
  }
}
