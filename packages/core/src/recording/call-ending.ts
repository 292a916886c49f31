/*
 * How a call that threw ended: the caller stopped it, or a deadline did.
 */

/**
 * Whether an error means the caller stopped the call: their signal aborted, or an abort error by
 * name (`AbortError`, the OpenAI SDK's `APIUserAbortError`, whose `name` is plain 'Error' on
 * openai 7, hence the class name too).
 * @internal
 */
export function isAbort(error: unknown, signal: AbortSignal | null | undefined): boolean {
  if (signal?.aborted === true) return true;
  const name = classNameOf(error);
  return name === 'AbortError' || name === 'APIUserAbortError' || name === 'ResponseAborted';
}

/**
 * An Error's name, or its class's name when the name is plain 'Error' (the OpenAI SDK's errors
 * on openai 7); `undefined` for anything that is no Error.
 */
function classNameOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  return error.name === 'Error' ? error.constructor.name : error.name;
}

/** Whether an abort came from a deadline (a `TimeoutError` as the error or the signal's reason). @internal */
export function isTimeout(error: unknown, signal: AbortSignal | null | undefined): boolean {
  const reason: unknown = signal?.aborted === true ? signal.reason : undefined;
  return (
    (error as { name?: unknown } | null)?.name === 'TimeoutError' ||
    (reason as { name?: unknown } | null)?.name === 'TimeoutError'
  );
}

/**
 * Whether an error is an SDK's own request deadline (the OpenAI SDK's `timeout` option:
 * `APIConnectionTimeoutError`, named plain 'Error' on openai 7, hence the class name too; a
 * `TimeoutError`, as `@langchain/openai` renames it and as `AbortSignal.timeout()` names its
 * reason): the call timed out, as with `timeoutSeconds`.
 * @internal
 */
export function isSdkTimeout(error: unknown): boolean {
  const name = classNameOf(error);
  return name === 'APIConnectionTimeoutError' || name === 'TimeoutError';
}
