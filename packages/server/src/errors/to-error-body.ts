import { TraceError } from '@tracewarden/core';
import { type ErrorBody, ServerError } from './server-error.js';

/**
 * The HTTP status and seed 002 body of anything thrown while answering a request. Trace and
 * server errors keep their code and details; anything else is an `INTERNAL` 500 whose message
 * says nothing about the internals (the cause is logged, not sent).
 *
 * @param error - the thrown value
 * @returns the status and the wire body
 * @example
 * ```ts
 * const { status, body } = toErrorBody(new ServerError({ code: 'UNAUTHORIZED', message: 'no key' }));
 * status; // 401
 * ```
 */
export function toErrorBody(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof TraceError) {
    const body = error.toJSON();
    return { status: error.httpStatus, body: body as unknown as ErrorBody };
  }
  if (error instanceof ServerError) return { status: error.httpStatus, body: error.toJSON() };
  const internal = new ServerError({
    code: 'INTERNAL',
    message: 'the collector failed to answer this request; see its log, and retry',
  });
  return { status: internal.httpStatus, body: internal.toJSON() };
}
