import type { SinkError } from './sink-error.js';

/** Options of `createHttpSink`. */
export interface HttpSinkOptions {
  /** The collector's base URL, e.g. `http://127.0.0.1:7319` (what `tracewarden serve` prints). */
  url: string;
  /** An API key of `organization` (`tracewarden keys create`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** The organization the key belongs to: `:org` in `/v1/organizations/:org/...`. @default 'default' */
  organization?: string;
  /**
   * Blocks per request (at most {@link httpSinkLimits}`.maxBatchBlocks`, the collector's own
   * default cap). A batch is sent as soon as this many blocks are buffered.
   * @default 500
   */
  maxBatchBlocks?: number;
  /**
   * Bytes of block JSON per request, before compression (at most
   * {@link httpSinkLimits}`.maxBatchBytes`, the collector's default body limit). A block larger
   * than this is sent alone.
   * @default 1048576 (1 MiB)
   */
  maxBatchBytes?: number;
  /** Longest time a block waits in the buffer before it is sent. @default 1000 */
  flushIntervalMs?: number;
  /**
   * Blocks held (buffered and in flight) at most. A block written past this is dropped, counted
   * and reported by the next `flush()` as `SINK_BUFFER_FULL`: `write()` never blocks and memory
   * stays bounded while the collector is unreachable.
   * @default 100000
   */
  maxBufferedBlocks?: number;
  /** Time one request may take before it is abandoned and retried. @default 30000 */
  requestTimeoutMs?: number;
  /** First retry waits about this long; each further retry twice as long (with jitter). @default 250 */
  retryBaseDelayMs?: number;
  /** Longest wait between retries (a server's `Retry-After` may ask for more, up to 5 minutes). @default 30000 */
  maxRetryDelayMs?: number;
  /**
   * How long `flush()` waits for the collector to accept what was written before it. Past this
   * it rejects with `SINK_WRITE_FAILED`; the blocks stay buffered and are still retried.
   * @default 120000
   */
  flushTimeoutMs?: number;
  /** `gzip` compresses request bodies of 1 KiB and more (`Content-Encoding: gzip`). @default 'gzip' */
  compression?: 'gzip' | 'none';
  /** Called at once with each failure (a refused batch, a full buffer, a retry that gave up). */
  onError?: (error: SinkError) => void;
  /** The `fetch` used for requests (a proxy-aware one, or a fake in tests). @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
}

/**
 * Defaults of `createHttpSink`'s options.
 *
 * @example
 * ```ts
 * httpSinkDefaults.maxBatchBlocks; // 500
 * ```
 */
export const httpSinkDefaults = Object.freeze({
  organization: 'default',
  maxBatchBlocks: 500,
  maxBatchBytes: 1024 * 1024,
  flushIntervalMs: 1000,
  maxBufferedBlocks: 100_000,
  requestTimeoutMs: 30_000,
  retryBaseDelayMs: 250,
  maxRetryDelayMs: 30_000,
  flushTimeoutMs: 120_000,
  compression: 'gzip' as 'gzip' | 'none',
});

/**
 * Upper bounds of `createHttpSink`'s batch options: the collector's default request limits
 * (`TRACEWARDEN_MAX_BATCH_BLOCKS`, `TRACEWARDEN_MAX_BODY_BYTES`). A collector configured lower
 * answers 413, and the sink splits the batch.
 *
 * @example
 * ```ts
 * createHttpSink({ url, apiKey, maxBatchBlocks: httpSinkLimits.maxBatchBlocks });
 * ```
 */
export const httpSinkLimits = Object.freeze({
  maxBatchBlocks: 10_000,
  maxBatchBytes: 8 * 1024 * 1024,
});
