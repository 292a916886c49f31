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
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTracer } from '@tracewarden/core';
import { wrapOpenAI } from '@tracewarden/openai';
import OpenAI from 'openai';

const calls = 2000;

function startServerProcess(): Promise<{ url: string; child: ChildProcess }> {
  const script = join(dirname(fileURLToPath(import.meta.url)), 'scripted-server-process.ts');
  const child = spawn(
    process.execPath,
    ['--conditions=@tracewarden/source', '--import', 'tsx', script],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`scripted server exited (${code})`)));
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (data: string) => {
      out += data;
      const line = out.indexOf('\n');
      if (line >= 0) resolve({ url: out.slice(0, line).trim(), child });
    });
  });
}

const { url, child } = await startServerProcess();
const killServer = () => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
};
process.on('exit', killServer);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    killServer();
    process.exit(1);
  });
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

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;

/**
 * CPU time (user + system) of this process's main thread so far, in ms (Node 23.9+; else the
 * whole process). The main thread runs the clients; the GC's helper threads, whose concurrent
 * marking of the growing trace lands on whichever block runs then, are left out.
 */
function cpuMs(): number {
  const { user, system } = threadCpuUsage ? threadCpuUsage.call(process) : process.cpuUsage();
  return (user + system) / 1000;
}

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

interface Pairs {
  raw: Sample[];
  wrapped: Sample[];
}

/** `calls` paired calls, raw and wrapped back to back, alternating which goes first. */
async function phase(
  rawCall: () => Promise<Sample>,
  wrappedCall: () => Promise<Sample>,
): Promise<Pairs> {
  const pairs: Pairs = { raw: [], wrapped: [] };
  for (let i = 0; i < calls; i++) {
    if (i % 2 === 0) {
      pairs.raw.push(await rawCall());
      pairs.wrapped.push(await wrappedCall());
    } else {
      pairs.wrapped.push(await wrappedCall());
      pairs.raw.push(await rawCall());
    }
  }
  return pairs;
}

/**
 * CPU time per call of the main thread: blocks of 100 raw calls and 100 wrapped calls, alternating
 * which block goes first, the main thread's CPU time summed over each kind's blocks (per-call is
 * too coarse: the kernel accounts CPU time in ticks).
 */
async function cpuPerCall(
  rawCall: () => Promise<Sample>,
  wrappedCall: () => Promise<Sample>,
): Promise<{ raw: number; wrapped: number }> {
  const block = 100;
  const time = { raw: 0, wrapped: 0 };
  const run = async (call: () => Promise<Sample>, kind: 'raw' | 'wrapped') => {
    const start = cpuMs();
    for (let j = 0; j < block; j++) await call();
    time[kind] += cpuMs() - start;
  };
  for (let i = 0; i < calls / block; i++) {
    if (i % 2 === 0) {
      await run(rawCall, 'raw');
      await run(wrappedCall, 'wrapped');
    } else {
      await run(wrappedCall, 'wrapped');
      await run(rawCall, 'raw');
    }
  }
  return { raw: time.raw / calls, wrapped: time.wrapped / calls };
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
  const plain = await phase(
    () => plainCall(raw),
    () => plainCall(wrapped),
  );
  globalThis.gc?.();
  // the wrapper asks for usage (one more chunk from the server): the same request, raw
  const stream = await phase(
    () => streamedCall(raw, true),
    () => streamedCall(wrapped),
  );
  globalThis.gc?.();
  // reference only: the raw request without include_usage (one chunk fewer than the wrapped one)
  const streamNoUsage = await phase(
    () => streamedCall(raw),
    () => streamedCall(wrapped),
  );

  const cpuPlain = await cpuPerCall(
    () => plainCall(raw),
    () => plainCall(wrapped),
  );
  const cpuStream = await cpuPerCall(
    () => streamedCall(raw, true),
    () => streamedCall(wrapped),
  );

  const us = (ms: number) => `${(ms * 1000).toFixed(1).padStart(7)} µs`;
  const pick = (samples: Sample[], key: keyof Sample) => samples.map((s) => s[key]);
  const paired = (pairs: Pairs, key: keyof Sample) =>
    median(pairs.wrapped.map((w, i) => w[key] - (pairs.raw[i]?.[key] ?? 0)));
  const row = (name: string, pairs: Pairs, key: 'total' | 'first') => {
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
