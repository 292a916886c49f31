import { TracewardenError } from '../errors/index.js';

/**
 * Codes of {@link SinkError}:
 * - `SINK_WRITE_FAILED`: blocks could not be made durable yet; they stay buffered and the next
 *   `flush()` retries them (or, with `droppedBlocks`, blocks with no JSON form were dropped).
 * - `SINK_CLOSED`: the sink was used after `close()`.
 * - `SINK_REJECTED`: the destination refused blocks for good (an HTTP 4xx other than 429, with
 *   the server's error in `serverError`); those blocks are not retried.
 * - `SINK_BUFFER_FULL`: blocks arrived while the sink already held its maximum, and were dropped.
 */
export type SinkErrorCode =
  | 'SINK_WRITE_FAILED'
  | 'SINK_CLOSED'
  | 'SINK_REJECTED'
  | 'SINK_BUFFER_FULL';

/** A server's error answer (seed 002's body: `{ error: { code, http_status, message, details } }`). */
export interface SinkServerError {
  /** The server's code, e.g. `VALIDATION`, `UNAUTHORIZED`, `PAYLOAD_TOO_LARGE`. */
  code: string;
  /** The HTTP status of the answer. */
  http_status: number;
  /** The server's message. */
  message: string;
  /** The server's details (`{}` when it sent none). */
  details: Record<string, unknown>;
}

/** Options of {@link SinkError}. */
export interface SinkErrorOptions {
  /** One of {@link SinkErrorCode}. */
  code: SinkErrorCode;
  /** What went wrong and what to do about it. */
  message: string;
  /** The file (or other destination) the sink writes to, when it has one. */
  path?: string;
  /** Number of blocks still buffered, kept for the next `flush()`. */
  pendingBlocks?: number;
  /** Number of blocks the sink could not write at all (no JSON form, a full buffer, a refusal) and dropped. */
  droppedBlocks?: number;
  /** The server's error answer, when a server refused the blocks. */
  serverError?: SinkServerError;
  /** The trace the failed blocks belong to, when they belong to one. */
  traceId?: string;
  /** The underlying I/O error. */
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.SinkError');

/**
 * A sink could not make blocks durable (`SINK_WRITE_FAILED`: the blocks stay buffered and the
 * next `flush()` retries them), was used after `close()` (`SINK_CLOSED`), had blocks refused by
 * its destination (`SINK_REJECTED`, with `serverError`) or dropped blocks because its buffer was
 * full (`SINK_BUFFER_FULL`).
 *
 * @example
 * ```ts
 * try { await sink.flush(); } catch (e) {
 *   if (SinkError.isInstance(e) && e.code === 'SINK_WRITE_FAILED') console.error(e.path, e.cause);
 * }
 * ```
 */
export class SinkError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: SinkErrorCode;
  /** The destination path, when the sink writes to a file. */
  readonly path: string | undefined;
  /** Blocks still buffered after the failure (retried by the next `flush()`). */
  readonly pendingBlocks: number | undefined;
  /** Blocks dropped (no JSON form, a full buffer, refused by the destination). */
  readonly droppedBlocks: number | undefined;
  /** The server's error answer, for `SINK_REJECTED`. */
  readonly serverError: SinkServerError | undefined;
  /** The trace of the failed blocks, when known. */
  readonly traceId: string | undefined;

  /**
   * @param options - code, message, and the path, pending count and cause when known
   */
  constructor(options: SinkErrorOptions) {
    super(options.code, { message: options.message, cause: options.cause });
    this.path = options.path;
    this.pendingBlocks = options.pendingBlocks;
    this.droppedBlocks = options.droppedBlocks;
    this.serverError = options.serverError;
    this.traceId = options.traceId;
  }

  /**
   * Whether `error` is a `SinkError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (SinkError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is SinkError {
    return TracewardenError.hasMarker(error, marker);
  }
}
