/**
 * Per-call overhead of guards on a no-op async tool, against the raw call, a lean hand-written
 * policy (the floor on this machine) and the same policy built from cockatiel and from opossum,
 * all in one run. Nothing here asserts timing.
 *
 * Built for a loaded machine: figures are CPU time per call (see `timeBatch`), and samples are
 * interleaved (each sample times one batch of every case in turn, raw included), so a burst of
 * load hits all cases alike; "added" is a case's ns/op minus raw's in the same sample, and ratios
 * are taken per sample. Figures are medians over samples.
 * Traced cases get a fresh tracer per sample, so the trace stays small (as a real one is). A
 * tracer with no sink defers guarded calls' blocks until the trace is read: "memory tracer"
 * never reads it, "read every 100 calls" pays for every block being built. The sink rows (memory
 * sink, JSONL file sink) are what users run: every block is built, validated and written at
 * once. Rows "without the direct channel" give the guard a tracer wrapper with its own
 * `recordEntry`, so the guard builds the TraceEntry and the tracer converts it (decision 080).
 *
 * Run: pnpm bench guards (built packages) or pnpm bench:source guards
 * Env: SAMPLES (default 21), BATCH (calls per batch, default 5000), CASES (keys, comma-separated;
 * skips the sustained part unless SUSTAINED_CASES is set), SUSTAINED (calls per case and round,
 * default 200000), SUSTAINED_ROUNDS (default 5), SUSTAINED_CASES (keys), DEBUG_BENCH (print
 * every sample).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GCProfiler } from 'node:v8';
import {
  createBudget,
  createJsonlFileSink,
  createMemorySink,
  createTracer,
  guard,
  type Sink,
  type TraceEntry,
  type Tracer,
} from '@tracewarden/core';
import {
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleAll,
  retry,
  TimeoutStrategy,
  timeout,
  wrap,
} from 'cockatiel';
import CircuitBreaker from 'opossum';

const samples = Math.max(3, Number(process.env.SAMPLES ?? 21));
const batch = Math.max(100, Number(process.env.BATCH ?? 5_000));
const gc = (globalThis as { gc?: () => void }).gc;

const noop = async (_q: string) => 'ok';

/** Issue 3's policy: retry, breaker, rate limit, budget, all in memory; no validators. */
function allGuards(extra: Record<string, unknown> = {}) {
  return guard(noop, {
    name: 'noop',
    retry: { maxRetries: 3 },
    circuitBreaker: { failureThreshold: 5, recoveryTimeout: 30 },
    rateLimit: { callsPerSecond: 1e12, burst: 1e12, sharedKey: '' },
    budget: createBudget({ maxCostPerSession: 1e9, costPerCall: 0.000001 }),
    ...extra,
  });
}

function benchTracer(sinks: Sink[] = []): Tracer {
  const tracer = createTracer({ sinks });
  tracer.logMessage({ role: 'user', content: 'bench' });
  return tracer;
}

// The JSONL file the sink rows append to; emptied between samples (see `sinkTracer`).
const jsonlDir = mkdtempSync(join(tmpdir(), 'tracewarden-guards-bench-'));
const jsonlPath = join(jsonlDir, 'trace.jsonl');
process.on('exit', () => rmSync(jsonlDir, { recursive: true, force: true }));

/**
 * Where the with-sink rows send their blocks, as users run a tracer: `memory` a memory sink per
 * trace, `jsonl` a JSONL file sink (default buffer) appending to one file.
 */
type SinkKind = 'memory' | 'jsonl';
function sinkFor(kind: SinkKind): Sink {
  return kind === 'memory' ? createMemorySink() : createJsonlFileSink(jsonlPath);
}

