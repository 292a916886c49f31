import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ServerError, type ServerErrorCode } from '../errors/index.js';

/** What a request Node's HTTP parser refused gets: the status, the code and what to fix. */
function answerOf(error: NodeJS.ErrnoException): {
  code: ServerErrorCode;
  message: string;
} {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'HEADERS_TOO_LARGE',
        message: "the request's headers are larger than the collector reads; send smaller headers",
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        code: 'REQUEST_TIMEOUT',
        message:
          'the request did not arrive in time (its body stalled); send the whole body, as its Content-Length says',
      };
    default:
      return {
        code: 'INVALID_REQUEST',
        message: `the request is not valid HTTP/1.1 (${error.code ?? error.message}); check its request line, Content-Length and Transfer-Encoding`,
      };
  }
}

/**
 * Answers a request Node's HTTP server refuses before any handler sees it (a malformed request
 * line or header, headers too large, a stalled body) in seed 002's error shape, as every other
 * error of the collector, instead of a bare status line. A connection the client reset, or one
 * whose answer has begun, is closed without one.
 *
 * @param error - the `clientError` event's error
 * @param socket - the connection
 * @example
 * ```ts
 * server.on('clientError', answerClientError);
 * ```
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inProgress = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent === true) {
    socket.destroy();
    return;
  }
  const { code, message } = answerOf(error);
  const refusal = new ServerError({ code, message });
  const body = JSON.stringify(refusal.toJSON());
  const status = refusal.httpStatus;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
