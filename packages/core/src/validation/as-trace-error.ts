import { TraceError } from '../errors/index.js';

/**
 * Turns anything thrown while reading a block (a throwing getter or proxy trap in user data)
 * into a `VALIDATION` error, so validation never throws anything but a {@link TraceError}.
 * @internal
 */
export function asTraceError(error: unknown, path: string | undefined): TraceError {
  if (TraceError.isInstance(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new TraceError({
    code: 'VALIDATION',
    message: `${path === undefined ? 'block' : `block ${path}`}: could not be read (${reason}); pass plain JSON data`,
    details: path === undefined ? {} : { path },
    cause: error,
  });
}
