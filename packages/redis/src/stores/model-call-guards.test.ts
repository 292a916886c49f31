import {
  BudgetExceededError,
  createBudget,
  createTracer,
  GuardTimeoutError,
  RateLimitedError,
} from '@tracewarden/core';
import { wrapOpenAI } from '@tracewarden/openai';
import { type ScriptedServer, startScriptedServer } from '@tracewarden/testing';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  type ClientKind,
  connectClient,
  describeRedis,
  type TestClient,
  uniquePrefix,
} from '../__fixtures__/test-redis.js';
import { toCommandFunction } from '../client/redis-client.js';
import { createRedisCostLedger } from './create-redis-cost-ledger.js';
import { createRedisRateLimitStore } from './create-redis-rate-limit-store.js';

// Model calls through wrapOpenAI, two "processes" (one Redis connection each, one wrapped real
// OpenAI client each) against the scripted server: the guards decide in Redis before any
// request is sent.

describeRedis('wrapOpenAI guards with Redis stores', () => {
  const kinds: ClientKind[] = ['ioredis', 'node-redis'];
  let processes: TestClient[];
  let server: ScriptedServer;
  beforeAll(async () => {
    processes = await Promise.all(kinds.map(connectClient));
  });
  afterAll(() => Promise.all(processes.map((p) => p.close())));
  afterEach(() => server?.close());

  function clients(guardsOf: (redis: TestClient) => Parameters<typeof wrapOpenAI>[1]) {
    return processes.map((redis) =>
      wrapOpenAI(new OpenAI({ baseURL: server.url, apiKey: 'sk-test', maxRetries: 2 }), {
        tracer: createTracer(),
        pricing: { overrides: { m: [1, 1] } },
        ...guardsOf(redis),
      }),
    );
  }

  it('a session budget shared by both clients: refused calls send no request and are not retried', async () => {
    server = await startScriptedServer({ fallback: 'echo' });
    const prefix = uniquePrefix();
    const openai = clients(({ client }) => ({
      guards: {
        sessionId: 'conversation-9',
        budget: createBudget({
          maxCallsPerSession: 4,
          costLedger: createRedisCostLedger({ client, prefix }),
        }),
      },
    }));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        openai[i % 2]!.chat.completions.create({
          model: 'm',
          messages: [{ role: 'user', content: `question ${i}` }],
          stream: i % 3 === 0,
        }),
      ),
    );
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(4);
    expect(refused).toHaveLength(6);
    for (const o of refused)
      expect((o as PromiseRejectedResult).reason).toBeInstanceOf(BudgetExceededError);
    expect(server.requests).toHaveLength(4);
    const ledger = createRedisCostLedger({ client: processes[0]!.client, prefix });
    await new Promise((resolve) => setTimeout(resolve, 50)); // settlements land after the calls
    expect(await ledger.spent('conversation-9')).toMatchObject({ calls: 4, reservedMicroUsd: 0 });
  });

  it('a rate limit shared by both clients', async () => {
    server = await startScriptedServer({ fallback: 'echo' });
    const prefix = uniquePrefix();
    const openai = clients(({ client }) => ({
      guards: {
        rateLimit: {
          callsPerMinute: 60,
          burst: 3,
          store: createRedisRateLimitStore({ client, prefix }),
        },
      },
    }));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        openai[i % 2]!.chat.completions.create({
          model: 'm',
          messages: [{ role: 'user', content: `q${i}` }],
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    for (const o of outcomes)
      if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(RateLimitedError);
    expect(server.requests).toHaveLength(3);
  });

  it('a Redis that stalls holds no call past its timeout or its caller, and sends nothing', async () => {
    server = await startScriptedServer({ fallback: 'echo' });
    const prefix = uniquePrefix();
    const [redis] = processes as [TestClient];
    const send = toCommandFunction(redis.client);
    // every command answered 1.5 s late (a failover, a reconnecting client's offline queue);
    // the call ends at its 100 ms timeout, before any answer (timers fire in the order they
    // expire, however loaded the machine: no wall-clock bound needed)
    let answered = 0;
    const stalled = (args: string[]) =>
      new Promise((resolve) => setTimeout(resolve, 1_500)).then(() => {
        answered++;
        return send(args);
      });
    const costLedger = createRedisCostLedger({ client: stalled, prefix });
    const openai = wrapOpenAI(
      new OpenAI({ baseURL: server.url, apiKey: 'sk-test', maxRetries: 2 }),
      {
        tracer: createTracer(),
        pricing: { overrides: { m: [1, 1] } },
        timeoutSeconds: 0.1,
        guards: { budget: createBudget({ maxCallsPerSession: 5, costLedger }) },
      },
    );
    await expect(
      openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'q' }] }),
    ).rejects.toBeInstanceOf(GuardTimeoutError);
    expect(answered).toBe(0);
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    await expect(
      openai.chat.completions.create(
        { model: 'm', messages: [{ role: 'user', content: 'q' }] },
        { signal: caller.signal },
      ),
    ).rejects.toThrow();
    expect(server.requests).toHaveLength(0);
    // once Redis answers, what it granted the two calls is given back: nothing counted
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await costLedger.spent('default')).toEqual({
      spentMicroUsd: 0,
      reservedMicroUsd: 0,
      calls: 0,
    });
  });
});
