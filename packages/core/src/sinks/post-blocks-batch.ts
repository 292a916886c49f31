import { nodeZlib } from '../platform/node-builtins.js';
import { isRetryableStatus, parseRetryAfter } from './http-sink-retry.js';
import type { SinkServerError } from './sink-error.js';

/** `text` gzipped, off the main thread (zlib's thread pool). */
function gzipText(text: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    nodeZlib().gzip(text, (error, compressed) =>
      error === null ? resolve(compressed) : reject(error),
    );
  });
}

/**
 * Bodies smaller than this are sent as they are even with gzip on: compressing a few hundred
 * bytes saves nothing worth the CPU.
 * @internal
 */
export const gzipMinBytes = 1024;

/** Longest part of a non-JSON error answer kept in a message. */
const maxQuotedBodyChars = 300;

/** What became of one POST of a batch. @internal */
export type BatchOutcome =
  | { kind: 'committed' }
  /** Worth sending again: a network error, a timeout, 408, 429 or 5xx. */
  | {
      kind: 'retry';
      reason: string;
      status?: number;
      retryAfterMs?: number | undefined;
      cause?: unknown;
    }
  /** A 413 for a request limit (body, decompressed body, blocks per batch): smaller batches may pass. */
  | { kind: 'too-large'; serverError: SinkServerError }
  /** Refused for good (another 4xx). */
  | { kind: 'rejected'; serverError: SinkServerError };

/** One POST of a batch. @internal */
export interface BatchRequest {
  /** `{url}/v1/organizations/{organization}/traces/{traceId}/blocks` */
  endpoint: string;
  apiKey: string;
  /** Each block's JSON text, in order. */
  blocks: readonly string[];
  gzip: boolean;
  timeoutMs: number;
  fetch: typeof globalThis.fetch;
  /** The clock for `Retry-After` dates. */
  now: () => number;
}

/** Request limits of the collector whose 413 says "send fewer bytes or blocks per request". */
const requestLimitFields = new Set(['body', 'decompressed_body', 'blocks']);

/**
 * POSTs `{ "blocks": [...] }` and classifies the answer. Never throws: every failure is an
 * outcome, so the caller decides between retrying, splitting and reporting.
 * @internal
 */
export async function postBlocksBatch(request: BatchRequest): Promise<BatchOutcome> {
  const text = `{"blocks":[${request.blocks.join(',')}]}`;
  const headers: Record<string, string> = {
    authorization: `Bearer ${request.apiKey}`,
    'content-type': 'application/json',
  };
  let body: string | Uint8Array = text;
  if (request.gzip && text.length >= gzipMinBytes) {
    body = await gzipText(text);
    headers['content-encoding'] = 'gzip';
  }
  let response: Response;
  let answer: string;
  try {
    const signal = AbortSignal.timeout(request.timeoutMs);
    response = await request.fetch(request.endpoint, {
      method: 'POST',
      headers,
      body: body as NonNullable<RequestInit['body']>,
      signal,
      // a redirect followed turns the POST into a GET (301, 302, 303): nothing would be stored,
      // yet the answer could be a 2xx. Refused below, with the address to use instead.
      redirect: 'manual',
    });
    answer = await response.text();
  } catch (cause) {
    const timedOut = cause instanceof Error && cause.name === 'TimeoutError';
    return {
      kind: 'retry',
      reason: timedOut
        ? `no answer within ${request.timeoutMs} ms (requestTimeoutMs)`
        : `request failed (${describeCause(cause)})`,
      cause,
    };
  }
  if ((response.status >= 300 && response.status < 400) || response.redirected) {
    const location = response.headers.get('location');
    return {
      kind: 'rejected',
      serverError: {
        code: 'REDIRECTED',
        http_status: response.status,
        message: `${redactUrl(request.endpoint)} answered ${response.status}, a redirect${location === null ? '' : ` to ${redactUrl(location)}`}; the sink never follows one (the POST would become a GET and store nothing): set the sink's url to the collector's own base address${location === null ? '' : ' (the one the redirect names, without its /v1/... path)'}`,
        details: location === null ? {} : { location: redactUrl(location) },
      },
    };
  }
  if (response.status >= 200 && response.status < 300) {
    // a collector answers JSON (or nothing); a login page or a proxy's HTML stored nothing
    if (answer.trim() === '' || isJsonText(answer)) return { kind: 'committed' };
    return {
      kind: 'rejected',
      serverError: {
        code: 'NOT_A_COLLECTOR',
        http_status: response.status,
        message: `${request.endpoint} answered ${response.status} with ${response.headers.get('content-type') ?? 'a body'} that is no collector's JSON (${JSON.stringify(answer.trim().slice(0, 80))}); check the sink's url: it is the collector's base address`,
        details: {},
      },
    };
  }
  const serverError = readServerError(response.status, response.statusText, answer);
  if (isRetryableStatus(response.status)) {
    return {
      kind: 'retry',
      reason: `${response.status} ${serverError.code}: ${serverError.message}`,
      status: response.status,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), request.now()),
    };
  }
  // the collector's 413 for a request limit, or a proxy's (nginx's client_max_body_size answers
  // HTML): fewer blocks per request may pass. A collector's 413 for one block's field may not.
  if (
    response.status === 413 &&
    (requestLimitFields.has(String(serverError.details.field)) || serverError.code === 'HTTP_413')
  )
    return { kind: 'too-large', serverError };
  return { kind: 'rejected', serverError };
}

function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The seed's error body when the server sent one; otherwise the status and the start of the text. */
function readServerError(status: number, statusText: string, text: string): SinkServerError {
  try {
    const parsed = JSON.parse(text) as { error?: Record<string, unknown> };
    const error = parsed?.error;
    if (typeof error === 'object' && error !== null && typeof error.code === 'string') {
      const details = error.details;
      return {
        code: error.code,
        http_status: typeof error.http_status === 'number' ? error.http_status : status,
        message: typeof error.message === 'string' ? error.message : statusText,
        details:
          typeof details === 'object' && details !== null && !Array.isArray(details)
            ? (details as Record<string, unknown>)
            : {},
      };
    }
  } catch {
    // not JSON: described below
  }
  const quoted = text.trim().slice(0, maxQuotedBodyChars);
  return {
    code: `HTTP_${status}`,
    http_status: status,
    message: quoted === '' ? statusText || `HTTP ${status}` : quoted,
    details: {},
  };
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  // fetch wraps the socket error: `TypeError: fetch failed` with the real reason as its cause
  const inner = cause.cause;
  if (inner instanceof Error) {
    const code = (inner as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${inner.message}` : inner.message;
  }
  return cause.message;
}

/** A URL with its user name and password left out, for messages (never a credential in a log). */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url;
  }
}
