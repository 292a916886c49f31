/**
 * An error body in the OpenAI API's format.
 *
 * @internal
 */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/**
 * Builds an error body in the OpenAI API's format, `{ error: { message, type, param, code } }`.
 *
 * @internal
 * @param message - What was wrong and what to do about it.
 * @param type - Error type, for example `invalid_request_error` or `server_error`.
 * @param param - The offending request parameter.
 * @param code - A machine-readable code.
 * @returns The body.
 */
export function openAIErrorBody(
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
): OpenAIErrorBody {
  return { error: { message, type, param, code } };
}

/**
 * The default body of a scripted status fault, shaped like the real API's answer for that status.
 *
 * @internal
 * @param status - The HTTP status.
 * @returns The body.
 */
export function faultErrorBody(status: number): OpenAIErrorBody {
  if (status === 429) {
    return openAIErrorBody(
      'Rate limit reached (scripted fault). Please try again later.',
      'requests',
      null,
      'rate_limit_exceeded',
    );
  }
  if (status >= 500) {
    return openAIErrorBody(
      `The server had an error while processing your request (scripted fault, status ${status}).`,
      'server_error',
    );
  }
  return openAIErrorBody(`Scripted fault with status ${status}.`, 'invalid_request_error');
}