/**
 * A tracer as `guard()` sees it when the direct-recording channel is not taken: a wrapper with a
 * `recordEntry` of its own (the guard then builds the TraceEntry and calls it, as it does for
 * any other Tracer). Measures the guard and tracer without the channel, in the same process.
 * A spread copy, not `Object.create(tracer)`: a wrapper whose prototype is the tracer gets a
 * hidden class per tracer, kept in old space, which keeps every trace alive across scavenges
 * (~11 µs of GC per call sustained, which the rows once charged to the missing channel).
 */
function entryPathOnly(tracer: Tracer): Tracer {
  return { ...tracer, recordEntry: (entry, options) => tracer.recordEntry(entry, options) };
}

const plain = allGuards();
const withTimeout = allGuards({ timeout: { timeoutSeconds: 10 } });
let lastEntry: TraceEntry | undefined;
const hooked = allGuards({
  onEntry: (entry: TraceEntry) => {
    lastEntry = entry;
  },
});

// Calibration: the floor on this machine. A lean hand-written bucket + breaker + budget (+ retry
// on failure, not taken here), with and without one setTimeout cleared on settle.
const lean = (() => {
  const bucket = { tokens: 1e12, last: Date.now() };
  let failures = 0;
  let spent = 0;
  const fail = (error: unknown) => {
    failures++;
    throw error;
  };
  const call = (q: string) => {
    const now = Date.now();
    if (failures >= 5) return Promise.reject(new Error('open'));
    bucket.tokens = Math.min(1e12, bucket.tokens + (now - bucket.last) * 1e9);
    bucket.last = now;
    if (bucket.tokens < 1) return Promise.reject(new Error('rate limited'));
    bucket.tokens--;
    // budget in integer micro-USD: 1 per call against a session maximum
    if (spent + 1 > 1e15) return Promise.reject(new Error('budget exceeded'));
    spent++;
    return noop(q).then((value) => {
      failures = 0;
      return value;
    }, fail);
  };
  const withTimer = (q: string) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timeout')), 10_000);
      call(q).then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  return { call, withTimer };
})();

const cockatiel = wrap(
  retry(handleAll, { maxAttempts: 3, backoff: new ExponentialBackoff() }),
  circuitBreaker(handleAll, { halfOpenAfter: 30_000, breaker: new ConsecutiveBreaker(5) }),
  timeout(10_000, TimeoutStrategy.Cooperative),
);
const opossum = new CircuitBreaker(noop, {
  timeout: 10_000,
  resetTimeout: 30_000,
  errorThresholdPercentage: 50,
});
const opossumLean = new CircuitBreaker(noop, {
  timeout: false,
  resetTimeout: 30_000,
  errorThresholdPercentage: 50,
});

interface Case {
  key: string;
  label: string;
  /** Builds the function to time; called once, or once per sample with `fresh`. */
  make: () => () => Promise<unknown>;
  /** Rebuild per sample (tracers: keeps the trace small). */
  fresh?: boolean;
  /** Calls per batch, as a fraction of BATCH (slow cases). */
  scale?: number;
}

function tracedGuard(extra: Record<string, unknown> = {}) {
  const traced = allGuards({ tracer: benchTracer(), ...extra });
  return () => traced('q');
}

/**
 * A guarded call traced into a sink, as users run it: every call's two blocks go to the sink at
 * once. A trace of 1,000 calls is flushed before the next one starts (the flush is timed: users
 * pay it), so the JSONL row includes the file appends. `entryPath`: without the direct channel.
 */
const sinkTracers = new Set<Tracer>();
function sinkTraced(kind: SinkKind, entryPath = false) {
  let previous: Tracer | undefined;
  return () => {
    const tracer = benchTracer([sinkFor(kind)]);
    if (previous !== undefined) sinkTracers.delete(previous);
    sinkTracers.add(tracer);
    const traced = allGuards({ tracer: entryPath ? entryPathOnly(tracer) : tracer });
    const flushing = previous?.flush();
    previous = tracer;
    let first = flushing;
    const fn = async () => {
      if (first !== undefined) {
        await first;
        first = undefined;
      }
      return traced('q');
    };
    // the interleaved samples time the flush after each batch: a sink that serializes or
    // writes when it appends would otherwise do so in the next sample's untimed warm-up
    return Object.assign(fn, { settle: () => tracer.flush() });
  };
}

