import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { TraceError } from '@tracewarden/core';
import { ServerError } from '../errors/index.js';
import { findUnsafeInteger } from './find-unsafe-integer.js';

const gunzipAsync = promisify(gunzip);

/** Limits of {@link readJsonBody}. */
export interface BodyLimits {
  /** Bytes as sent. */
  maxBodyBytes: number;
  /** Bytes after gzip decompression. */
  maxDecompressedBytes: number;
}

// An over-limit body is read to its end (and dropped) before the 413 is sent, so the client,
// still sending, gets the answer rather than a reset connection; past this much the socket is
// closed instead.
const maxDiscardedBytes = 256 * 1024 * 1024;

function tooLarge(field: string, limit: number, actual: number | undefined, variable: string) {
  return new TraceError({
    code: 'PAYLOAD_TOO_LARGE',
    message: `request ${field === 'body' ? 'body' : 'body, decompressed,'} exceeds the ${limit}-byte limit (${variable}); send smaller batches`,
    details:
      actual === undefined
        ? { field, limit_bytes: limit }
        : { field, limit_bytes: limit, actual_bytes: actual },
  });
}

/** The body's bytes, at most `limit` of them; over the limit it is drained and rejected. */
function readBytes(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    const chunks: Buffer[] = [];
    let total = 0;
    let over = Number.isFinite(declared) && declared > limit;
    request.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) over = true;
      if (!over) chunks.push(chunk);
      else if (total > maxDiscardedBytes) request.destroy();
    });
    request.on('end', () => {
      if (over) reject(tooLarge('body', limit, total, 'TRACEWARDEN_MAX_BODY_BYTES'));
      else resolve(Buffer.concat(chunks, total));
    });
    // the client went away mid-body (an abort, a reset): its request, not a fault of the
    // collector, so it is not logged as an internal error (and no answer can reach it)
    request.on('error', (cause) =>
      reject(
        new ServerError({
          code: 'INVALID_REQUEST',
          message: 'the client closed the connection before the whole body arrived; send it again',
          cause,
        }),
      ),
    );
  });
}

/** Media types of a JSON body, and of a JSON Lines body. */
const jsonTypes = (type: string) =>
  type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
const jsonLinesTypes = (type: string) =>
  type === 'application/x-ndjson' ||
  type === 'application/jsonl' ||
  type === 'application/x-jsonlines' ||
  type === 'application/jsonlines';

/**
 * Reads a request body as text: the content type checked, optionally `Content-Encoding: gzip`,
 * within the byte limits before and after decompression (a gzip bomb stops at the cap, never
 * inflating further), UTF-8.
 *
 * @param request - the incoming request
 * @param limits - the byte limits
 * @param kind - `json` (`application/json`, any `+json`) or `jsonl` (`application/x-ndjson`, `application/jsonl`)
 * @returns the body's text
 * @throws core's `TraceError` `PAYLOAD_TOO_LARGE` (413) over a limit; {@link ServerError}
 *   `UNSUPPORTED_MEDIA_TYPE` (415) for another content type or encoding, `INVALID_JSON` (400)
 *   for a body that is not UTF-8 or not valid gzip
 * @internal
 */
export async function readTextBody(
  request: IncomingMessage,
  limits: BodyLimits,
  kind: 'json' | 'jsonl' = 'json',
): Promise<string> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!(kind === 'json' ? jsonTypes(type) : jsonLinesTypes(type) || jsonTypes(type))) {
    request.resume();
    const wanted = kind === 'json' ? 'application/json' : 'application/x-ndjson (JSON Lines)';
    throw new ServerError({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `Content-Type must be ${wanted}, got ${type === '' ? 'none' : JSON.stringify(type)}`,
      details: { field: 'content-type', content_type: type === '' ? null : type },
    });
  }
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'x-gzip') {
    request.resume();
    throw new ServerError({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `Content-Encoding ${JSON.stringify(encoding)} is not supported; send the body as is or gzip-compressed`,
      details: { field: 'content-encoding', content_encoding: encoding },
    });
  }
  let bytes = await readBytes(request, limits.maxBodyBytes);
  if (encoding !== 'identity') {
    try {
      bytes = await gunzipAsync(bytes, { maxOutputLength: limits.maxDecompressedBytes });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw tooLarge(
          'decompressed_body',
          limits.maxDecompressedBytes,
          undefined,
          'TRACEWARDEN_MAX_DECOMPRESSED_BYTES',
        );
      }
      throw new ServerError({
        code: 'INVALID_JSON',
        message: `the body is not valid gzip (${(error as Error).message}); compress it with gzip or drop Content-Encoding`,
        details: { field: 'body' },
      });
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ServerError({
      code: 'INVALID_JSON',
      message: 'the body is not valid UTF-8; send JSON encoded as UTF-8',
      details: { field: 'body' },
    });
  }
}

/**
 * Reads a JSON request body ({@link readTextBody}), then parses it.
 *
 * @param request - the incoming request
 * @param limits - the byte limits
 * @returns the parsed value
 * @throws as {@link readTextBody}, {@link ServerError} `INVALID_JSON` (400) for text that is not
 *   JSON, and core's `TraceError` `VALIDATION` (422) for an integer beyond ±(2^53 - 1) that
 *   would be stored as another number
 * @internal
 */
export async function readJsonBody(request: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  const text = await readTextBody(request, limits, 'json');
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new ServerError({
      code: 'INVALID_JSON',
      message: `the body is not valid JSON (${(error as Error).message}); send one JSON object`,
      details: { field: 'body' },
    });
  }
  refuseUnsafeInteger(text);
  return value;
}

/**
 * Refuses JSON text holding an integer a JavaScript number cannot hold exactly: parsed, it would
 * be stored as another number without a word.
 *
 * @param text - JSON text (one body, or one JSONL line)
 * @param line - the JSONL line it is, for the error
 * @throws core's `TraceError` `VALIDATION` (422) with the integer's path in `details.field`
 * @internal
 */
export function refuseUnsafeInteger(text: string, line?: number): void {
  const unsafe = findUnsafeInteger(text);
  if (unsafe === undefined) return;
  const where = unsafe.path === '' ? 'the body' : unsafe.path;
  throw new TraceError({
    code: 'VALIDATION',
    message: `${line === undefined ? '' : `line ${line}: `}${where} is ${unsafe.literal}, an integer beyond ±${Number.MAX_SAFE_INTEGER} (2^53 - 1) that a JSON number here cannot hold exactly (it would be stored as another number); send it as a string`,
    details: { field: unsafe.path, ...(line === undefined ? {} : { line }) },
  });
}
