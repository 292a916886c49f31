import { TracewardenError } from '../errors/index.js';

/** Codes of {@link DatasetError}. */
export type DatasetErrorCode = 'DATASET_READ_FAILED' | 'DATASET_WRITE_FAILED';

/** Options of {@link DatasetError}. */
export interface DatasetErrorOptions {
  /** `DATASET_READ_FAILED` or `DATASET_WRITE_FAILED`. */
  code: DatasetErrorCode;
  /** What went wrong and what to do about it. */
  message: string;
  /** The file that could not be read or written. */
  path: string;
  /** The underlying I/O error. */
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.DatasetError');

/**
 * A dataset or JSONL file could not be read or written (missing file, permissions, a
 * directory in the way). Invalid content is a `TraceError` `VALIDATION` instead.
 *
 * @example
 * ```ts
 * try { await readDatasetJson('missing.json'); } catch (e) {
 *   if (DatasetError.isInstance(e)) console.error(e.code, e.path);
 * }
 * ```
 */
export class DatasetError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: DatasetErrorCode;
  /** The file that could not be read or written. */
  readonly path: string;

  /**
   * @param options - code, message, path and cause
   */
  constructor(options: DatasetErrorOptions) {
    super(options.code, { message: options.message, cause: options.cause });
    this.path = options.path;
  }

  /**
   * Whether `error` is a `DatasetError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (DatasetError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is DatasetError {
    return TracewardenError.hasMarker(error, marker);
  }
}

/** @internal Wraps an I/O failure, passing tracewarden errors through. */
export function toDatasetError(error: unknown, code: DatasetErrorCode, path: string): unknown {
  if (TracewardenError.isInstance(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  const verb = code === 'DATASET_READ_FAILED' ? 'read' : 'write';
  return new DatasetError({
    code,
    path,
    message: `could not ${verb} ${path} (${reason}); check that the path exists and is ${verb === 'read' ? 'a readable' : 'a writable'} file`,
    cause: error,
  });
}
