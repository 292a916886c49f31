import {
  BudgetExceededError,
  CircuitOpenError,
  createBudget,
  guard,
  RateLimitedError,
} from '@tracewarden/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

// Two "processes": two connections (one ioredis, one node-redis), each with its own stores and
// guards, sharing one Redis and one prefix, as two workers of one agent would.

async function settleAll<T>(calls: (() => Promise<T>)[]) {
  const outcomes = await Promise.allSettled(calls.map((call) => call()));
  return {
    ran: outcomes.filter((o) => o.status === 'fulfilled').length,
    refused: outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason as unknown),
  };
}

describeRedis('guards in two processes share limits through Redis', () => {
  const kinds: ClientKind[] = ['ioredis', 'node-redis'];
  let processes: TestClient[];
  beforeAll(async () => {
    processes = await Promise.all(kinds.map(connectClient));
  });
  afterAll(() => Promise.all(processes.map((p) => p.close())));

  it('a session cost budget holds exactly under 1,000 concurrent calls from both', async () => {
    const prefix = uniquePrefix();
    let executed = 0;
    const tools = processes.map(({ client }) => {
      const budget = createBudget({
        maxCostPerSession: 1,
        costPerCall: 0.01,
        costLedger: createRedisCostLedger({ client, prefix }),
      });
      return guard(
        async () => {
          executed++;
          return 'sent';
        },
        { name: 'send_email', sessionId: 'agent-run-7', budget },
      );
    });
    const calls = Array.from({ length: 1000 }, (_, i) => () => tools[i % 2]!());
    const { ran, refused } = await settleAll(calls);
    expect(ran).toBe(100);
    expect(executed).toBe(100);
    expect(refused).toHaveLength(900);
    for (const reason of refused) expect(BudgetExceededError.isInstance(reason)).toBe(true);
    const ledger = createRedisCostLedger({ client: processes[0]!.client, prefix });
    expect(await ledger.spent('agent-run-7')).toEqual({
      spentMicroUsd: 1_000_000,
      reservedMicroUsd: 0,
      calls: 100,
    });
  });

  it('a session call limit holds exactly, and another session has its own', async () => {
    const prefix = uniquePrefix();
    const tools = processes.flatMap(({ client }) => {
      const costLedger = createRedisCostLedger({ client, prefix });
      return ['a', 'b'].map((sessionId) =>
        guard(async () => 'ok', {
          name: 'lookup',
          sessionId,
          budget: createBudget({ maxCallsPerSession: 40, costLedger }),
        }),
      );
    });
    const { ran } = await settleAll(Array.from({ length: 400 }, (_, i) => () => tools[i % 4]!()));
    expect(ran).toBe(80);
  });

  it('a rate limit is one bucket for both processes', async () => {
    const prefix = uniquePrefix();
    let now = 1_764_000_000_000;
    const tools = processes.map(({ client }) =>
      guard(async () => 'ok', {
        name: 'search',
        clock: () => now,
        rateLimit: {
          callsPerMinute: 60,
          burst: 25,
          store: createRedisRateLimitStore({ client, prefix }),
        },
      }),
    );
    const first = await settleAll(Array.from({ length: 200 }, (_, i) => () => tools[i % 2]!()));
    expect(first.ran).toBe(25);
    for (const reason of first.refused) expect(RateLimitedError.isInstance(reason)).toBe(true);
    now += 3000; // three tokens at one a second
    const second = await settleAll(Array.from({ length: 50 }, (_, i) => () => tools[i % 2]!()));
    expect(second.ran).toBe(3);
  });

  it('failures in one process open the circuit for the other; one probe runs fleet-wide', async () => {
    const prefix = uniquePrefix();
    let now = 1_764_000_000_000;
    let healthy = false;
    let calls = 0;
    const tools = processes.map(({ client }) =>
      guard(
        async () => {
          calls++;
          await new Promise((resolve) => setTimeout(resolve, 20));
          if (!healthy) throw new Error('upstream down');
          return 'ok';
        },
        {
          name: 'weather',
          clock: () => now,
          circuitBreaker: {
            failureThreshold: 3,
            recoveryTimeout: 30,
            successThreshold: 1,
            store: createRedisCircuitBreakerStore({ client, prefix }),
          },
        },
      ),
    );
    for (let i = 0; i < 3; i++) await expect(tools[0]!()).rejects.toThrow('upstream down');
    await expect(tools[1]!()).rejects.toSatisfy(CircuitOpenError.isInstance);
    expect(calls).toBe(3);
    now += 30_000;
    healthy = true;
    // half-open: of 20 concurrent calls from both processes, exactly one is let through
    const probing = await settleAll(Array.from({ length: 20 }, (_, i) => () => tools[i % 2]!()));
    expect(probing.ran).toBe(1);
    expect(calls).toBe(4);
    for (const reason of probing.refused) expect(CircuitOpenError.isInstance(reason)).toBe(true);
    // the probe succeeded: closed again, for both
    await expect(tools[1]!()).resolves.toBe('ok');
    await expect(tools[0]!()).resolves.toBe('ok');
  });
});

describe('RedisStoreError', () => {
  it('a Redis that fails refuses the call (fail closed): the tool does not run', async () => {
    const down = async (): Promise<unknown> => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), {
        code: 'ECONNREFUSED',
      });
    };
    let ran = false;
    const tool = guard(
      async () => {
        ran = true;
        return 'ok';
      },
      {
        name: 'search',
        rateLimit: { callsPerSecond: 5, store: createRedisRateLimitStore({ client: down }) },
      },
    );
    const error = await tool().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(ran).toBe(false);
    expect(error).toMatchObject({
      name: 'RedisStoreError',
      code: 'REDIS_COMMAND_FAILED',
      operation: 'rate limit take',
      key: 'tracewarden:rate:{tool:search}',
    });
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });
});
