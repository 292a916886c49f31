import { TracewardenError } from '@tracewarden/core';

/** Codes of {@link ServerError}: the collector's own wire errors, beside core's trace error codes. */
export type ServerErrorCode =
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'METHOD_NOT_ALLOWED'
  | 'INVALID_JSON'
  | 'INVALID_REQUEST'
  | 'HEADERS_TOO_LARGE'
  | 'REQUEST_TIMEOUT'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'SERVICE_UNAVAILABLE'
  | 'NOT_IMPLEMENTED'
  | 'INTERNAL';

/**
 * HTTP status of each {@link ServerErrorCode}.
 *
 * @example
 * ```ts
 * serverErrorHttpStatus.UNAUTHORIZED; // 401
 * ```
 */
export const serverErrorHttpStatus: Readonly<Record<ServerErrorCode, number>> = Object.freeze({
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  CONFLICT: 409,
  METHOD_NOT_ALLOWED: 405,
  INVALID_JSON: 400,
  INVALID_REQUEST: 400,
  HEADERS_TOO_LARGE: 431,
  REQUEST_TIMEOUT: 408,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SERVICE_UNAVAILABLE: 503,
  NOT_IMPLEMENTED: 501,
  INTERNAL: 500,
});

/** The seed 002 wire body of any error the collector answers with. */
export interface ErrorBody {
  error: {
    code: string;
    http_status: number;
    message: string;
    details: Record<string, unknown>;
  };
}

/** Options of {@link ServerError}. */
export interface ServerErrorOptions {
  code: ServerErrorCode;
  /** What was wrong and what to do about it. */
  message: string;
  /** Structured, snake_case details (on the wire as `details`). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

const marker = Symbol.for('tracewarden.error.ServerError');

/**
 * An HTTP-level problem the collector reports (no or a bad API key, an unknown route, malformed
 * JSON, a wrong content type). Trace rules are core's `TraceError`s; both serialise to the same
 * seed 002 body, `{ error: { code, http_status, message, details } }`.
 *
 * @example
 * ```ts
 * const error = new ServerError({ code: 'NOT_FOUND', message: 'trace tr_1 not found' });
 * JSON.stringify(error); // {"error":{"code":"NOT_FOUND","http_status":404,...}}
 * ```
 */
export class ServerError extends TracewardenError {
  /** @internal */
  readonly [marker] = true;
  declare readonly code: ServerErrorCode;
  /** HTTP status matching the code. */
  readonly httpStatus: number;
  /** Structured details. */
  readonly details: Record<string, unknown>;

  /**
   * @param options - code, message, details and cause
   */
  constructor(options: ServerErrorOptions) {
    super(options.code, { message: options.message, cause: options.cause });
    this.httpStatus = serverErrorHttpStatus[options.code];
    this.details = options.details ?? {};
  }

  /**
   * The seed's wire body.
   * @returns `{ error: { code, http_status, message, details } }`
   */
  toJSON(): ErrorBody {
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
   * Whether `error` is a `ServerError` (or a subclass's instance), from this or any other copy of
   * the package: use it rather than `instanceof`.
   * @param error - any thrown value
   * @returns true when `error` carries this class's marker
   * @example
   * ```ts
   * if (ServerError.isInstance(e)) console.error(e.code, e.message);
   * ```
   */
  static override isInstance(error: unknown): error is ServerError {
    return TracewardenError.hasMarker(error, marker);
  }
}
