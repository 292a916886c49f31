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

/**
 * A dataset or JSONL file could not be read or written (missing file, permissions, a
 * directory in the way). Invalid content is a `TraceError` `VALIDATION` instead.
 *
 * @example
 * ```ts
 * try { await readDatasetJson('missing.json'); } catch (e) {
 *   if (e instanceof DatasetError) console.error(e.code, e.path);
 * }
 * ```
 */
export class DatasetError extends TracewardenError {
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