/**
 * A tracer with no sink builds a guarded call's blocks when the trace is next read; here it is
 * read (`findToolCall`) every 100 calls, so the figure includes building, validating and
 * freezing every block, as a run that reads its trace pays.
 */
function tracedGuardRead() {
  const tracer = benchTracer();
  const traced = allGuards({ tracer });
  let n = 0;
  return async () => {
    await traced('q');
    if (++n % 100 === 0) tracer.findToolCall('');
  };
}

const cases: Case[] = [
  { key: 'raw', label: 'raw no-op async tool', make: () => () => noop('q') },
  { key: 'guard', label: 'guard: retry+breaker+rate limit+budget', make: () => () => plain('q') },
  { key: 'timeout', label: 'guard: same + timeout', make: () => () => withTimeout('q') },
  { key: 'lean', label: 'lean hand-written (floor)', make: () => () => lean.call('q') },
  {
    key: 'leanTimeout',
    label: 'lean hand-written + timeout (floor)',
    make: () => () => lean.withTimer('q'),
  },
  {
    key: 'entries',
    label: 'guard + onEntry hook (entries, no tracer)',
    make: () => () => hooked('q'),
    scale: 0.4,
  },
  {
    key: 'traced',
    label: 'guard + memory tracer (every entry)',
    make: () => tracedGuard(),
    fresh: true,
    scale: 0.2,
  },
  {
    key: 'tracedRead',
    label: 'same, trace read every 100 calls',
    make: () => tracedGuardRead(),
    fresh: true,
    scale: 0.2,
  },
  {
    key: 'tracedTimeout',
    label: 'guard + memory tracer + timeout',
    make: () => tracedGuard({ timeout: { timeoutSeconds: 10 } }),
    fresh: true,
    scale: 0.2,
  },
  {
    key: 'tracedEntry',
    label: 'same, without the direct channel',
    make: () => {
      const traced = allGuards({ tracer: entryPathOnly(benchTracer()) });
      return () => traced('q');
    },
    fresh: true,
    scale: 0.2,
  },
  {
    key: 'memorySink',
    label: 'guard + tracer, memory sink',
    make: sinkTraced('memory'),
    fresh: true,
    scale: 0.2,
  },
  {
    key: 'memorySinkEntry',
    label: 'same, without the direct channel',
    make: sinkTraced('memory', true),
    fresh: true,
    scale: 0.2,
  },
  {
    key: 'jsonlSink',
    label: 'guard + tracer, JSONL file sink',
    make: sinkTraced('jsonl'),
    fresh: true,
    scale: 0.2,
  },
  {
    key: 'jsonlSinkEntry',
    label: 'same, without the direct channel',
    make: sinkTraced('jsonl', true),
    fresh: true,
    scale: 0.2,
  },
  {
    key: 'recordEntry',
    label: 'tracer.recordEntry alone (copied entry)',
    make: () => {
      const tracer = benchTracer();
      const entry = lastEntry;
      if (entry === undefined) throw new Error('the onEntry hook never ran');
      // each call needs its own call id; the two spreads cost a few tens of ns
      let n = 0;
      return () => {
        const callId = `bench-${++n}`;
        tracer.recordEntry({
          call: { ...entry.call, call_id: callId },
          result: { ...entry.result, call_id: callId },
        });
        return Promise.resolve();
      };
    },
    fresh: true,
    scale: 0.2,
  },
  {
    key: 'cockatiel',
    label: 'cockatiel: retry+breaker+timeout',
    make: () => () => cockatiel.execute(() => noop('q')),
    scale: 0.2,
  },
  { key: 'opossum', label: 'opossum: breaker+timeout', make: () => () => opossum.fire('q') },
  {
    key: 'opossumLean',
    label: 'opossum: breaker (lean, no timeout)',
    make: () => () => opossumLean.fire('q'),
  },
];

