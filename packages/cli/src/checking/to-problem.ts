import { TraceError, TracewardenError } from '@tracewarden/core';
import type { Problem } from '../output/index.js';

/**
 * Turns a thrown error into a reported problem: a `TraceError` keeps its seed code, status and
 * details; anything else becomes a `VALIDATION` problem with its message.
 *
 * @param error - what was thrown
 * @param where - file, line and address of the problem
 * @returns the problem
 */
export function toProblem(
  error: unknown,
  where: Pick<Problem, 'file' | 'line' | 'address'>,
): Problem {
  if (
    error instanceof TraceError ||
    (TracewardenError.isInstance(error) && 'httpStatus' in error)
  ) {
    const traceError = error as TraceError;
    return {
      ...where,
      code: traceError.code,
      http_status: traceError.httpStatus,
      message: traceError.message,
      details: traceError.details,
    };
  }
  if (TracewardenError.isInstance(error))
    return { ...where, code: error.code, message: error.message };
  return {
    ...where,
    code: 'VALIDATION',
    http_status: 422,
    message: error instanceof Error ? error.message : String(error),
  };
}
