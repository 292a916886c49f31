/**
 * The `onRecordingError` a handler, a middleware or a guarded tool uses: the user's, else a
 * process warning (code `TRACEWARDEN_RECORDING`) saying what could not be recorded. A recording
 * failure never fails the user's call.
 * @param given - the user's `onRecordingError`, if any
 * @param what - what could not be recorded (`a LangChain run`, `a tool result`)
 * @internal
 */
export function recordingErrorReporter(
  given: ((error: unknown) => void) | undefined,
  what: string,
): (error: unknown) => void {
  return (
    given ??
    ((error) =>
      process.emitWarning(
        `tracewarden: ${what} could not be recorded: ${error instanceof Error ? error.message : String(error)}`,
        { code: 'TRACEWARDEN_RECORDING' },
      ))
  );
}
