/**
 * Overhead of `wrapOpenAI`: the same real `openai` client, raw and wrapped (recording every call
 * into an in-memory tracer), against the scripted server (echo fallback) running in a child
 * process (bench/scripted-server-process.ts), so this process's event loop, CPU time and GC are
 * the clients' alone. 2,000 calls each, non-streamed and streamed. Raw and wrapped calls alternate
 * call by call, paired, so socket and GC drift hit both alike; the wall figure is the median of
 * the paired differences. Also prints the main thread's CPU time per call (process.threadCpuUsage
 * over blocks of calls, raw and wrapped accumulated separately).
 *
 * Like with like: the wrapper asks for usage on streamed chat completions
 * (`stream_options.include_usage`, which makes the server send one more, usage-only chunk), so
 * the raw streamed calls of the target rows send that same request. The row "raw without usage"
 * is shown for reference only: it adds the cost of that extra chunk to the wrapper's.
 * Targets (issue 5): < 50 µs added per call, < 0.1 ms added to the first chunk.
 *
 * The tracer has no sink, so each response's MESSAGE is built on the trace's next read
 * (decisions 008, 009); the bench reads it once at the end and prints what that first read cost.
 * The row "client + tracer made per request" makes a new client (raw and wrapped alike) and a new
 * tracer for each call: what a server that gives each request its own trace pays per request.
 */
import { createTracer } from '@tracewarden/core';
import { wrapOpenAI } from '@tracewarden/openai';
import OpenAI from 'openai';
import {
  cpuMs,
  cpuPerCall,
  median,
  type Pairs,
  pairedPhase,
  startServerProcess,
} from './paired.js';

const calls = 2000;

const { url, kill: killServer } = await startServerProcess();
const server = { url };
const raw = new OpenAI({ baseURL: server.url, apiKey: 'bench', maxRetries: 0 });
const tracer = createTracer();
const wrapped = wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'bench', maxRetries: 0 }), {
  tracer,
});
const messages = [
  { role: 'system' as const, content: 'You echo.' },
  { role: 'user' as const, content: 'Say something short.' },
];

interface Sample {
  /** Wall time of the whole call, ms. */
  total: number;
  /** Wall time to the first chunk (streamed), ms. */
  first: number;
  /** CPU time of this process during the call, ms. */
  cpu: number;
}

async function plainCall(client: OpenAI): Promise<Sample> {
  const cpu = cpuMs();
  const start = performance.now();
  await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
  const total = performance.now() - start;
  return { total, first: total, cpu: cpuMs() - cpu };
}

async function streamedCall(client: OpenAI, includeUsage = false): Promise<Sample> {
  const cpu = cpuMs();
  const start = performance.now();
  const stream = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages,
    stream: true,
    ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
  });
  let first = -1;
  for await (const _ of stream) if (first < 0) first = performance.now() - start;
  const total = performance.now() - start;
  return { total, first, cpu: cpuMs() - cpu };
}

async function measure(): Promise<void> {
  // warm-up: JIT, sockets
  for (let i = 0; i < 300; i++) {
    await plainCall(raw);
    await plainCall(wrapped);
    await streamedCall(raw);
    await streamedCall(raw, true);
    await streamedCall(wrapped);
  }
  globalThis.gc?.();
  const plain = await pairedPhase(
    calls,
    () => plainCall(raw),
    () => plainCall(wrapped),
  );
  globalThis.gc?.();
  // the wrapper asks for usage (one more chunk from the server): the same request, raw
  const stream = await pairedPhase(
    calls,
    () => streamedCall(raw, true),
    () => streamedCall(wrapped),
  );
  globalThis.gc?.();
  // reference only: the raw request without include_usage (one chunk fewer than the wrapped one)
  const streamNoUsage = await pairedPhase(
    calls,
    () => streamedCall(raw),
    () => streamedCall(wrapped),
  );

  globalThis.gc?.();
  // a client made per request, as servers that give each request its own trace do: the raw side
  // makes its client too; the wrapped one pays its first call's set-up (pricing, a new trace)
  const newClient = () => new OpenAI({ baseURL: server.url, apiKey: 'bench', maxRetries: 0 });
  const perRequest = await pairedPhase(
    calls / 2,
    () => plainCall(newClient()),
    () => plainCall(wrapOpenAI(newClient(), { tracer: createTracer() })),
  );

  const cpuPlain = await cpuPerCall(
    calls,
    () => plainCall(raw),
    () => plainCall(wrapped),
  );
  const cpuStream = await cpuPerCall(
    calls,
    () => streamedCall(raw, true),
    () => streamedCall(wrapped),
  );

  const us = (ms: number) => `${(ms * 1000).toFixed(1).padStart(7)} µs`;
  const pick = (samples: Sample[], key: keyof Sample) => samples.map((s) => s[key]);
  const paired = (pairs: Pairs<Sample>, key: keyof Sample) =>
    median(pairs.wrapped.map((w, i) => w[key] - (pairs.raw[i]?.[key] ?? 0)));
  const row = (name: string, pairs: Pairs<Sample>, key: 'total' | 'first') => {
    const r = median(pick(pairs.raw, key));
    const w = median(pick(pairs.wrapped, key));
    console.log(
      `${name.padEnd(36)} raw ${us(r)}  wrapped ${us(w)}  added ${us(paired(pairs, key))}  x${(w / r).toFixed(3)}`,
    );
  };
  const cpuRow = (name: string, cpu: { raw: number; wrapped: number }) =>
    console.log(
      `${`cpu/call ${name}`.padEnd(36)} raw ${us(cpu.raw)}  wrapped ${us(cpu.wrapped)}  added ${us(cpu.wrapped - cpu.raw)}  x${(cpu.wrapped / cpu.raw).toFixed(3)}`,
    );
  console.log(
    `\n## wrapOpenAI overhead (${calls} paired calls each, wall: medians of paired differences; server in a child process)`,
  );
  row('chat.completions.create', plain, 'total');
  row('stream (same request raw)', stream, 'total');
  row('time to first chunk', stream, 'first');
  row('ref: stream, raw without usage', streamNoUsage, 'total');
  row('client + tracer made per request', perRequest, 'total');
  console.log('## client main-thread CPU time per call (blocks of 100, summed per kind)');
  cpuRow('chat.completions.create', cpuPlain);
  cpuRow('stream (same request raw)', cpuStream);
  // The in-memory tracer has no sink, so it builds each response's MESSAGE on the next read
  // (decision 009): the first read pays for every call since the last one.
  const readStart = performance.now();
  const blocks = tracer.blocks().length;
  const readMs = performance.now() - readStart;
  console.log(
    `first read of the trace: ${readMs.toFixed(1)} ms for ${blocks} blocks (${((readMs * 1000) / blocks).toFixed(2)} µs per block, paid once)`,
  );
  console.log(
    `targets: < 50 µs added per call, < 100 µs added to first chunk; blocks recorded: ${blocks}`,
  );
}

try {
  await measure();
} finally {
  killServer();
}
