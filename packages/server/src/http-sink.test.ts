import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createHttpSink,
  createTracer,
  guard,
  type SinkError,
  TracerFlushError,
} from '@tracewarden/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from './index.js';

// core's HTTP sink against the real collector (SQLite on a temporary data directory)

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function temporaryDataDir(): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'tracewarden-http-sink-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return dataDir;
}

async function start(options: Parameters<typeof startServer>[0] = {}): Promise<RunningServer> {
  const server = await startServer({ port: 0, env: {}, onError: () => undefined, ...options });
  cleanups.push(() => server.close({ timeoutMs: 1000 }));
  return server;
}

const fast = { retryBaseDelayMs: 5, maxRetryDelayMs: 50, flushIntervalMs: 20 } as const;

async function get(server: RunningServer, key: string, path: string): Promise<unknown> {
  const response = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  return response.json();
}

/** Every block id of a trace, in the order stored, through the paged blocks route. */
async function storedIds(server: RunningServer, key: string, traceId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page = (await get(
      server,
      key,
      `/v1/organizations/default/traces/${traceId}/blocks?limit=100${query}`,
    )) as { blocks: { id: string }[]; next_cursor: string | null };
    ids.push(...page.blocks.map((block) => block.id));
    cursor = page.next_cursor;
  } while (cursor !== null);
  return ids;
}

/**
 * Every block of the tracer is stored, each once. (The collector may store a batch's parents
 * before their children, so the order within a batch is the collector's; the sink's order is
 * tested in core.)
 */
function expectExactlyOnce(stored: string[], tracer: ReturnType<typeof createTracer>): void {
  const written = tracer.blocks().map((block) => block.id);
  expect(stored).toHaveLength(written.length);
  expect([...stored].sort()).toEqual([...written].sort());
}

/** One agent turn: a question, a tool call and its result, a reasoning step and an answer. */
function logTurn(tracer: ReturnType<typeof createTracer>, turn: number): void {
  const question = tracer.logMessage({
    role: 'user',
    content: `what is the weather in city ${turn}?`,
  });
  const answer = tracer.logMessage({ role: 'assistant', content: null });
  tracer.logThink({ parent_block_id: answer.id, payload: { text: `look it up (${turn})` } });
  tracer.logAct({
    parent_block_id: answer.id,
    payload: { call_id: `call_${turn}`, name: 'get_weather', arguments: { city: `c${turn}` } },
  });
  tracer.logObserve({ payload: { call_id: `call_${turn}`, output: { forecast: '22°C', turn } } });
  tracer.logMessage({ role: 'assistant', content: `It is 22°C (${question.id}).` });
}

describe('createHttpSink against the collector', () => {
  it("stores a tracer's trace: the stitched endpoint returns what the tracer stitched", async () => {
    const server = await start({ dataDir: temporaryDataDir() });
    const key = server.initialApiKey?.key as string;
    const sink = createHttpSink({ url: server.url, apiKey: key, ...fast, maxBatchBlocks: 7 });
    const tracer = createTracer({ sinks: [sink] });
    for (let turn = 0; turn < 10; turn++) logTurn(tracer, turn);
    await tracer.shutdown();
    const stitched = await get(
      server,
      key,
      `/v1/organizations/default/traces/${tracer.traceId}/blocks.stitched`,
    );
    expect(stitched).toEqual(JSON.parse(JSON.stringify(tracer.stitched())));
    expectExactlyOnce(await storedIds(server, key, tracer.traceId), tracer);
  });

  it('stores what guards record through the tracer (guarded tool calls, with their decisions)', async () => {
    const server = await start({ dataDir: temporaryDataDir() });
    const key = server.initialApiKey?.key as string;
    const tracer = createTracer({
      sinks: [createHttpSink({ url: server.url, apiKey: key, ...fast })],
    });
    tracer.logMessage({ role: 'user', content: 'look up the weather in two cities' });
    const weather = guard(async (city: string) => ({ city, forecast: '22°C' }), {
      name: 'get_weather',
      tracer,
      retry: { maxRetries: 1 },
    });
    await weather('Bogotá');
    await weather('Lima');
    await tracer.shutdown();
    const stitched = await get(
      server,
      key,
      `/v1/organizations/default/traces/${tracer.traceId}/blocks.stitched`,
    );
    expect(stitched).toEqual(JSON.parse(JSON.stringify(tracer.stitched())));
    expect(tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT')).toHaveLength(2);
  });

  it('retries through a collector restart on the same data directory: nothing is lost or doubled', async () => {
    const dataDir = temporaryDataDir();
    const first = await startServer({ port: 0, dataDir, env: {}, onError: () => undefined });
    const key = first.initialApiKey?.key as string;
    const port = Number(new URL(first.url).port);
    const errors: SinkError[] = [];
    // counts requests that found no collector, to know the sink has been retrying
    let refused = 0;
    let onRefused: () => void = () => undefined;
    const countingFetch: typeof fetch = async (input, init) => {
      try {
        return await fetch(input, init);
      } catch (error) {
        refused++;
        onRefused();
        throw error;
      }
    };
    const sink = createHttpSink({
      url: first.url,
      apiKey: key,
      ...fast,
      maxBatchBlocks: 5,
      onError: (error) => errors.push(error),
      fetch: countingFetch,
    });
    const tracer = createTracer({ sinks: [sink] });
    for (let turn = 0; turn < 5; turn++) logTurn(tracer, turn);
    await tracer.flush();
    await first.close();
    // written while the collector is down: sent in the background, refused, retried
    for (let turn = 5; turn < 15; turn++) logTurn(tracer, turn);
    await new Promise<void>((resolve) => {
      onRefused = () => {
        if (refused >= 3) resolve();
      };
    });
    expect(sink.pendingBlocks).toBeGreaterThan(0);
    const second = await start({ port, dataDir });
    await tracer.shutdown();
    expect(errors).toEqual([]);
    expectExactlyOnce(await storedIds(second, key, tracer.traceId), tracer);
  });

  it('splits batches over the collector limit (413 on blocks per request), keeping the order', async () => {
    const server = await start({ dataDir: temporaryDataDir(), limits: { maxBatchBlocks: 4 } });
    const key = server.initialApiKey?.key as string;
    const sink = createHttpSink({ url: server.url, apiKey: key, ...fast, maxBatchBlocks: 50 });
    const tracer = createTracer({ sinks: [sink] });
    for (let turn = 0; turn < 4; turn++) logTurn(tracer, turn);
    await tracer.shutdown();
    expectExactlyOnce(await storedIds(server, key, tracer.traceId), tracer);
  });

  it("fails flush() with SINK_REJECTED and the collector's 404 for another organization's path", async () => {
    const server = await start({ dataDir: temporaryDataDir() });
    const { key } = await server.createApiKey({ organization: 'acme' });
    const sink = createHttpSink({ url: server.url, apiKey: key, ...fast, organization: 'default' });
    const tracer = createTracer({ sinks: [sink] });
    tracer.logMessage({ role: 'user', content: 'hi' });
    const failure = await tracer.flush().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TracerFlushError);
    const error = (failure as TracerFlushError).errors[0] as SinkError;
    expect(error.code).toBe('SINK_REJECTED');
    expect(error.serverError).toMatchObject({ code: 'NOT_FOUND', http_status: 404 });
    expect(error.message).toMatch(/Check organization/);
  });
});
