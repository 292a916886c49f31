import {
  type CircuitAdmission,
  type CircuitBreakerLimits,
  type CircuitBreakerStore,
  type CostLedger,
  createMemoryCircuitBreakerStore,
  createMemoryCostLedger,
  createMemoryRateLimitStore,
  type LedgerReservation,
  type LedgerReserveResult,
  type TokenBucketLimit,
} from '@tracewarden/core';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type ClientKind,
  connectClient,
  describeRedis,
  type TestClient,
  uniquePrefix,
} from '../__fixtures__/test-redis.js';
import { createRedisCircuitBreakerStore } from './create-redis-circuit-breaker-store.js';
import { createRedisCostLedger } from './create-redis-cost-ledger.js';
import { createRedisRateLimitStore } from './create-redis-rate-limit-store.js';

// The Redis stores port the in-memory stores' arithmetic and state machines to Lua. These tests
// run the same random operations on both and require the same answer to every one.

const limitSets: readonly (readonly TokenBucketLimit[])[] = [
  [{ capacity: 1, refillPerMs: 2 / 1000 }],
  [{ capacity: 3, refillPerMs: 1 / 3000 }],
  [
    { capacity: 5, refillPerMs: 10 / 1000 },
    { capacity: 5, refillPerMs: 30 / 60_000 },
  ],
  [{ capacity: 2, refillPerMs: 1 / 3_600_000 }],
];

const keys = ['tool:search', 'shared:email', 'tool:{braces}', 'tool:*glob?'];

const rateOp = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('take' as const),
      key: fc.integer({ min: 0, max: keys.length - 1 }),
      limits: fc.integer({ min: 0, max: limitSets.length - 1 }),
      // mostly forward, sometimes a clock that steps back
      advance: fc.oneof(
        fc.integer({ min: 0, max: 1500 }),
        fc.integer({ min: -50, max: 0 }),
        fc.double({ min: 0, max: 400_000, noNaN: true }),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('reset' as const),
      key: fc.option(fc.integer({ min: 0, max: keys.length - 1 }), { nil: undefined }),
    }),
  },
);

const breakerOp = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('acquire' as const),
      key: fc.integer({ min: 0, max: 1 }),
      advance: fc.integer({ min: 0, max: 700 }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('record' as const),
      admission: fc.nat(),
      outcome: fc.constantFrom('success' as const, 'failure' as const, 'ignore' as const),
      advance: fc.integer({ min: 0, max: 700 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('state' as const),
      key: fc.integer({ min: 0, max: 1 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('reset' as const),
      key: fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined }),
    }),
  },
);

const ledgerOp = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('reserve' as const),
      session: fc.integer({ min: 0, max: 1 }),
      amount: fc.integer({ min: 0, max: 400 }),
      maxMicroUsd: fc.option(fc.integer({ min: 0, max: 2000 }), { nil: undefined }),
      maxCalls: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
      force: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom('settle' as const, 'release' as const),
      reservation: fc.nat(),
      actual: fc.integer({ min: 0, max: 600 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('spent' as const),
      session: fc.integer({ min: 0, max: 1 }),
    }),
  },
);

const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value));

function admissionView(admission: CircuitAdmission) {
  return {
    allowed: admission.allowed,
    probe: admission.probe,
    state: admission.state,
    transition: admission.transition,
  };
}

