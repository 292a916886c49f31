// A tool may throw anything, including values whose every inspection throws (a Proxy with
// throwing traps, an Error with a throwing `message` getter). These helpers never throw: the
// guard must still release the reservation, free the probe slot, record the call and rethrow.
const unreadableError = '(a thrown value that could not be read)';

/**
 * The message of a thrown value, as tracewarden records it (a tool result's `exception`, an
 * attempt's `error`, the `Error: <message>` an adapter sends the model for a failed tool): an
 * Error's `message`, a thrown object's string `message`, else the value as a string. Never
 * throws, whatever the value's getters do.
 * @param error - any thrown value
 * @returns its message
 * @example
 * ```ts
 * errorMessage(new Error('mail server down')); // 'mail server down'
 * errorMessage(404); // '404'
 * ```
 */
export function errorMessage(error: unknown): string {
  try {
    if (!(error instanceof Error)) {
      // a plain `{ message }` (what some libraries and JSON-decoded errors throw)
      const message: unknown =
        typeof error === 'object' && error !== null
          ? (error as { message?: unknown }).message
          : undefined;
      return typeof message === 'string' ? message : String(error);
    }
    const message: unknown = error.message;
    return typeof message === 'string' ? message : String(message);
  } catch {
    return unreadableError;
  }
}
