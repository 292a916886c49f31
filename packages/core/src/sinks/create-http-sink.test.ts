import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../errors/index.js';
import type { Block } from '../model/index.js';
import { createTracer } from '../tracing/create-tracer.js';
import { TracerFlushError } from '../tracing/tracer-flush-error.js';
import {
  type Behaviour,
  type FakeCollector,
  startFakeCollector,
} from './__fixtures__/fake-collector.js';
import { createHttpSink } from './create-http-sink.js';
import type { HttpSinkOptions } from './http-sink-options.js';
import { SinkError } from './sink-error.js';

const fast = { retryBaseDelayMs: 1, maxRetryDelayMs: 5, flushIntervalMs: 60_000 } as const;

let collectors: FakeCollector[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(collectors.map((collector) => collector.close()));
  collectors = [];
});

async function collector(behave?: Parameters<typeof startFakeCollector>[0]) {
  const started = await startFakeCollector(behave);
  collectors.push(started);
  return started;
}

function sinkFor(server: FakeCollector, options: Partial<HttpSinkOptions> = {}) {
  return createHttpSink({ url: server.url, apiKey: 'tw_test_key', ...fast, ...options });
}

/** Logs `count` user messages; returns their ids in order. */
function logMessages(tracer: ReturnType<typeof createTracer>, count: number, size = 10): string[] {
  const ids: string[] = [];
  for (let i = 0; i < count; i++)
    ids.push(tracer.logMessage({ role: 'user', content: `m${i} ${'x'.repeat(size)}` }).id);
  return ids;
}

const seedError = {
  error: {
    code: 'VALIDATION',
    http_status: 422,
    message: 'payload.role must be one of system, user, assistant',
    details: { sub_type: 'MESSAGE', field: 'role', path: '0', trace_id: 'tr_x' },
  },
};

