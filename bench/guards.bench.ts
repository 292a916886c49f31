/**
 * Per-call overhead of guards on a no-op async tool, against the raw call and against the same
 * policy built from cockatiel and from opossum, all in one run. Nothing here asserts timing.
 */
import { createBudget, createTracer, guard } from '@tracewarden/core';
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
import { type Measurement, measure, report } from './lib.js';

const noop = async (_q: string) => 'ok';

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

const plain = allGuards();
const withTimeout = allGuards({ timeout: { timeoutSeconds: 10 } });
const traced = (() => {
  const tracer = createTracer();
  tracer.logMessage({ role: 'user', content: 'bench' });
  return allGuards({ tracer });
})();
const tracedWithTimeout = (() => {
  const tracer = createTracer();
  tracer.logMessage({ role: 'user', content: 'bench' });
  return allGuards({ tracer, timeout: { timeoutSeconds: 10 } });
})();

let lastEntry: unknown;
const hooked = allGuards({
  onEntry: (entry: unknown) => {
    lastEntry = entry;
  },
});

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

const rows: Measurement[] = [];
rows.push(await measure('raw no-op async tool', () => noop('q')));
rows.push(await measure('guard: retry+breaker+rate limit+budget', () => plain('q')));
rows.push(await measure('guard: same + timeout', () => withTimeout('q')));
rows.push(
  await measure('cockatiel: retry+breaker+timeout', () => cockatiel.execute(() => noop('q'))),
);
rows.push(await measure('opossum: breaker+timeout', () => opossum.fire('q')));
rows.push(await measure('opossum: breaker (lean, no timeout)', () => opossumLean.fire('q')));
report('guards: per-call overhead (no tracer)', rows);

// every call is recorded as two blocks: fewer calls so the tracer's memory stays small
const small = { batch: 2_000, samples: 9, warmup: 2_000 };
const tracedRows: Measurement[] = [];
tracedRows.push(await measure('raw no-op async tool', () => noop('q'), small));
tracedRows.push(
  await measure('guard + onEntry hook (entries built, no tracer)', () => hooked('q'), small),
);
tracedRows.push(await measure('guard + memory tracer (every entry)', () => traced('q'), small));
tracedRows.push(
  await measure('guard + memory tracer + timeout', () => tracedWithTimeout('q'), small),
);
report('guards: per-call cost with a memory tracer', tracedRows);
if (lastEntry === undefined) throw new Error('the onEntry hook never ran');

const raw = rows[0]!.nsPerOp;
const added = (row: Measurement | undefined) =>
  row === undefined ? Number.NaN : row.nsPerOp - raw;
console.log(
  `\nadded ns/call: no timeout ${added(rows[1]).toFixed(0)} (target ≤ 200), timeout ${added(rows[2]).toFixed(0)} (target ≤ 500), ` +
    `entries only ${tracedRows[1]!.nsPerOp.toFixed(0)} ns/call, with tracer ${tracedRows[2]!.nsPerOp.toFixed(0)} ns/call (target ≤ 1500); ` +
    `cockatiel / guard: x${(added(rows[3]) / added(rows[2])).toFixed(1)}, opossum / guard: x${(added(rows[4]) / added(rows[2])).toFixed(1)}`,
);
