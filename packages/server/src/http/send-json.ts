import type { ServerResponse } from 'node:http';

/**
 * Answers with a JSON body.
 * @internal
 */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, {
    ...(text === '' ? {} : { 'content-type': 'application/json; charset=utf-8' }),
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(text);
}

/**
 * Answers with a body already serialised as JSON (encoded once: no second pass to count bytes).
 * @internal
 */
export function sendJsonText(response: ServerResponse, status: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(bytes.length),
    'cache-control': 'no-store',
  });
  response.end(bytes);
}