/**
 * Times `calls` sequential awaited calls; CPU ns per call (user + system, all threads, so GC
 * counts). CPU time, not wall time: on a loaded machine a batch preempted for a few ms would
 * otherwise count another process's work. On an idle machine the two agree.
 */
async function timeBatch(
  fn: (() => Promise<unknown>) & { settle?: () => Promise<void> },
  calls: number,
): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) await fn();
  await fn.settle?.();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / calls;
}

const only = process.env.CASES?.split(',');
if (only !== undefined) {
  for (let i = cases.length - 1; i >= 0; i--) if (!only.includes(cases[i]!.key)) cases.splice(i, 1);
}

// the entry recordEntry is timed with comes from the hook: make sure one exists
await hooked('q');

const fns = new Map<string, () => Promise<unknown>>();
for (const c of cases) {
  const fn = c.make();
  fns.set(c.key, fn);
  await timeBatch(fn, Math.ceil(batch * (c.scale ?? 1))); // warm-up
}

gc?.();
const readings: Record<string, number>[] = [];
for (let sample = 0; sample < samples; sample++) {
  const reading: Record<string, number> = {};
  rmSync(jsonlPath, { force: true });
  for (const c of cases) {
    const fn = c.fresh === true ? c.make() : fns.get(c.key)!;
    if (c.fresh === true) await timeBatch(fn, 200);
    reading[c.key] = await timeBatch(fn, Math.ceil(batch * (c.scale ?? 1)));
  }
  readings.push(reading);
  if (process.env.DEBUG_BENCH)
    console.log(
      JSON.stringify(
        Object.fromEntries(Object.entries(reading).map(([k, v]) => [k, Math.round(v)])),
      ),
    );
}

