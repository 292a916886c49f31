import { configurationError, validateOptions } from '../errors/validate-options.js';
import type { Block } from '../model/index.js';
import { type HttpSinkOptions, httpSinkDefaults } from './http-sink-options.js';
import { HttpSinkQueue, type Queued } from './http-sink-queue.js';
import { retryDelayMs } from './http-sink-retry.js';
import { type BatchOutcome, postBlocksBatch } from './post-blocks-batch.js';
import type { Sink } from './sink.js';
import { SinkError, type SinkServerError } from './sink-error.js';
import { httpSinkOptionsSchema } from './sink-options-schema.js';
import { forgetUnwritten, trackUnwritten, type UnwrittenBlocks } from './unwritten-at-exit.js';

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
 * `write()` only queues the block; it is serialised off the call path, in the next turn of the
 * event loop (or when a batch is taken, if sooner). So a value inside a block that the caller
 * changes in the same turn (a tool's arguments object, its output) is sent as changed: the tracer
 * freezes a block, not the values it holds. The JSONL file sink serialises in `write()` instead.
 * Blocks go out in batches of one trace, by
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
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const onError = options.onError;

  const queue = new HttpSinkQueue(maxBatchBlocks, settings.maxBatchBytes, (block, cause) =>
    dropUnwritable(block, 'could not be serialised as JSON', cause),
  );
  let inFlight: readonly Queued[] | undefined;
  let prepareScheduled = false;
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

  const pending = () => queue.queuedBlocks + (inFlight?.length ?? 0);
  const exitState: UnwrittenBlocks = {
    path: orgUrl,
    writeAtExit: false,
    unwrittenBlocks: pending,
    // nothing can be sent once the process is exiting: all of it is reported
    writeNow: pending,
  };

  function minPendingSeq(): number {
    const first = inFlight?.[0]?.seq ?? Number.POSITIVE_INFINITY;
    const oldest = queue.oldest()?.seq ?? Number.POSITIVE_INFINITY;
    return Math.min(first, oldest);
  }

  /** Serialises what was written, then sends at once when that filled a batch. */
  function prepare(): void {
    queue.prepare();
    if (queue.full) schedulePump();
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
    queue.prepare();
    const oldest = queue.oldest();
    if (oldest === undefined) return undefined;
    return oldest.seq <= drainTarget || queue.full ? oldest.traceId : undefined;
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
        const batch = queue.take(traceId);
        inFlight = batch;
        try {
          await deliver(traceId, batch);
        } catch (cause) {
          throw Object.assign(new Error('unexpected error while sending'), {
            cause,
            lost: batch.length,
          });
        }
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
      pump().catch(stalled);
    });
  }

  /** A defect in the sink stopped its sending: every pending flush() hears of it. */
  function stalled(failure: unknown): void {
    const { cause, lost } = failure as { cause?: unknown; lost?: number };
    droppedBlocks += lost ?? 0;
    const error = new SinkError({
      code: 'SINK_WRITE_FAILED',
      message: `http sink: sending to ${orgUrl} stopped on an unexpected error (${cause instanceof Error ? cause.message : String(cause)}): the ${lost ?? 0} blocks being sent were dropped, and the ${pending()} still buffered are sent by the next flush(). Please report this as a bug.`,
      path: orgUrl,
      pendingBlocks: pending(),
      droppedBlocks: lost ?? 0,
      cause,
    });
    notify(error);
    for (const waiter of waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }

  function record(error: SinkError): void {
    unreported.push(error);
    notify(error);
  }

  /** Tells `onError`; a callback that throws must not stop the sink. */
  function notify(error: SinkError): void {
    try {
      onError?.(error);
    } catch {
      // the failure itself still reaches flush()
    }
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
    notify(error);
    waiter.reject(error);
  }

  function flush(): Promise<void> {
    // blocks with no JSON form are found (and reported) now, not after this flush
    prepare();
    const target = queue.lastSeq;
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
        if (fullSinceReport++ === 0) notify(bufferFullError(1));
        return;
      }
      const traceId = block?.trace_id;
      if (typeof traceId !== 'string' || traceId === '') {
        dropUnwritable(block, 'has no trace_id');
        return;
      }
      queue.add(traceId, block);
      if (!tracked) {
        tracked = true;
        trackUnwritten(exitState);
      }
      if (queue.queuedBlocks >= maxBatchBlocks) schedulePump();
      else schedulePrepare();
      if (intervalTimer === undefined) {
        intervalTimer = setTimeout(() => {
          intervalTimer = undefined;
          if (queue.lastSeq > drainTarget) drainTarget = queue.lastSeq;
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
  // fetch refuses a URL with credentials at every request; the key goes in apiKey
  if (parsed.username !== '' || parsed.password !== '')
    throw configurationError(
      'createHttpSink',
      'url',
      'a URL without user:password@ (give the API key as apiKey)',
      `${parsed.protocol}//***@${parsed.host}${parsed.pathname}`,
    );
  return url;
}

/** The options that were given (an explicit `undefined` keeps the default). */
function definedOnly(options: HttpSinkOptions): Partial<typeof httpSinkDefaults> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (value !== undefined) out[key] = value;
  return out as Partial<typeof httpSinkDefaults>;
}
