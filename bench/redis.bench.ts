/**
 * What sharing guard state through Redis costs per call: a guarded no-op tool with its rate
 * limit, circuit breaker and budget in Redis (`@tracewarden/redis`), against the same guard with
 * in-memory stores and against one Redis round trip (`PING` on the same connection), the floor
 * of anything that asks Redis. Sequential calls show the latency a call pays (round trips:
 * breaker acquire and record, rate-limit take, ledger reserve and settle); 64 calls in flight
 * show what a connection sustains when calls overlap (ioredis pipelines them). Nothing here
 * asserts timing.
 *
 * Run: TRACEWARDEN_BENCH_REDIS_URL=redis://127.0.0.1:6379 pnpm bench redis (falls back to
 * TRACEWARDEN_TEST_REDIS_URL; without either it says how to run and measures nothing).
 * Env: SAMPLES (default 9), BATCH (sequential calls per sample, default 500).
 */
import { randomBytes } from 'node:crypto';
import { createBudget, createMemoryCostLedger, guard } from '@tracewarden/core';
import {
  createRedisCircuitBreakerStore,
  createRedisCostLedger,
  createRedisRateLimitStore,
} from '@tracewarden/redis';
import { Redis } from 'ioredis';
import { measure, report } from './lib.js';

const url = process.env.TRACEWARDEN_BENCH_REDIS_URL ?? process.env.TRACEWARDEN_TEST_REDIS_URL;
if (url === undefined) {
  console.log(
    'skipped: no Redis. Start one (redis-server --port 6379 --save "") and run TRACEWARDEN_BENCH_REDIS_URL=redis://127.0.0.1:6379 pnpm bench redis',
  );
  process.exit(0);
}
const samples = Math.max(3, Number(process.env.SAMPLES ?? 9));
const batch = Math.max(50, Number(process.env.BATCH ?? 500));

const client = new Redis(url);
const prefix = `tw-bench:${randomBytes(4).toString('hex')}:`;
const noop = async (_q: string) => 'ok';
const limits = { callsPerSecond: 1e12, burst: 1e12 };

const inMemory = guard(noop, {
  name: 'memory',
  circuitBreaker: { failureThreshold: 5 },
  rateLimit: { ...limits, sharedKey: '' },
  budget: createBudget({
    maxCostPerSession: 1e9,
    costPerCall: 0.000001,
    costLedger: createMemoryCostLedger(),
  }),
});
const inRedis = guard(noop, {
  name: 'redis',
  circuitBreaker: {
    failureThreshold: 5,
    store: createRedisCircuitBreakerStore({ client, prefix }),
  },
  rateLimit: { ...limits, store: createRedisRateLimitStore({ client, prefix }) },
  budget: createBudget({
    maxCostPerSession: 1e9,
    costPerCall: 0.000001,
    costLedger: createRedisCostLedger({ client, prefix }),
  }),
});
const ledgerOnly = guard(noop, {
  name: 'ledger',
  budget: createBudget({
    maxCostPerSession: 1e9,
    costPerCall: 0.000001,
    costLedger: createRedisCostLedger({ client, prefix }),
  }),
});
const ping = () => client.ping();

const options = { batch, samples, warmup: batch };
const sequential = [
  await measure('one Redis round trip (PING)', ping, options),
  await measure('guard, in-memory stores', () => inMemory('q'), options),
  await measure('guard, budget ledger in Redis', () => ledgerOnly('q'), options),
  await measure('guard, breaker + rate limit + ledger in Redis', () => inRedis('q'), options),
];
report('sequential calls (latency per call)', sequential);

const inFlight = 64;
const concurrently = (fn: () => Promise<unknown>) => () =>
  Promise.all(Array.from({ length: inFlight }, fn));
const overlapped = [
  await measure('64 PINGs in flight', concurrently(ping), { ...options, batch: batch / 10 }),
  await measure(
    '64 guarded calls in flight, Redis stores',
    concurrently(() => inRedis('q')),
    { ...options, batch: batch / 10 },
  ),
];
report(`${inFlight} calls in flight (per batch of ${inFlight})`, overlapped);
const perCall = (overlapped[1]?.nsPerOp ?? 0) / inFlight / 1000;
console.log(`\nthroughput, Redis stores, ${inFlight} in flight: ${perCall.toFixed(1)} µs per call`);

let cursor = '0';
do {
  const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
  cursor = next;
  if (keys.length > 0) await client.del(...keys);
} while (cursor !== '0');
client.disconnect();
