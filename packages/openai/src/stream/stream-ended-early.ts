/**
 * The error recorded for a stream whose body ended cleanly before the model finished (no
 * finish reason, no final event): a proxy or the connection closed it early. The SDK ends the
 * caller's loop without an error; the trace says what happened.
 * @param missing - what never arrived (`finish_reason`, `response.completed event`)
 * @internal
 */
export function streamEndedEarly(missing: string): Error {
  const error = new Error(
    `the stream ended before the model finished: no ${missing} arrived (a proxy or the connection closed it early); the answer recorded is partial`,
  );
  error.name = 'IncompleteStreamError';
  return error;
}