function median(values: number[]): number {
  // a case left out with CASES has no readings
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
const nsOf = (key: string) => median(readings.map((r) => r[key]!));
const addedOf = (key: string) => median(readings.map((r) => r[key]! - r.raw!));
const ratioOf = (key: string, to: string) =>
  median(readings.map((r) => (r[key]! - r.raw!) / (r[to]! - r.raw!)));

const targets: Record<string, string> = {
  guard: '(target ≤ 200)',
  timeout: '(target ≤ 500)',
  traced: '(target ≤ 1,500)',
  memorySink: '(target ≤ 1,500)',
  jsonlSink: '(target ≤ 1,500)',
};
console.log(
  `\n## guards: CPU ns per call, median of ${samples} interleaved samples (added = minus raw, same sample)`,
);
console.log(`${'case'.padEnd(44)} ${'ns/op'.padStart(8)}  ${'added ns'.padStart(9)}`);
for (const c of cases) {
  const added = c.key === 'raw' || c.key === 'recordEntry' ? '' : `+${addedOf(c.key).toFixed(0)}`;
  console.log(
    `${c.label.padEnd(44)} ${nsOf(c.key).toFixed(0).padStart(8)}  ${added.padStart(9)}  ${targets[c.key] ?? ''}`,
  );
}
const ratio = (label: string, key: string, to: string) =>
  console.log(`${label.padEnd(58)} x${ratioOf(key, to).toFixed(1)}`);
console.log('\n## ratios of added cost (per sample, median): how many times cheaper the guard is');
ratio('cockatiel retry+breaker+timeout / guard + timeout', 'cockatiel', 'timeout');
ratio('opossum breaker+timeout / guard + timeout', 'opossum', 'timeout');
ratio('opossum lean breaker / guard, no timeout', 'opossumLean', 'guard');
ratio('cockatiel retry+breaker+timeout / guard, no timeout', 'cockatiel', 'guard');
console.log('## and against the floor (lean hand-written, same sample)');
ratio('guard, no timeout / lean', 'guard', 'lean');
ratio('guard + timeout / lean + timeout', 'timeout', 'leanTimeout');
console.log(
  `\nsummary: added ns/call: no timeout ${addedOf('guard').toFixed(0)} (≤ 200), timeout ${addedOf('timeout').toFixed(0)} (≤ 500), ` +
    `entries built ${addedOf('entries').toFixed(0)}, memory tracer ${addedOf('traced').toFixed(0)} (≤ 1,500), ` +
    `read every 100 calls ${addedOf('tracedRead').toFixed(0)}, memory sink ${addedOf('memorySink').toFixed(0)}, ` +
    `JSONL file sink ${addedOf('jsonlSink').toFixed(0)}; recordEntry alone ≈ ${nsOf('recordEntry').toFixed(0)}`,
);

// Sustained: long runs, every cost included (all GC, however it falls between batches; the
// interleaved medians above keep a batch's own GC but can miss a pause that lands in another
// case's batch). A fresh tracer every 1,000 calls, as above. Each round runs raw and every case
// once (the order rotates per round), and a case's figure is its CPU ns per call minus raw's in
// the same round, median over rounds: the figure users feel (issue 18: <= 200 ns for the guard,
// <= 500 ns with a timeout, <= 1,500 ns with a sink). The lean rows are the floor, as above.
const sustainedCalls = Math.max(10_000, Number(process.env.SUSTAINED ?? 200_000));
const sustainedRounds = Math.max(1, Number(process.env.SUSTAINED_ROUNDS ?? 5));
/** One sustained run: CPU ns, heap bytes allocated and GC pause ns, each per call. */
interface SustainedReading {
  ns: number;
  bytes: number;
  gcNs: number;
}
/**
 * Heap bytes allocated and GC time over a run, from V8's per-GC heap statistics: what was used
 * before each GC minus what was left after the previous one (or at the start), plus what was
 * added after the last. Tells where a row's GC cost comes from (decision 080).
 */
function allocationOf(
  profile: ReturnType<GCProfiler['stop']>,
  usedAtStart: number,
  usedAtEnd: number,
): { bytes: number; gcNs: number } {
  let bytes = 0;
  let after = usedAtStart;
  let gcNs = 0;
  for (const gc of profile?.statistics ?? []) {
    bytes += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - after);
    after = gc.afterGC.heapStatistics.usedHeapSize;
    gcNs += gc.cost * 1000;
  }
  return { bytes: bytes + Math.max(0, usedAtEnd - after), gcNs };
}
async function sustained(
  make: () => () => Promise<unknown>,
  freshEvery?: number,
): Promise<SustainedReading> {
  let fn = make();
  for (let i = 0; i < 5_000; i++) await fn();
  gc?.();
  const profiler = new GCProfiler();
  const usedAtStart = process.memoryUsage().heapUsed;
  profiler.start();
  const start = process.cpuUsage();
  for (let i = 0; i < sustainedCalls; i++) {
    if (freshEvery !== undefined && i % freshEvery === 0) fn = make();
    await fn();
  }
  const used = process.cpuUsage(start);
  const { bytes, gcNs } = allocationOf(
    profiler.stop(),
    usedAtStart,
    process.memoryUsage().heapUsed,
  );
  return {
    ns: ((used.user + used.system) * 1000) / sustainedCalls,
    bytes: bytes / sustainedCalls,
    gcNs: gcNs / sustainedCalls,
  };
}
interface SustainedCase {
  key: string;
  label: string;
  make: () => () => Promise<unknown>;
  freshEvery?: number;
}
const sustainedCases: SustainedCase[] = [
  { key: 'raw', label: 'raw no-op async tool', make: () => () => noop('q') },
  { key: 'guard', label: 'guard, no tracer', make: () => () => plain('q') },
  { key: 'timeout', label: 'guard + timeout, no tracer', make: () => () => withTimeout('q') },
  { key: 'lean', label: 'lean hand-written (floor)', make: () => () => lean.call('q') },
  {
    key: 'leanTimeout',
    label: 'lean hand-written + timeout (floor)',
    make: () => () => lean.withTimer('q'),
  },
  { key: 'traced', label: 'guard + tracer, no sink', make: () => tracedGuard(), freshEvery: 1_000 },
  {
    key: 'tracedEntry',
    label: '  without the direct channel',
    make: () => {
      const traced = allGuards({ tracer: entryPathOnly(benchTracer()) });
      return () => traced('q');
    },
    freshEvery: 1_000,
  },
  {
    key: 'tracedRead',
    label: 'guard + tracer, no sink, read every 100',
    make: () => tracedGuardRead(),
    freshEvery: 1_000,
  },
  {
    key: 'memorySink',
    label: 'guard + tracer, memory sink',
    make: sinkTraced('memory'),
    freshEvery: 1_000,
  },
  {
    key: 'memorySinkEntry',
    label: '  without the direct channel',
    make: sinkTraced('memory', true),
    freshEvery: 1_000,
  },
  {
    key: 'jsonlSink',
    label: 'guard + tracer, JSONL file sink',
    make: sinkTraced('jsonl'),
    freshEvery: 1_000,
  },
  {
    key: 'jsonlSinkEntry',
    label: '  without the direct channel',
    make: sinkTraced('jsonl', true),
    freshEvery: 1_000,
  },
];
const sustainedOnly = process.env.SUSTAINED_CASES?.split(',');
if (sustainedOnly !== undefined) {
  for (let i = sustainedCases.length - 1; i > 0; i--)
    if (!sustainedOnly.includes(sustainedCases[i]!.key)) sustainedCases.splice(i, 1);
}
if (only === undefined || sustainedOnly !== undefined) {
  const rounds: Record<string, number>[] = [];
  const memory: Record<string, SustainedReading>[] = [];
  for (let round = 0; round < sustainedRounds; round++) {
    const reading: Record<string, number> = {};
    const readings: Record<string, SustainedReading> = {};
    // rotate the order so no case always runs after the same one (or first, on a cold heap)
    for (let j = 0; j < sustainedCases.length; j++) {
      const c = sustainedCases[(j + round) % sustainedCases.length]!;
      rmSync(jsonlPath, { force: true });
      readings[c.key] = await sustained(c.make, c.freshEvery);
      reading[c.key] = readings[c.key]!.ns;
    }
    rounds.push(reading);
    memory.push(readings);
    if (process.env.DEBUG_BENCH)
      console.log(
        JSON.stringify(
          Object.fromEntries(Object.entries(reading).map(([k, v]) => [k, Math.round(v)])),
        ),
      );
  }
  console.log(
    `\n## sustained: ${sustainedCalls} calls per case and round, ${sustainedRounds} rounds; CPU ns per call with all GC (all threads), added = minus raw in the same round, median (min–max); heap bytes allocated and GC pause ns per call, median`,
  );
  for (const c of sustainedCases) {
    const ns = median(rounds.map((r) => r[c.key]!));
    const added = rounds.map((r) => r[c.key]! - r.raw!);
    const range = `${Math.min(...added).toFixed(0)}–${Math.max(...added).toFixed(0)}`;
    const bytes = median(memory.map((r) => r[c.key]!.bytes));
    const gcNs = median(memory.map((r) => r[c.key]!.gcNs));
    const addedText = c.key === 'raw' ? '' : `+${median(added).toFixed(0)} (${range})`;
    console.log(
      `${c.label.padEnd(44)} ${ns.toFixed(0).padStart(8)}  ${addedText.padEnd(22)} ${bytes.toFixed(0).padStart(6)} B  GC ${gcNs.toFixed(0).padStart(5)} ns`,
    );
  }
}
// the last trace of each sink row: written before the process ends
await Promise.all([...sinkTracers].map((tracer) => tracer.flush()));
