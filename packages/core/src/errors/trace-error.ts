import { TracewardenError } from './tracewarden-error.js';

/** The seed's trace error codes. */
export type TraceErrorCode =
  | 'VALIDATION'
  | 'PAYLOAD_TOO_LARGE'
  | 'PARENT_SUBTYPE_MISMATCH'
  | 'DUPLICATE_CALL_ID'
  | 'DUPLICATE_RESULT_SEQ';

/** HTTP status of each trace error code, as the seed's API returns it. */
export const traceErrorHttpStatus: Readonly<Record<TraceErrorCode, number>> = Object.freeze({
  VALIDATION: 422,
  PAYLOAD_TOO_LARGE: 413,
  PARENT_SUBTYPE_MISMATCH: 409,
  DUPLICATE_CALL_ID: 409,
  DUPLICATE_RESULT_SEQ: 409,
});

/**
 * Structured details of a trace error (snake_case, as on the wire). Which keys are present
 * depends on the code: size errors carry `limit_bytes` and `actual_bytes`, parent errors carry
 * `parent_block_id`, and so on.
 */
export interface TraceErrorDetails {
  sub_type?: string;
  field?: string;
  limit_bytes?: number;
  actual_bytes?: number;
  trace_id?: string | null;
  parent_block_id?: string | null;
  block_id?: string;
  call_id?: string;
  seq?: number;
  /** Where in the input the problem is: a block index, an event address or a JSON path. */
  path?: string;
  [key: string]: unknown;
}

/** The seed's wire body of an error. */
export interface TraceErrorBody {
  error: {
    code: TraceErrorCode;
    http_status: number;
    message: string;
    details: TraceErrorDetails;
  };
}

/** Options of {@link TraceError}. */
export interface TraceErrorOptions {
  code: TraceErrorCode;
  message: string;
  details?: TraceErrorDetails;
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.TraceError');

/**
 * A trace was invalid: a rejected block, payload or event. Serialises to exactly the seed's
 * error body with {@link TraceError.toJSON}.
 *
 * @example
 * ```ts
 * const err = new TraceError({ code: 'VALIDATION', message: 'payload.role must be one of system, user, assistant' });
 * JSON.stringify(err); // {"error":{"code":"VALIDATION","http_status":422,...}}
 * ```
 */
export class TraceError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: TraceErrorCode;
  /** HTTP status matching the code (422, 413 or 409). */
  readonly httpStatus: number;
  /** Structured, snake_case details. */
  readonly details: TraceErrorDetails;

  constructor(options: TraceErrorOptions) {
    super(options.code, { message: options.message, cause: options.cause });
    this.httpStatus = traceErrorHttpStatus[options.code];
    this.details = options.details ?? {};
  }

  /**
   * The seed's wire body.
   * @returns `{ error: { code, http_status, message, details } }`
   */
  toJSON(): TraceErrorBody {
    return {
      error: {
        code: this.code,
        http_status: this.httpStatus,
        message: this.message,
        details: this.details,
      },
    };
  }

  /**
   * Whether `error` is a `TraceError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (TraceError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is TraceError {
    return TracewardenError.hasMarker(error, marker);
  }
}