describe('createHttpSink', () => {
  it("sends a tracer's blocks to the organization's trace path with the key, and flush() waits for the commit", async () => {
    const server = await collector();
    const sink = sinkFor(server, { organization: 'acme team' });
    const tracer = createTracer({ sinks: [sink] });
    const message = tracer.logMessage({ role: 'user', content: "what's the weather?" });
    const call = tracer.logAct({
      parent_block_id: message.id,
      payload: { call_id: 'call_1', name: 'get_weather', arguments: { city: 'Bogotá' } },
    });
    tracer.logObserve({ payload: { call_id: 'call_1', output: '22°C' } });
    expect(server.stored.size).toBe(0);
    await tracer.flush();
    expect(server.stored.get(tracer.traceId)).toEqual(tracer.blocks().map((block) => block.id));
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(`/v1/organizations/acme%20team/traces/${tracer.traceId}/blocks`);
    expect(request?.headers.authorization).toBe('Bearer tw_test_key');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(call.parent_block_id).toBe(message.id);
    expect(sink.sentBlocks).toBe(3);
    expect(sink.pendingBlocks).toBe(0);
    expect(sink.url).toBe(`${server.url}/v1/organizations/acme%20team`);
  });

  it('batches by count, in write order, with one request in flight at a time', async () => {
    const server = await collector(() => ({ kind: 'ok', delayMs: 5 }));
    const sink = sinkFor(server, { maxBatchBlocks: 2 });
    const tracer = createTracer({ sinks: [sink] });
    const ids = logMessages(tracer, 5);
    await tracer.flush();
    expect(server.requests.map((request) => request.ids)).toEqual([
      ids.slice(0, 2),
      ids.slice(2, 4),
      ids.slice(4),
    ]);
    expect(server.maxConcurrent).toBe(1);
  });

  it('batches by bytes: no request carries more than maxBatchBytes of blocks (gzip off)', async () => {
    const server = await collector();
    const sink = sinkFor(server, { maxBatchBytes: 2048, compression: 'none' });
    const tracer = createTracer({ sinks: [sink] });
    const ids = logMessages(tracer, 12, 500);
    await tracer.flush();
    expect(server.requests.length).toBeGreaterThan(3);
    for (const request of server.requests) expect(request.bodyBytes).toBeLessThanOrEqual(2048);
    expect(server.stored.get(tracer.traceId)).toEqual(ids);
  });

  it('gzips bodies of 1 KiB and more unless compression is none', async () => {
    const server = await collector();
    const tracer = createTracer({ sinks: [sinkFor(server)] });
    logMessages(tracer, 20, 200);
    await tracer.flush();
    expect(server.requests[0]?.headers['content-encoding']).toBe('gzip');
    const plain = createTracer({ sinks: [sinkFor(server, { compression: 'none' })] });
    logMessages(plain, 20, 200);
    await plain.flush();
    expect(server.requests[1]?.headers['content-encoding']).toBeUndefined();
    expect(server.stored.get(plain.traceId)).toHaveLength(20);
  });

  it('sends by time: blocks older than flushIntervalMs go out without a flush()', async () => {
    const server = await collector();
    const tracer = createTracer({ sinks: [sinkFor(server, { flushIntervalMs: 10 })] });
    const ids = logMessages(tracer, 3);
    await server.waitForStored(3);
    expect(server.stored.get(tracer.traceId)).toEqual(ids);
  });

  it('sends each trace of a shared sink to its own path, each in order', async () => {
    const server = await collector();
    const sink = sinkFor(server, { maxBatchBlocks: 3 });
    const first = createTracer({ sinks: [sink] });
    const second = createTracer({ sinks: [sink] });
    const firstIds: string[] = [];
    const secondIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      firstIds.push(...logMessages(first, 1));
      secondIds.push(...logMessages(second, 2));
    }
    await sink.flush();
    expect(server.stored.get(first.traceId)).toEqual(firstIds);
    expect(server.stored.get(second.traceId)).toEqual(secondIds);
    for (const request of server.requests) expect(request.ids.length).toBeLessThanOrEqual(3);
  });

  it('retries 503 until the server answers 200; the batch is stored once', async () => {
    const server = await collector((index) =>
      index < 2
        ? { kind: 'fail', status: 503, body: { error: { code: 'UNAVAILABLE' } } }
        : { kind: 'ok' },
    );
    const tracer = createTracer({ sinks: [sinkFor(server)] });
    const ids = logMessages(tracer, 4);
    await tracer.flush();
    expect(server.requests).toHaveLength(3);
    expect(server.requests.every((request) => request.ids.join() === ids.join())).toBe(true);
    expect(server.stored.get(tracer.traceId)).toEqual(ids);
  });

  it('retries after a dropped connection and after a lost answer to a committed batch, storing each block once', async () => {
    const server = await collector((index) =>
      index === 0 ? { kind: 'drop' } : index === 1 ? { kind: 'commit-then-drop' } : { kind: 'ok' },
    );
    const tracer = createTracer({ sinks: [sinkFor(server)] });
    const ids = logMessages(tracer, 2);
    await tracer.flush();
    expect(server.requests).toHaveLength(3);
    expect(server.stored.get(tracer.traceId)).toEqual(ids);
  });

  it("honours 429's Retry-After: the retry waits at least that long", async () => {
    const server = await collector((index) =>
      index === 0
        ? {
            kind: 'fail',
            status: 429,
            headers: { 'retry-after': '1' },
            body: { error: { code: 'RATE_LIMITED' } },
          }
        : { kind: 'ok' },
    );
    const timeouts = vi.spyOn(globalThis, 'setTimeout');
    const tracer = createTracer({ sinks: [sinkFor(server)] });
    logMessages(tracer, 1);
    await tracer.flush();
    expect(server.requests).toHaveLength(2);
    // backoff alone is at most maxRetryDelayMs (5 ms): only Retry-After explains a 1 s wait
    const delays = timeouts.mock.calls.map((call) => call[1] ?? 0);
    expect(delays).toContain(1000);
  });

  it('fails flush() with SINK_REJECTED carrying the seed error body of a 422, once, and goes on with later blocks', async () => {
    const server = await collector((index) =>
      index === 0 ? { kind: 'fail', status: 422, body: seedError } : { kind: 'ok' },
    );
    const errors: SinkError[] = [];
    const sink = sinkFor(server, { onError: (error) => errors.push(error) });
    const tracer = createTracer({ sinks: [sink] });
    logMessages(tracer, 2);
    const failure = await tracer.flush().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TracerFlushError);
    const error = (failure as TracerFlushError).errors[0] as SinkError;
    expect(SinkError.isInstance(error)).toBe(true);
    expect(error.code).toBe('SINK_REJECTED');
    expect(error.serverError).toEqual(seedError.error);
    expect(error.droppedBlocks).toBe(2);
    expect(error.traceId).toBe(tracer.traceId);
    expect(error.message).toContain('422 VALIDATION: payload.role must be one of');
    expect(errors).toEqual([error]);
    expect(server.requests).toHaveLength(1);
    expect(sink.droppedBlocks).toBe(2);
    // reported once; what comes next is sent
    const later = logMessages(tracer, 1);
    await tracer.flush();
    expect(server.stored.get(tracer.traceId)).toEqual(later);
  });

  it('fails flush() with SINK_REJECTED when a 2xx answer is no collector’s (a login page at the url)', async () => {
    const server = await collector();
    const loginPage: typeof fetch = async () =>
      new Response('<html>Sign in</html>', {
        status: 200,
        headers: { 'content-type': 'text/html' },
      });
    const sink = sinkFor(server, { fetch: loginPage });
    const tracer = createTracer({ sinks: [sink] });
    logMessages(tracer, 2);
    const error = await sink.flush().catch((caught: unknown) => caught as SinkError);
    expect(error?.code).toBe('SINK_REJECTED');
    expect(error?.serverError?.code).toBe('NOT_A_COLLECTOR');
    expect(error?.message).toContain('text/html');
    expect(sink.droppedBlocks).toBe(2);
  });

  it('keeps sending when onError throws', async () => {
    const server = await collector((index) =>
      index === 0 ? { kind: 'fail', status: 422, body: seedError } : { kind: 'ok' },
    );
    const sink = sinkFor(server, {
      onError: () => {
        throw new Error('a broken callback');
      },
    });
    const tracer = createTracer({ sinks: [sink] });
    logMessages(tracer, 1);
    await expect(sink.flush()).rejects.toMatchObject({ code: 'SINK_REJECTED' });
    const later = logMessages(tracer, 2);
    await sink.flush();
    expect(server.stored.get(tracer.traceId)).toEqual(later);
  });

  it('says what to fix for a 401: the API key', async () => {
    const server = await collector(() => ({
      kind: 'fail',
      status: 401,
      body: {
        error: { code: 'UNAUTHORIZED', http_status: 401, message: 'unknown API key', details: {} },
      },
    }));
    const sink = sinkFor(server);
    const tracer = createTracer({ sinks: [sink] });
    logMessages(tracer, 1);
    const error = await sink.flush().catch((caught: unknown) => caught as SinkError);
    expect(error?.code).toBe('SINK_REJECTED');
    expect(error?.serverError?.code).toBe('UNAUTHORIZED');
    expect(error?.message).toMatch(/Check apiKey/);
  });

  it('splits a batch the server answers 413 for (a request limit), keeping the order', async () => {
    const server = await collector((_index, request) =>
      request.ids.length > 2
        ? {
            kind: 'fail',
            status: 413,
            body: {
              error: {
                code: 'PAYLOAD_TOO_LARGE',
                http_status: 413,
                message: 'a batch holds at most 2 blocks',
                details: { field: 'blocks', limit_blocks: 2 },
              },
            },
          }
        : { kind: 'ok' },
    );
    const tracer = createTracer({ sinks: [sinkFor(server)] });
    const ids = logMessages(tracer, 7);
    await tracer.flush();
    expect(server.stored.get(tracer.traceId)).toEqual(ids);
  });

  it("splits a batch a proxy answers 413 for (nginx's HTML page, no collector error body)", async () => {
    const server = await collector((_index, request) =>
      request.ids.length > 2
        ? {
            kind: 'fail',
            status: 413,
            body: '<html><body>413 Request Entity Too Large</body></html>',
            headers: { 'content-type': 'text/html' },
          }
        : { kind: 'ok' },
    );
    const sink = sinkFor(server, { compression: 'none' });
    const tracer = createTracer({ sinks: [sink] });
    const ids = logMessages(tracer, 5);
    await tracer.flush();
    expect(server.stored.get(tracer.traceId)).toEqual(ids);
    expect(sink.droppedBlocks).toBe(0);
  });

  it('never follows a redirect (the POST would become a GET): the blocks are refused as REDIRECTED, naming the address', async () => {
    for (const status of [301, 302, 307, 308]) {
      const server = await collector((index) =>
        index === 0
          ? { kind: 'fail', status, headers: { location: 'https://collector.example/v1/x' } }
          : { kind: 'ok' },
      );
      const sink = sinkFor(server);
      const tracer = createTracer({ sinks: [sink] });
      logMessages(tracer, 2);
      const error = await sink.flush().catch((caught: unknown) => caught as SinkError);
      expect([status, error?.code, error?.serverError?.code]).toEqual([
        status,
        'SINK_REJECTED',
        'REDIRECTED',
      ]);
      expect(error?.serverError?.details).toEqual({ location: 'https://collector.example/v1/x' });
      expect(error?.message).toContain('collector.example');
      // one POST, nothing followed, nothing counted as sent
      expect(server.requests.map((request) => request.method)).toEqual(['POST']);
      expect([sink.sentBlocks, sink.droppedBlocks]).toEqual([0, 2]);
    }
  });

  it('refuses a url with user:password@ where it is given, without printing the password', () => {
    let error: unknown;
    try {
      createHttpSink({ url: 'http://user:s3cret@127.0.0.1:9/', apiKey: 'k' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).code).toBe('INVALID_OPTIONS');
    expect((error as Error).message).toContain('apiKey');
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('drops blocks past maxBufferedBlocks and fails flush() with SINK_BUFFER_FULL saying how many', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await collector(() => ({ kind: 'ok' }));
    const slowFetch: typeof fetch = async (input, init) => {
      await gate;
      return fetch(input, init);
    };
    const sink = sinkFor(server, { maxBufferedBlocks: 3, maxBatchBlocks: 3, fetch: slowFetch });
    const tracer = createTracer({ sinks: [sink] });
    const ids = logMessages(tracer, 5);
    expect(sink.pendingBlocks).toBe(3);
    expect(sink.droppedBlocks).toBe(2);
    release();
    const error = await sink.flush().catch((caught: unknown) => caught as SinkError);
    expect(error?.code).toBe('SINK_BUFFER_FULL');
    expect(error?.droppedBlocks).toBe(2);
    expect(error?.message).toMatch(/maxBufferedBlocks \(3\)/);
    expect(server.stored.get(tracer.traceId)).toEqual(ids.slice(0, 3));
    await expect(sink.flush()).resolves.toBeUndefined();
  });

  it('fails flush() after flushTimeoutMs while the server is down, keeps the blocks, and delivers them once it is back', async () => {
    let down = true;
    const server = await collector(() =>
      down ? { kind: 'fail', status: 503, body: { error: { code: 'DOWN' } } } : { kind: 'ok' },
    );
    const sink = sinkFor(server, { flushTimeoutMs: 50 });
    const tracer = createTracer({ sinks: [sink] });
    const ids = logMessages(tracer, 3);
    const error = await sink.flush().catch((caught: unknown) => caught as SinkError);
    expect(error?.code).toBe('SINK_WRITE_FAILED');
    expect(error?.pendingBlocks).toBe(3);
    expect(error?.message).toMatch(/503 DOWN/);
    down = false;
    await sink.flush();
    expect(server.stored.get(tracer.traceId)).toEqual(ids);
  });

  it('drops a block with no JSON form, reports it in flush(), and sends the others', async () => {
    const server = await collector();
    const sink = sinkFor(server);
    const tracer = createTracer({ sinks: [sink] });
    const ids = logMessages(tracer, 2);
    const [first] = tracer.blocks();
    sink.write({ ...(first as Block), id: 'tb_bigint', metadata: { count: 1n } });
    sink.write({ ...(first as Block), id: 'tb_no_trace', trace_id: '' });
    const error = await sink.flush().catch((caught: unknown) => caught as SinkError);
    expect(error?.code).toBe('SINK_WRITE_FAILED');
    expect(error?.droppedBlocks).toBe(2);
    expect(error?.message).toMatch(/tb_bigint could not be serialised as JSON/);
    expect(error?.message).toMatch(/tb_no_trace has no trace_id/);
    expect(server.stored.get(tracer.traceId)).toEqual(ids);
    expect(sink.droppedBlocks).toBe(2);
    await expect(sink.flush()).resolves.toBeUndefined();
  });

  it('close() flushes; a write after it throws SINK_CLOSED', async () => {
    const server = await collector();
    const sink = sinkFor(server);
    const tracer = createTracer({ sinks: [sink] });
    const ids = logMessages(tracer, 2);
    await tracer.shutdown();
    expect(server.stored.get(tracer.traceId)).toEqual(ids);
    expect(() => sink.write(tracer.blocks()[0] as Block)).toThrowError(
      expect.objectContaining({ code: 'SINK_CLOSED' }),
    );
    await expect(sink.shutdown()).resolves.toBeUndefined();
  });

  it('rejects bad options where they are given, naming them', () => {
    const bad: [unknown, RegExp][] = [
      [{ url: 'ftp://host', apiKey: 'k' }, /url: expected an http:\/\/ or https:\/\/ URL/],
      [{ url: 'not a url', apiKey: 'k' }, /url/],
      [{ url: 'http://h', apiKey: '' }, /apiKey: expected a non-empty API key/],
      [
        { url: 'http://h', apiKey: 'k', maxBatchBlocks: 0 },
        /maxBatchBlocks: expected a whole number between 1 and 10000/,
      ],
      [{ url: 'http://h', apiKey: 'k', maxBatchBlocks: 20_000 }, /maxBatchBlocks/],
      [{ url: 'http://h', apiKey: 'k', maxBatchBytes: 9 * 1024 * 1024 }, /maxBatchBytes/],
      [{ url: 'http://h', apiKey: 'k', compression: 'brotli' }, /compression/],
      [
        { url: 'http://h', apiKey: 'k', maxBufferedBlock: 5 },
        /maxBufferedBlock: .*did you mean "maxBufferedBlocks"/,
      ],
      [{ url: 'http://h', apiKey: 'k', fetch: 'no' }, /fetch: expected a fetch function/],
    ];
    for (const [options, message] of bad) {
      let caught: unknown;
      try {
        createHttpSink(options as HttpSinkOptions);
      } catch (error) {
        caught = error;
      }
      expect(ConfigurationError.isInstance(caught), String(message)).toBe(true);
      expect((caught as Error).message).toMatch(message);
    }
  });

  it('property: whatever the failures, once the server recovers every block arrives exactly once, in order', async () => {
    const behaviour = fc.oneof(
      fc.constant<Behaviour>({ kind: 'ok' }),
      fc.constant<Behaviour>({ kind: 'fail', status: 503 }),
      fc.constant<Behaviour>({ kind: 'fail', status: 500, body: { error: { code: 'INTERNAL' } } }),
      fc.constant<Behaviour>({ kind: 'fail', status: 429, headers: { 'retry-after': '0' } }),
      fc.constant<Behaviour>({ kind: 'drop' }),
      fc.constant<Behaviour>({ kind: 'commit-then-fail', status: 502 }),
      fc.constant<Behaviour>({ kind: 'commit-then-drop' }),
      fc.constant<Behaviour>({ kind: 'ok', delayMs: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(behaviour, { maxLength: 12 }),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        async (failures, traceOfEach, maxBatchBlocks, flushMidway) => {
          const server = await startFakeCollector((index) => failures[index] ?? { kind: 'ok' });
          try {
            const sink = sinkFor(server, { maxBatchBlocks, flushIntervalMs: 1 });
            const tracers = [0, 1, 2].map(() => createTracer({ sinks: [sink] }));
            const written = tracers.map(() => [] as string[]);
            for (const [i, which] of traceOfEach.entries()) {
              written[which]?.push(
                ...logMessages(tracers[which] as ReturnType<typeof createTracer>, 1),
              );
              if (flushMidway && i === Math.floor(traceOfEach.length / 2)) await sink.flush();
            }
            await sink.flush();
            tracers.forEach((tracer, which) => {
              const ids = written[which] as string[];
              expect(server.stored.get(tracer.traceId) ?? []).toEqual(ids);
            });
            expect(server.maxConcurrent).toBe(1);
            expect(sink.pendingBlocks).toBe(0);
          } finally {
            await server.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
