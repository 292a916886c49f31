/**
 * Helpers of the adapter benchmarks: the scripted server in its own process (so the bench's
 * process measures only client work), paired raw/wrapped calls, main-thread CPU time per call.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageConditions } from './lib.js';

/**
 * Starts bench/scripted-server-process.ts (the scripted server, echo fallback) in a child
 * process and kills it when this process exits. Resolves to its URL.
 */
export async function startServerProcess(): Promise<{ url: string; kill(): void }> {
  const script = join(dirname(fileURLToPath(import.meta.url)), 'scripted-server-process.ts');
  const child: ChildProcess = spawn(
    process.execPath,
    [...packageConditions(), '--import', 'tsx', script],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.on('exit', kill);
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      kill();
      process.exit(1);
    });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`scripted server exited (${code})`)));
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (data: string) => {
      out += data;
      const line = out.indexOf('\n');
      if (line >= 0) resolve(out.slice(0, line).trim());
    });
  });
  return { url, kill };
}

/** The median of some numbers. */
export function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;

/**
 * CPU time (user + system) of this process's main thread so far, in ms (Node 23.9+; else the
 * whole process). The main thread runs the clients; the GC's helper threads are left out.
 */
export function cpuMs(): number {
  const { user, system } = threadCpuUsage ? threadCpuUsage.call(process) : process.cpuUsage();
  return (user + system) / 1000;
}

/** Samples of raw and wrapped calls, paired by index. */
export interface Pairs<S> {
  raw: S[];
  wrapped: S[];
}

/** `calls` paired calls, raw and wrapped back to back, alternating which goes first. */
export async function pairedPhase<S>(
  calls: number,
  rawCall: () => Promise<S>,
  wrappedCall: () => Promise<S>,
): Promise<Pairs<S>> {
  const pairs: Pairs<S> = { raw: [], wrapped: [] };
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
 * CPU time per call of the main thread: blocks of 100 raw calls and 100 wrapped calls,
 * alternating which block goes first, summed per kind (per call is too coarse: the kernel
 * accounts CPU time in ticks).
 */
export async function cpuPerCall(
  calls: number,
  rawCall: () => Promise<unknown>,
  wrappedCall: () => Promise<unknown>,
): Promise<{ raw: number; wrapped: number }> {
  const block = 100;
  const time = { raw: 0, wrapped: 0 };
  const run = async (call: () => Promise<unknown>, kind: 'raw' | 'wrapped') => {
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

/**
 * `calls` rounds of one call of each variant, back to back, the order rotating each round, so
 * socket and GC drift hit every variant alike. Samples are paired by round (index).
 */
export async function roundRobinPhase<S>(
  calls: number,
  variants: readonly (() => Promise<S>)[],
): Promise<S[][]> {
  const samples: S[][] = variants.map(() => []);
  const count = variants.length;
  for (let i = 0; i < calls; i++) {
    for (let j = 0; j < count; j++) {
      const index = (i + j) % count;
      const sample = await (variants[index] as () => Promise<S>)();
      samples[index]?.push(sample);
    }
  }
  return samples;
}

/**
 * CPU time per call of the main thread for each variant: blocks of 100 calls of each, the order
 * rotating each round, summed per variant (see {@link cpuPerCall}).
 */
export async function cpuPerCallEach(
  calls: number,
  variants: readonly (() => Promise<unknown>)[],
): Promise<number[]> {
  const block = 100;
  const count = variants.length;
  const time = variants.map(() => 0);
  for (let i = 0; i < calls / block; i++) {
    for (let j = 0; j < count; j++) {
      const index = (i + j) % count;
      const call = variants[index] as () => Promise<unknown>;
      const start = cpuMs();
      for (let k = 0; k < block; k++) await call();
      time[index] = (time[index] ?? 0) + cpuMs() - start;
    }
  }
  return time.map((ms) => ms / calls);
}
