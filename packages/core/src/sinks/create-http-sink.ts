import { configurationError, validateOptions } from '../errors/validate-options.js';
import type { Block } from '../model/index.js';
import { retryDelayMs } from './http-sink-retry.js';
import { type BatchOutcome, postBlocksBatch } from './post-blocks-batch.js';
import type { Sink } from './sink.js';
import { SinkError, type SinkServerError } from './sink-error.js';
import { httpSinkOptionsSchema } from './sink-options-schema.js';
import { forgetUnwritten, trackUnwritten, type UnwrittenBlocks } from './unwritten-at-exit.js';

/** Options of {@link createHttpSink}. */
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

/** A {@link Sink} sending blocks to a tracewarden collector over HTTP. */
export interface HttpSink extends Sink {
  /** The organization's base endpoint: `{url}/v1/organizations/{organization}`. */
  readonly url: string;
  /** Blocks written and not yet accepted by the collector (buffered or in flight). */
  readonly pendingBlocks: number;
  /** Blocks the collector has accepted (committed). */
  readonly sentBlocks: number;
  /** Blocks dropped so far: refused by the collector, over `maxBufferedBlocks`, or with no JSON form. */
  readonly droppedBlocks: number;
  /** The same as `close()`: flushes, then stops the sink's timer. */
  shutdown(): Promise<void>;
}

/**
 * Defaults of {@link createHttpSink}'s options.
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
 * Upper bounds of {@link createHttpSink}'s batch options: the collector's default request limits
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

/** `{"blocks":[` and `]}` around the blocks of a request. */
const envelopeBytes = 13;

/**
 * One buffered block: its write order, and the block until it is serialised (off `write()`'s
 * path: see `prepare`), then its JSON and the JSON's UTF-8 size.
 */
interface Queued {
  readonly seq: number;
  readonly traceId: string;
  block: Block | undefined;
  json: string;
  bytes: number;
}

/** One trace's buffered blocks, in write order; `head` is the first not yet taken. */
interface TraceQueue {
  items: Queued[];
  head: number;
}

