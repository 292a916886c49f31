/**
 * `pnpm bench http-sink`: core's `createHttpSink` against the collector (SQLite), the collector
 * in a child process (`http-sink.bench.ts --serve`), so this process measures the client only.
 *
 * - Hot path: a tracer's `logMessage` with the HTTP sink vs with a memory sink, interleaved,
 *   BENCH_SINK_BLOCKS (5,000) blocks per sample, a fresh tracer per sample; nothing is sent
 *   while timing (the sink only buffers), then the sink is flushed untimed. Reported: ns per
 *   block, medians, and what the HTTP sink adds.
 * - Throughput: the same pre-built blocks (BENCH_SINK_TRACE_BLOCKS, 20,000, one trace per
 *   round) through the sink (`write` each, then `flush()`), against a hand-written loop that
 *   POSTs the same batches (500 blocks, gzip, one request in flight: what the sink does, minus
 *   the sink). Rounds interleaved, order alternating. Reported: medians of blocks/s and the ratio.
 *
 * Prints `uptime` load averages: the machine is shared.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import {
  type Block,
  createHttpSink,
  createMemorySink,
  createTracer,
  type Sink,
} from '@tracewarden/core';

const hotBlocks = Number(process.env.BENCH_SINK_BLOCKS ?? 5_000);
const hotSamples = Number(process.env.BENCH_SINK_SAMPLES ?? 15);
const traceBlocks = Number(process.env.BENCH_SINK_TRACE_BLOCKS ?? 20_000);
const rounds = Number(process.env.BENCH_SINK_ROUNDS ?? 5);
const batchBlocks = 500;
const gzipAsync = promisify(gzip);

async function serve(): Promise<void> {
  const { startServer } = await import('../packages/server/src/index.js');
  const server = await startServer({
    port: 0,
    dataDir: process.env.BENCH_SINK_DATA_DIR as string,
    env: {},
  });
  process.stdout.write(`${JSON.stringify({ url: server.url, key: server.initialApiKey?.key })}\n`);
  process.on('SIGTERM', () => {
    void server.close().then(() => process.exit(0));
  });
}

async function spawnCollector(dataDir: string): Promise<{
  url: string;
  key: string;
  child: ChildProcess;
}> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--serve'],
    { env: { ...process.env, BENCH_SINK_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = (await once(
    createInterface({ input: child.stdout as NodeJS.ReadableStream }),
    'line',
  )) as [string];
  return { ...(JSON.parse(line) as { url: string; key: string }), child };
}

const median = (values: number[]) => values.slice().sort((a, b) => a - b)[values.length >> 1] ?? 0;
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');

/** ns per block of `count` logMessage calls on a fresh tracer with `sink`. */
function logMessages(sink: Sink, count: number): number {
  const tracer = createTracer({ sinks: [sink] });
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++)
    tracer.logMessage({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `message ${i}: weather in Bogotá?`,
    });
  return Number(process.hrtime.bigint() - start) / count;
}

/** One trace's blocks, built (untimed) by a tracer with a memory sink. */
function traceOf(count: number): Block[] {
  const memory = createMemorySink();
  const tracer = createTracer({ sinks: [memory] });
  let parent = '';
  for (let i = 0; i < count; i++) {
    if (i % 4 === 0) parent = tracer.logMessage({ role: 'assistant', content: `turn ${i}` }).id;
    else if (i % 4 === 1)
      tracer.logAct({
        parent_block_id: parent,
        payload: { call_id: `call_${i}`, name: 'get_weather', arguments: { city: 'Bogotá' } },
      });
    else if (i % 4 === 2)
      tracer.logObserve({ payload: { call_id: `call_${i - 1}`, output: '22°C' } });
    else tracer.logThink({ parent_block_id: parent, payload: { text: `thinking ${i}` } });
  }
  return memory.blocks.slice();
}

async function direct(url: string, key: string, blocks: Block[]): Promise<number> {
  const traceId = blocks[0]?.trace_id as string;
  const start = performance.now();
  for (let i = 0; i < blocks.length; i += batchBlocks) {
    const text = `{"blocks":[${blocks
      .slice(i, i + batchBlocks)
      .map((block) => JSON.stringify(block))
      .join(',')}]}`;
    const response = await fetch(`${url}/v1/organizations/default/traces/${traceId}/blocks`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: await gzipAsync(text),
    });
    await response.arrayBuffer();
    if (response.status >= 300) throw new Error(`direct POST answered ${response.status}`);
  }
  return performance.now() - start;
}

async function throughSink(url: string, key: string, blocks: Block[]): Promise<number> {
  const sink = createHttpSink({ url, apiKey: key, maxBatchBlocks: batchBlocks });
  const start = performance.now();
  for (const block of blocks) sink.write(block);
  await sink.flush();
  const elapsed = performance.now() - start;
  await sink.close();
  return elapsed;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tracewarden-bench-sink-'));
  const collector = await spawnCollector(dataDir);
  try {
    console.log(`load average at start: ${load()}`);

    // hot path
    const memoryNs: number[] = [];
    const httpNs: number[] = [];
    for (let sample = 0; sample < hotSamples; sample++) {
      const http = createHttpSink({
        url: collector.url,
        apiKey: collector.key,
        maxBatchBlocks: 10_000,
        flushIntervalMs: 600_000,
      });
      const pair = () => {
        memoryNs.push(logMessages(createMemorySink(), hotBlocks));
        httpNs.push(logMessages(http, hotBlocks));
      };
      if (sample % 2 === 0) pair();
      else {
        httpNs.push(logMessages(http, hotBlocks));
        memoryNs.push(logMessages(createMemorySink(), hotBlocks));
      }
      await http.close();
    }
    const added = median(httpNs.map((ns, i) => ns - (memoryNs[i] ?? 0)));
    console.log(
      `hot path, logMessage per block: memory sink ${median(memoryNs).toFixed(0)} ns, HTTP sink ${median(httpNs).toFixed(0)} ns (added ${added.toFixed(0)} ns, median of paired differences, ${hotSamples} samples of ${hotBlocks.toLocaleString('en-US')})`,
    );

    // throughput
    const directMs: number[] = [];
    const sinkMs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const a = traceOf(traceBlocks);
      const b = traceOf(traceBlocks);
      if (round % 2 === 0) {
        directMs.push(await direct(collector.url, collector.key, a));
        sinkMs.push(await throughSink(collector.url, collector.key, b));
      } else {
        sinkMs.push(await throughSink(collector.url, collector.key, a));
        directMs.push(await direct(collector.url, collector.key, b));
      }
    }
    const rate = (ms: number) => Math.round((traceBlocks / ms) * 1000).toLocaleString('en-US');
    const ratios = sinkMs.map((ms, i) => ms / (directMs[i] ?? ms));
    console.log(
      `throughput, ${traceBlocks.toLocaleString('en-US')} blocks per round, batches of ${batchBlocks}, gzip: direct POST loop ${rate(median(directMs))} blocks/s, HTTP sink ${rate(median(sinkMs))} blocks/s, sink/direct time x${median(ratios).toFixed(2)} (median of ${rounds} paired rounds; per round: ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
    );
    console.log(`load average at end: ${load()}`);
  } finally {
    collector.child.kill('SIGTERM');
    await once(collector.child, 'exit');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) await serve();
else await main();