for (const kind of ['ioredis', 'node-redis'] as const satisfies readonly ClientKind[]) {
  describeRedis(`Redis stores answer as the in-memory stores do (${kind})`, () => {
    let connection: TestClient;
    beforeAll(async () => {
      connection = await connectClient(kind);
    });
    afterAll(() => connection.close());

    it('rate limit: the same waits, refills and resets over random takes', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(rateOp, { maxLength: 80, size: 'max' }), async (ops) => {
          const memory = createMemoryRateLimitStore();
          const redis = createRedisRateLimitStore({
            client: connection.client,
            prefix: uniquePrefix(),
          });
          let now = 1_764_000_000_000;
          for (const op of ops) {
            if (op.kind === 'reset') {
              const key = op.key === undefined ? undefined : keys[op.key];
              memory.reset(key);
              await redis.reset(key);
              continue;
            }
            now += op.advance;
            const key = keys[op.key] as string;
            const limits = limitSets[op.limits] as readonly TokenBucketLimit[];
            expect(await redis.take(key, limits, now)).toBe(memory.take(key, limits, now));
          }
        }),
        { numRuns: 100 },
      );
    });

    it('circuit breaker: the same admissions, transitions and states over random calls', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            failureThreshold: fc.integer({ min: 1, max: 3 }),
            successThreshold: fc.integer({ min: 1, max: 3 }),
            recoveryTimeoutMs: fc.constantFrom(0, 1000),
          }),
          fc.array(breakerOp, { maxLength: 80, size: 'max' }),
          async (limits: CircuitBreakerLimits, ops) => {
            const memory: CircuitBreakerStore = createMemoryCircuitBreakerStore();
            const redis = createRedisCircuitBreakerStore({
              client: connection.client,
              prefix: uniquePrefix(),
            });
            const admitted: { key: string; memory: CircuitAdmission; redis: CircuitAdmission }[] =
              [];
            let now = 1_764_000_000_000;
            for (const op of ops) {
              if (op.kind === 'acquire') {
                now += op.advance;
                const key = keys[op.key] as string;
                const m = memory.acquire(key, limits, now) as CircuitAdmission;
                const r = await redis.acquire(key, limits, now);
                expect(admissionView(r)).toEqual(plain(admissionView(m)));
                if (r.allowed) admitted.push({ key, memory: m, redis: r });
              } else if (op.kind === 'record') {
                if (admitted.length === 0) continue;
                now += op.advance;
                // an admission is reported once, as the guard does; which one is random
                const [call] = admitted.splice(op.admission % admitted.length, 1);
                const m = memory.record(call!.key, limits, call!.memory, op.outcome, now);
                const r = await redis.record(call!.key, limits, call!.redis, op.outcome, now);
                expect(r).toEqual(m);
              } else if (op.kind === 'state') {
                const key = keys[op.key] as string;
                expect(await redis.state(key, limits, now)).toBe(memory.state(key, limits, now));
              } else {
                const key = op.key === undefined ? undefined : keys[op.key];
                memory.reset(key);
                await redis.reset(key);
              }
            }
          },
        ),
        { numRuns: 100 },
      );
    });

    it('cost ledger: the same reservations, refusals and spend over random calls', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(ledgerOp, { maxLength: 80, size: 'max' }), async (ops) => {
          const memory: CostLedger = createMemoryCostLedger();
          const redis = createRedisCostLedger({
            client: connection.client,
            prefix: uniquePrefix(),
          });
          const sessions = ['session-a', 'session-{b}'];
          const open: { memory: LedgerReservation; redis: LedgerReservation }[] = [];
          const done: { memory: LedgerReservation; redis: LedgerReservation }[] = [];
          for (const op of ops) {
            if (op.kind === 'reserve') {
              const request = {
                sessionId: sessions[op.session] as string,
                amountMicroUsd: op.amount,
                maxMicroUsd: op.maxMicroUsd,
                maxCalls: op.maxCalls,
                force: op.force,
              };
              const m = memory.reserve(request) as LedgerReserveResult;
              const mView = plain({ ok: m.ok, exceeded: m.exceeded, snapshot: m.snapshot });
              const r = await redis.reserve(request);
              expect({ ok: r.ok, exceeded: r.exceeded, snapshot: r.snapshot }).toEqual(mView);
              if (m.ok && r.ok) {
                expect(r.reservation.sessionId).toBe(request.sessionId);
                expect(r.reservation.amountMicroUsd).toBe(op.amount);
                open.push({ memory: m.reservation, redis: r.reservation });
              }
            } else if (op.kind === 'spent') {
              const sessionId = sessions[op.session] as string;
              expect(await redis.spent(sessionId)).toEqual(plain(memory.spent(sessionId)));
            } else {
              // mostly an open reservation; sometimes one already settled or released (no effect)
              const pool = open.length > 0 && op.reservation % 4 !== 0 ? open : done;
              if (pool.length === 0) continue;
              const index = op.reservation % pool.length;
              const pair = pool[index]!;
              if (pool === open) {
                open.splice(index, 1);
                done.push(pair);
              }
              if (op.kind === 'settle') {
                const m = plain(memory.settle(pair.memory, op.actual));
                expect(await redis.settle(pair.redis, op.actual)).toEqual(m);
              } else {
                memory.release(pair.memory);
                await redis.release(pair.redis);
                const sessionId = pair.memory.sessionId;
                expect(await redis.spent(sessionId)).toEqual(plain(memory.spent(sessionId)));
              }
            }
          }
        }),
        { numRuns: 100 },
      );
    });
  });
}
