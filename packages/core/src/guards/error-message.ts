// A tool may throw anything, including values whose every inspection throws (a Proxy with
// throwing traps, an Error with a throwing `message` getter). These helpers never throw: the
// guard must still release the reservation, free the probe slot, record the call and rethrow.
const unreadableError = '(a thrown value that could not be read)';

/**
 * The message of a thrown value, as a guard records it (`exception`, an attempt's `error`):
 * an Error's `message`, else the value as a string. Never throws.
 * @internal
 */
export function errorMessage(error: unknown): string {
  try {
    if (!(error instanceof Error)) return String(error);
    const message: unknown = error.message;
    return typeof message === 'string' ? message : String(message);
  } catch {
    return unreadableError;
  }
}
