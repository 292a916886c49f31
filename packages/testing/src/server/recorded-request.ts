/**
 * One HTTP request the scripted server received, as kept in `server.requests`.
 * Credentials are never kept: `authorization`, `api-key`, `x-api-key` and `cookie` values are
 * replaced by `'[redacted]'`.
 *
 * @example
 * ```ts
 * const last: RecordedRequest | undefined = server.requests.at(-1);
 * expect(last?.body?.model).toBe('gpt-4o-mini');
 * ```
 */
export interface RecordedRequest {
  /** The `x-request-id` the server answered with (`req_1`, `req_2`, ...). */
  requestId: string;
  /** HTTP method, upper case. */
  method: string;
  /** Path without the query string, for example `/v1/chat/completions`. */
  path: string;
  /** Request headers, lower-case names, repeated values joined with `, `, credentials redacted. */
  headers: Record<string, string>;
  /** The body parsed as JSON when it is a JSON object, else `undefined`. */
  body: Record<string, unknown> | undefined;
  /** The body as received, decoded as UTF-8 (credentials in bodies are not redacted). */
  rawBody: string;
  /** When the request arrived, in milliseconds since the epoch. */
  time: number;
}