/** A `flush()` waiting for every block up to `target` to be settled. */
interface Waiter {
  target: number;
  resolve: () => void;
  reject: (error: SinkError) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Creates a sink that sends the tracer's blocks to a tracewarden collector
 * (`POST {url}/v1/organizations/{organization}/traces/{traceId}/blocks`).
 *
 * `write()` only serialises the block into a buffer. Blocks go out in batches of one trace, by
 * count (`maxBatchBlocks`), size (`maxBatchBytes`) and age (`flushIntervalMs`), one request in
 * flight at a time, each trace's blocks in the order written. A network error, a timeout, 408,
 * 429 or a 5xx is retried with exponential backoff and jitter, never sooner than the answer's
 * `Retry-After`: safe, because the blocks carry the client's ids and the collector treats an
 * identical re-send as a no-op. A 413 for a request limit splits the batch.
 *
 * `flush()` resolves once the collector has committed every block written before it. It rejects
 * with a {@link SinkError} when something was lost since the last `flush()`: `SINK_REJECTED`
 * (a 4xx other than 408/429, with the server's `{ code, message, details }` in `serverError`;
 * those blocks are not retried), `SINK_BUFFER_FULL` (more than `maxBufferedBlocks` held), or
 * `SINK_WRITE_FAILED` (no JSON form; or the collector did not accept the blocks within
 * `flushTimeoutMs`, which keeps them buffered and still retried). Nothing is dropped silently.
 * `close()` (or `shutdown()`) flushes, then stops the timer. The sink's timers never keep the
 * process alive on their own (a retry wait does while a `flush()` is pending); blocks still
 * buffered when the process exits are reported in one warning on stderr.
 *
 * @param options - the collector's URL, an API key, its organization, batching and retry settings
 * @returns an {@link HttpSink}
 * @throws {ConfigurationError} `INVALID_OPTIONS` naming any bad option
 * @example
 * ```ts
 * const sink = createHttpSink({ url: 'http://127.0.0.1:7319', apiKey: process.env.TRACEWARDEN_API_KEY ?? '' });
 * const tracer = createTracer({ sinks: [sink] });
 * tracer.logMessage({ role: 'user', content: 'hi' });
 * await tracer.shutdown(); // the collector has the trace
 * ```
 */
export function createHttpSink(options: HttpSinkOptions): HttpSink {
  validateOptions(httpSinkOptionsSchema, options, { entryPoint: 'createHttpSink' });
  const base = checkUrl(options.url).replace(/\/+$/, '');
  const organization = options.organization ?? httpSinkDefaults.organization;
  const orgUrl = `${base}/v1/organizations/${encodeURIComponent(organization)}`;
  const settings = { ...httpSinkDefaults, ...definedOnly(options) };
  const maxBatchBlocks = settings.maxBatchBlocks;
  const maxBatchBytes = settings.maxBatchBytes;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const onError = options.onError;

  const queues = new Map<string, TraceQueue>();
  let queuedBlocks = 0;
  let queuedBytes = 0;
  let inFlight: readonly Queued[] | undefined;
  /** Written, not yet serialised: `prepare` turns them into JSON a moment after `write()`. */
  let unprepared: Queued[] = [];
  let prepareScheduled = false;
  let lastSeq = 0;
  /** Blocks up to this seq are due now (a flush, or the interval timer, asked for them). */
  let drainTarget = 0;
  let pumping = false;
  let pumpScheduled = false;
  let intervalTimer: ReturnType<typeof setTimeout> | undefined;
  let sleepTimer: ReturnType<typeof setTimeout> | undefined;
  const waiters: Waiter[] = [];
  /** Failures not yet reported by a settled `flush()`. */
  let unreported: SinkError[] = [];
  let fullSinceReport = 0;
  /** The latest retryable failure of the batch in flight, for a timed-out flush's message. */
  let retrying: { reason: string; cause: unknown } | undefined;
  let sentBlocks = 0;
  let droppedBlocks = 0;
  let closed = false;
  let closing: Promise<void> | undefined;
  let tracked = false;

  const pending = () => queuedBlocks + (inFlight?.length ?? 0);
  const exitState: UnwrittenBlocks = {
    path: orgUrl,
    writeAtExit: false,
    unwrittenBlocks: pending,
    // nothing can be sent once the process is exiting: all of it is reported
    writeNow: pending,
  };

  function minPendingSeq(): number {
    let min = inFlight?.[0]?.seq ?? Number.POSITIVE_INFINITY;
    for (const queue of queues.values()) {
      const seq = (queue.items[queue.head] as Queued).seq;
      if (seq < min) min = seq;
    }
    return min;
  }

  /**
   * Serialises what was written since the last call. `JSON.stringify` is most of a block's cost
   * here, so it runs after the writer's synchronous work (or when a batch is taken), not in
   * `write()`. A block with no JSON form is dropped and reported.
   */
  function prepare(): void {
    if (unprepared.length === 0) return;
    const items = unprepared;
    unprepared = [];
    let dropped: Set<Queued> | undefined;
    for (const item of items) {
      let json: string | undefined;
      let cause: unknown;
      try {
        json = JSON.stringify(item.block);
      } catch (error) {
        cause = error;
      }
      if (typeof json !== 'string') {
        dropUnwritable(item.block as Block, 'could not be serialised as JSON', cause);
        queuedBlocks--;
        dropped ??= new Set();
        dropped.add(item);
        continue;
      }
      item.json = json;
      item.bytes = Buffer.byteLength(json);
      item.block = undefined;
      queuedBytes += item.bytes + 1;
    }
    if (dropped !== undefined) forgetDropped(dropped);
    if (queuedBytes >= maxBatchBytes) schedulePump();
  }

  /** Takes blocks that could not be serialised out of their traces' queues. */
  function forgetDropped(dropped: Set<Queued>): void {
    const traces = new Set([...dropped].map((item) => item.traceId));
    for (const traceId of traces) {
      const queue = queues.get(traceId);
      if (queue === undefined) continue;
      queue.items = queue.items.slice(queue.head).filter((item) => !dropped.has(item));
      queue.head = 0;
      if (queue.items.length === 0) queues.delete(traceId);
    }
  }

  function schedulePrepare(): void {
    if (prepareScheduled) return;
    prepareScheduled = true;
    const immediate = setImmediate(() => {
      prepareScheduled = false;
      prepare();
    });
    immediate.unref?.();
  }

  /** The trace to send a batch of now, or undefined when nothing is due. */
  function dueTrace(): string | undefined {
    prepare();
    if (queuedBlocks === 0) return undefined;
    let oldest: string | undefined;
    let oldestSeq = Number.POSITIVE_INFINITY;
    for (const [traceId, queue] of queues) {
      const seq = (queue.items[queue.head] as Queued).seq;
      if (seq < oldestSeq) {
        oldestSeq = seq;
        oldest = traceId;
      }
    }
    const due =
      oldestSeq <= drainTarget || queuedBlocks >= maxBatchBlocks || queuedBytes >= maxBatchBytes;
    return due ? oldest : undefined;
  }

  function takeBatch(traceId: string): Queued[] {
    const queue = queues.get(traceId) as TraceQueue;
    const batch: Queued[] = [];
    let bytes = envelopeBytes;
    while (queue.head < queue.items.length && batch.length < maxBatchBlocks) {
      const item = queue.items[queue.head] as Queued;
      if (batch.length > 0 && bytes + item.bytes + 1 > maxBatchBytes) break;
      batch.push(item);
      bytes += item.bytes + 1;
      queue.head++;
      queuedBlocks--;
      queuedBytes -= item.bytes + 1;
    }
    if (queue.head === queue.items.length) queues.delete(traceId);
    else if (queue.head > 1024 && queue.head * 2 > queue.items.length) {
      queue.items = queue.items.slice(queue.head);
      queue.head = 0;
    }
    return batch;
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      sleepTimer = setTimeout(() => {
        sleepTimer = undefined;
        resolve();
      }, ms);
      // a pending flush() is awaited: the wait must keep the process alive for it
      if (waiters.length === 0) sleepTimer.unref?.();
    });
  }

  async function post(traceId: string, batch: readonly Queued[]): Promise<BatchOutcome> {
    try {
      return await postBlocksBatch({
        endpoint: `${orgUrl}/traces/${encodeURIComponent(traceId)}/blocks`,
        apiKey: options.apiKey,
        blocks: batch.map((item) => item.json),
        gzip: settings.compression === 'gzip',
        timeoutMs: settings.requestTimeoutMs,
        fetch: fetchImpl,
        now: Date.now,
      });
    } catch (cause) {
      return { kind: 'retry', reason: `request could not be made (${String(cause)})`, cause };
    }
  }

  /** Sends `batch` until the collector commits or refuses it; splits it on a request-limit 413. */
  async function deliver(traceId: string, batch: readonly Queued[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const outcome = await post(traceId, batch);
      if (outcome.kind === 'committed') {
        retrying = undefined;
        sentBlocks += batch.length;
        return;
      }
      if (outcome.kind === 'too-large' && batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        await deliver(traceId, batch.slice(0, half));
        await deliver(traceId, batch.slice(half));
        return;
      }
      if (outcome.kind !== 'retry') {
        refused(traceId, batch.length, outcome.serverError);
        return;
      }
      retrying = { reason: outcome.reason, cause: outcome.cause ?? outcome.reason };
      await sleep(
        retryDelayMs(
          attempt,
          settings.retryBaseDelayMs,
          settings.maxRetryDelayMs,
          outcome.retryAfterMs,
        ),
      );
    }
  }

  async function pump(): Promise<void> {
    if (pumping) return;
    pumping = true;
    try {
      for (let traceId = dueTrace(); traceId !== undefined; traceId = dueTrace()) {
        const batch = takeBatch(traceId);
        inFlight = batch;
        await deliver(traceId, batch);
        inFlight = undefined;
        settleWaiters();
      }
    } finally {
      pumping = false;
      inFlight = undefined;
    }
    if (tracked && pending() === 0) {
      tracked = false;
      forgetUnwritten(exitState);
    }
  }

  function schedulePump(): void {
    if (pumping || pumpScheduled) return;
    pumpScheduled = true;
    queueMicrotask(() => {
      pumpScheduled = false;
      void pump();
    });
  }

  function record(error: SinkError): void {
    unreported.push(error);
    onError?.(error);
  }

  function refused(traceId: string, count: number, serverError: SinkServerError): void {
    droppedBlocks += count;
    const blocks = `${count} block${count === 1 ? '' : 's'}`;
    record(
      new SinkError({
        code: 'SINK_REJECTED',
        message: `http sink: ${orgUrl} refused ${blocks} of trace ${traceId} with ${serverError.http_status} ${serverError.code}: ${serverError.message}. They were not stored and are not retried. ${hintFor(serverError)}`,
        path: orgUrl,
        pendingBlocks: pending() - count,
        droppedBlocks: count,
        serverError,
        traceId,
      }),
    );
  }

  function dropUnwritable(block: Block, why: string, cause?: unknown): void {
    droppedBlocks++;
    record(
      new SinkError({
        code: 'SINK_WRITE_FAILED',
        message: `http sink: block ${String(block?.id)} ${why} and was not sent to ${orgUrl}. Validate blocks before writing them (createTracer and validateBlocks reject such blocks).`,
        path: orgUrl,
        pendingBlocks: pending(),
        droppedBlocks: 1,
        cause,
      }),
    );
  }

  /** The failures since the last report, as one error (or undefined), and forgets them. */
  function takeReport(): SinkError | undefined {
    if (fullSinceReport > 0) {
      unreported.push(bufferFullError(fullSinceReport));
      fullSinceReport = 0;
    }
    if (unreported.length === 0) return undefined;
    const errors = unreported;
    unreported = [];
    const first = errors[0] as SinkError;
    if (errors.length === 1) return first;
    const shown = errors.slice(0, 3).map((error) => error.message);
    const more = errors.length > 3 ? `; and ${errors.length - 3} more (see onError)` : '';
    return new SinkError({
      code: first.code,
      message: `http sink: ${errors.length} failures since the last flush(): ${shown.join('; ')}${more}`,
      path: orgUrl,
      pendingBlocks: pending(),
      droppedBlocks: errors.reduce((sum, error) => sum + (error.droppedBlocks ?? 0), 0),
      ...(first.serverError === undefined ? {} : { serverError: first.serverError }),
      ...(first.traceId === undefined ? {} : { traceId: first.traceId }),
      cause: first,
    });
  }

  function bufferFullError(count: number): SinkError {
    return new SinkError({
      code: 'SINK_BUFFER_FULL',
      message: `http sink: ${count} block${count === 1 ? ' was' : 's were'} dropped because the sink already held maxBufferedBlocks (${settings.maxBufferedBlocks}) blocks not yet accepted by ${orgUrl}${retrying === undefined ? '' : ` (last attempt: ${retrying.reason})`}. Check that the collector is reachable, or raise maxBufferedBlocks.`,
      path: orgUrl,
      pendingBlocks: pending(),
      droppedBlocks: count,
    });
  }

  function settleWaiters(): void {
    if (waiters.length === 0) return;
    const min = minPendingSeq();
    const done = waiters.filter((waiter) => waiter.target < min);
    if (done.length === 0) return;
    for (const waiter of done) waiters.splice(waiters.indexOf(waiter), 1);
    if (waiters.length === 0) sleepTimer?.unref?.();
    const error = takeReport();
    for (const waiter of done) {
      clearTimeout(waiter.timer);
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  }

  function timedOut(waiter: Waiter): void {
    const index = waiters.indexOf(waiter);
    if (index === -1) return;
    waiters.splice(index, 1);
    if (waiters.length === 0) sleepTimer?.unref?.();
    const count = pending();
    const error = new SinkError({
      code: 'SINK_WRITE_FAILED',
      message: `http sink: ${count} block${count === 1 ? ' is' : 's are'} still not accepted by ${orgUrl} after flushTimeoutMs (${settings.flushTimeoutMs} ms)${retrying === undefined ? '' : `; last attempt: ${retrying.reason}`}. They stay buffered and are retried in the background and by the next flush(). Check that the collector is running and reachable.`,
      path: orgUrl,
      pendingBlocks: count,
      cause: retrying?.cause,
    });
    onError?.(error);
    waiter.reject(error);
  }

  function flush(): Promise<void> {
    // blocks with no JSON form are found (and reported) now, not after this flush
    prepare();
    const target = lastSeq;
    if (minPendingSeq() > target) {
      const error = takeReport();
      return error === undefined ? Promise.resolve() : Promise.reject(error);
    }
    if (target > drainTarget) drainTarget = target;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { target, resolve, reject, timer: undefined as never };
      waiter.timer = setTimeout(() => timedOut(waiter), settings.flushTimeoutMs);
      waiter.timer.unref?.();
      waiters.push(waiter);
      sleepTimer?.ref?.();
      schedulePump();
    });
  }

  function close(): Promise<void> {
    closed = true;
    if (closing === undefined) {
      closing = flush().finally(() => {
        if (intervalTimer !== undefined) clearTimeout(intervalTimer);
        intervalTimer = undefined;
      });
      // a failed close may be retried (the blocks are still buffered)
      closing.catch(() => {
        closing = undefined;
      });
    }
    return closing;
  }

  return {
    url: orgUrl,
    get pendingBlocks() {
      return pending();
    },
    get sentBlocks() {
      return sentBlocks;
    },
    get droppedBlocks() {
      return droppedBlocks;
    },

    write(block) {
      if (closed) {
        throw new SinkError({
          code: 'SINK_CLOSED',
          message: `http sink: write() of block ${block?.id} after close() of the sink for ${orgUrl}; create a new sink`,
          path: orgUrl,
        });
      }
      if (pending() >= settings.maxBufferedBlocks) {
        droppedBlocks++;
        if (fullSinceReport++ === 0) onError?.(bufferFullError(1));
        return;
      }
      const traceId = block?.trace_id;
      if (typeof traceId !== 'string' || traceId === '') {
        dropUnwritable(block, 'has no trace_id');
        return;
      }
      const item: Queued = { seq: ++lastSeq, traceId, block, json: '', bytes: 0 };
      const queue = queues.get(traceId);
      if (queue === undefined) queues.set(traceId, { items: [item], head: 0 });
      else queue.items.push(item);
      unprepared.push(item);
      queuedBlocks++;
      if (!tracked) {
        tracked = true;
        trackUnwritten(exitState);
      }
      if (queuedBlocks >= maxBatchBlocks) schedulePump();
      else schedulePrepare();
      if (intervalTimer === undefined) {
        intervalTimer = setTimeout(() => {
          intervalTimer = undefined;
          if (lastSeq > drainTarget) drainTarget = lastSeq;
          schedulePump();
        }, settings.flushIntervalMs);
        intervalTimer.unref?.();
      }
    },

    flush,
    close,
    shutdown: close,
  };
}

/** What to do about a refusal, by the server's status. */
function hintFor(error: SinkServerError): string {
  switch (error.http_status) {
    case 401:
      return 'Check apiKey: it must be an active key of the collector (tracewarden keys create).';
    case 403:
    case 404:
      return "Check organization: it must be the API key's organization (tracewarden keys list).";
    case 413:
      return "A block is over one of the collector's limits (see serverError.details); raise the limit on the collector or record smaller blocks.";
    default:
      return "The collector's rules or limits differ from the tracer's: see serverError.details.";
  }
}

function checkUrl(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw configurationError('createHttpSink', 'url', 'an http:// or https:// URL', url);
  if (parsed.search !== '' || parsed.hash !== '')
    throw configurationError('createHttpSink', 'url', 'a base URL without ?query or #hash', url);
  return url;
}

/** The options that were given (an explicit `undefined` keeps the default). */
function definedOnly(options: HttpSinkOptions): Partial<typeof httpSinkDefaults> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (value !== undefined) out[key] = value;
  return out as Partial<typeof httpSinkDefaults>;
}
