/**
 * Per-call overhead of guards on a no-op async tool, against the raw call and against the same
 * policy built from cockatiel and from opossum, all in one run. Nothing here asserts timing.
 *
 * The machine may be loaded: every case is measured in each of ROUNDS rounds (default 5, order
 * rotated per round), and each figure printed is the median over rounds. "Added" is the case's
 * ns/op minus raw's in the same round; ratios are taken within a round, then the median.
 *
 * Run: node --expose-gc --conditions=@tracewarden/source --import tsx bench/guards.bench.ts
 */
import { createBudget, createTracer, guard, type TraceEntry, type Tracer } from '@tracewarden/core';
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
import { measure } from './lib.js';

const rounds = Math.max(1, Number(process.env.ROUNDS ?? 5));
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

function benchTracer(): Tracer {
  const tracer = createTracer();
  tracer.logMessage({ role: 'user', content: 'bench' });
  return tracer;
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

// every traced call is kept as two blocks: fewer calls, and a fresh tracer per round
const small = { batch: 2_000, samples: 9, warmup: 2_000 };

interface Case {
  key: string;
  label: string;
  /** Builds the function to time (called once per round). */
  make: () => () => unknown;
  options?: typeof small;
}

const cases: Case[] = [
  { key: 'raw', label: 'raw no-op async tool', make: () => () => noop('q') },
  {
    key: 'guard',
    label: 'guard: retry+breaker+rate limit+budget',
    make: () => () => plain('q'),
  },
  { key: 'timeout', label: 'guard: same + timeout', make: () => () => withTimeout('q') },
  {
    key: 'entries',
    label: 'guard + onEntry hook (entries, no tracer)',
    make: () => () => hooked('q'),
    options: small,
  },
  {
    key: 'traced',
    label: 'guard + memory tracer (every entry)',
    make: () => {
      const traced = allGuards({ tracer: benchTracer() });
      return () => traced('q');
    },
    options: small,
  },
  {
    key: 'tracedTimeout',
    label: 'guard + memory tracer + timeout',
    make: () => {
      const traced = allGuards({ tracer: benchTracer(), timeout: { timeoutSeconds: 10 } });
      return () => traced('q');
    },
    options: small,
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
        return tracer.recordEntry({
          call: { ...entry.call, call_id: callId },
          result: { ...entry.result, call_id: callId },
        });
      };
    },
    options: small,
  },
  {
    key: 'lean',
    label: 'lean hand-written (calibration)',
    make: () => () => lean.call('q'),
  },
  {
    key: 'leanTimeout',
    label: 'lean hand-written + timeout (calibration)',
    make: () => () => lean.withTimer('q'),
  },
  {
    key: 'cockatiel',
    label: 'cockatiel: retry+breaker+timeout',
    make: () => () => cockatiel.execute(() => noop('q')),
  },
  { key: 'opossum', label: 'opossum: breaker+timeout', make: () => () => opossum.fire('q') },
  {
    key: 'opossumLean',
    label: 'opossum: breaker (lean, no timeout)',
    make: () => () => opossumLean.fire('q'),
  },
];

// the entry recordEntry is timed with comes from the hook: make sure one exists
await hooked('q');

const perRound: Record<string, number>[] = [];
for (let round = 0; round < rounds; round++) {
  const results: Record<string, number> = {};
  // raw first, then the others rotated, so no case always runs right after the same one
  const others = cases.slice(1);
  const shift = round % others.length;
  const order = [cases[0]!, ...others.slice(shift), ...others.slice(0, shift)];
  for (const c of order) {
    gc?.();
    results[c.key] = (await measure(c.label, c.make(), c.options)).nsPerOp;
  }
  // a second raw reading: the baseline is the lower of the two (least disturbed)
  gc?.();
  results.raw = Math.min(results.raw!, (await measure('raw', cases[0]!.make())).nsPerOp);
  perRound.push(results);
  const added = (key: string) => results[key]! - results.raw!;
  console.log(
    `round ${round + 1}/${rounds}: raw ${results.raw!.toFixed(0)} ns, added: guard ${added('guard').toFixed(0)}, ` +
      `timeout ${added('timeout').toFixed(0)}, lean ${added('lean').toFixed(0)}/${added('leanTimeout').toFixed(0)}, tracer ${added('traced').toFixed(0)}, cockatiel ${added('cockatiel').toFixed(0)}, opossum ${added('opossum').toFixed(0)}`,
  );
}

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
const med = (f: (r: Record<string, number>) => number) => median(perRound.map(f));
const nsOf = (key: string) => med((r) => r[key]!);
const addedOf = (key: string) => med((r) => r[key]! - r.raw!);
const ratioOf = (key: string, to: string) => med((r) => (r[key]! - r.raw!) / (r[to]! - r.raw!));

console.log(`\n## guards: per-call cost, median of ${rounds} rounds (added = minus raw, same round)`);
const targets: Record<string, string> = {
  guard: 'target ≤ 200',
  timeout: 'target ≤ 500',
  traced: 'target ≤ 1,500 total',
};
for (const c of cases) {
  const ns = nsOf(c.key);
  const added = c.key === 'raw' || c.key === 'recordEntry' ? '' : `+${addedOf(c.key).toFixed(0)} ns`;
  const target = targets[c.key] === undefined ? '' : `  (${targets[c.key]})`;
  console.log(
    `${c.label.padEnd(44)} ${ns.toFixed(0).padStart(8)} ns/op  ${added.padStart(10)}${target}`,
  );
}
console.log('\n## ratios of added cost (same round, median): how many times the guard is cheaper');
console.log(
  `cockatiel (retry+breaker+timeout) / guard + timeout     x${ratioOf('cockatiel', 'timeout').toFixed(1)}`,
);
console.log(
  `opossum (breaker+timeout)         / guard + timeout     x${ratioOf('opossum', 'timeout').toFixed(1)}`,
);
console.log(
  `opossum lean (breaker)            / guard, no timeout   x${ratioOf('opossumLean', 'guard').toFixed(1)}`,
);
console.log(
  `cockatiel                         / guard, no timeout   x${ratioOf('cockatiel', 'guard').toFixed(1)}`,
);
console.log(
  `\nsummary: added ns/call: no timeout ${addedOf('guard').toFixed(0)} (≤ 200), timeout ${addedOf('timeout').toFixed(0)} (≤ 500), ` +
    `entries built ${addedOf('entries').toFixed(0)}, memory tracer ${addedOf('traced').toFixed(0)} (≤ 1,500; recordEntry alone ${nsOf('recordEntry').toFixed(0)})`,
);
