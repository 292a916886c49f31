import { ConfigurationError } from '@tracewarden/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  describeRedis,
  type TestClient,
  uniquePrefix,
} from '../__fixtures__/test-redis.js';
import type { RedisCommandFunction } from '../client/index.js';
import { toCommandFunction } from '../client/redis-client.js';
import { RedisStoreError } from '../errors/index.js';
import { createRedisCircuitBreakerStore } from './create-redis-circuit-breaker-store.js';
import { createRedisCostLedger } from './create-redis-cost-ledger.js';
import { createRedisRateLimitStore } from './create-redis-rate-limit-store.js';

const limits = { failureThreshold: 1, recoveryTimeoutMs: 1000, successThreshold: 1 };
const perSecond = [{ capacity: 2, refillPerMs: 2 / 1000 }];

describe('options are checked where they are given', () => {
  const client: RedisCommandFunction = async () => null;
  it.each([
    ['a missing client', () => createRedisRateLimitStore({} as never), 'client'],
    ['a client that is not one', () => createRedisCostLedger({ client: {} as never }), 'client'],
    [
      'an unknown option (a typo)',
      () => createRedisCircuitBreakerStore({ client, prefx: 'app:' } as never),
      'prefx',
    ],
    ['an empty prefix', () => createRedisRateLimitStore({ client, prefix: '' }), 'prefix'],
    [
      'a reservation deadline of 0',
      () => createRedisCostLedger({ client, reservationTtlSeconds: 0 }),
      'reservationTtlSeconds',
    ],
    [
      'a session TTL shorter than the reservation deadline',
      () => createRedisCostLedger({ client, reservationTtlSeconds: 60, sessionTtlSeconds: 30 }),
      'sessionTtlSeconds',
    ],
    [
      'a probe lease that is not a number',
      () => createRedisCircuitBreakerStore({ client, probeTimeoutSeconds: '60' as never }),
      'probeTimeoutSeconds',
    ],
  ])('%s is a ConfigurationError naming the option', (_, make, option) => {
    let error: unknown;
    try {
      make();
    } catch (e) {
      error = e;
    }
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as ConfigurationError).code).toBe('INVALID_OPTIONS');
    expect((error as Error).message).toContain(option);
  });
});

describe('replies that are not the script’s', () => {
  it('a command function that does not reach Redis gives REDIS_REPLY_INVALID', async () => {
    const store = createRedisCircuitBreakerStore({ client: async () => 'OK' });
    await expect(store.acquire('search', limits, 0)).rejects.toMatchObject({
      code: 'REDIS_REPLY_INVALID',
      key: 'tracewarden:breaker:{search}',
    });
    const ledger = createRedisCostLedger({ client: async () => [1, 2] });
    await expect(ledger.spent('s')).rejects.toSatisfy(RedisStoreError.isInstance);
  });
});

describeRedis('Redis stores against a real server', () => {
  let connection: TestClient;
  let other: TestClient;
  beforeAll(async () => {
    connection = await connectClient('ioredis');
    other = await connectClient('node-redis');
  });
  afterAll(async () => {
    await connection.close();
    await other.close();
  });

  it('loads its scripts again after SCRIPT FLUSH (a restarted or failed-over server)', async () => {
    const sent: string[] = [];
    const nodeRedis = other.client as { sendCommand(args: string[]): Promise<unknown> };
    const send: RedisCommandFunction = (args) => {
      sent.push(args[0] as string);
      return nodeRedis.sendCommand(args);
    };
    const store = createRedisRateLimitStore({ client: send, prefix: uniquePrefix() });
    await store.take('tool:search', perSecond, 0);
    await nodeRedis.sendCommand(['SCRIPT', 'FLUSH']);
    sent.length = 0;
    expect(await store.take('tool:search', perSecond, 0)).toBe(0);
    expect(sent).toEqual(['EVALSHA', 'EVAL']);
    sent.length = 0;
    expect(await store.take('tool:search', perSecond, 0)).toBe(500);
    expect(sent).toEqual(['EVALSHA']);
  });

  it('a half-open probe that never reports (its process died) frees its slot after its lease', async () => {
    const prefix = uniquePrefix();
    const store = createRedisCircuitBreakerStore({
      client: connection.client,
      prefix,
      probeTimeoutSeconds: 60,
    });
    const start = 1_764_000_000_000;
    const opened = await store.acquire('search', limits, start);
    await store.record('search', limits, opened, 'failure', start);
    // recovered: one probe goes out, and its process dies before it reports
    const lost = await store.acquire('search', limits, start + 1_000);
    expect(lost).toMatchObject({ allowed: true, probe: true, state: 'half_open' });
    // the slot is held for the lease, then free: the circuit does not stay refused for good
    expect(await store.acquire('search', limits, start + 60_000)).toMatchObject({ allowed: false });
    const next = await store.acquire('search', limits, start + 61_000);
    expect(next).toMatchObject({ allowed: true, probe: true, state: 'half_open' });
    // the lost probe's late outcome is not counted; the new probe's is
    expect(await store.record('search', limits, lost, 'success', start + 61_500)).toBeUndefined();
    expect(await store.acquire('search', limits, start + 61_600)).toMatchObject({ allowed: false });
    expect(await store.record('search', limits, next, 'success', start + 62_000)).toMatchObject({
      from: 'half_open',
      to: 'closed',
      reason: 'probes_succeeded',
    });
    // a probe admitted by a version that kept no lease gets one from the first look at it
    const key = `${prefix}breaker:{search}`;
    const probing = await store.acquire('search', limits, start + 100_000);
    await store.record('search', limits, probing, 'failure', start + 100_000);
    await store.acquire('search', limits, start + 102_000);
    await toCommandFunction(connection.client)(['HDEL', key, 'pd']);
    expect(await store.acquire('search', limits, start + 102_001)).toMatchObject({
      allowed: false,
    });
    expect(await store.acquire('search', limits, start + 162_000)).toMatchObject({
      allowed: false,
    });
    expect(await store.acquire('search', limits, start + 162_001)).toMatchObject({ allowed: true });
    // the default lease is ten minutes
    const defaults = createRedisCircuitBreakerStore({ client: connection.client, prefix });
    const failed = await defaults.acquire('other', limits, start);
    await defaults.record('other', limits, failed, 'failure', start);
    await defaults.acquire('other', limits, start + 1_000);
    expect(await defaults.acquire('other', limits, start + 600_999)).toMatchObject({
      allowed: false,
    });
    expect(await defaults.acquire('other', limits, start + 601_000)).toMatchObject({
      allowed: true,
    });
  });

  it('with sessionTtlSeconds an idle session’s account expires; without it, it stays', async () => {
    const prefix = uniquePrefix();
    const send = toCommandFunction(connection.client);
    const session = (id: string) => `${prefix}budget:{${id}}`;
    const ledger = createRedisCostLedger({
      client: connection.client,
      prefix,
      reservationTtlSeconds: 1,
      sessionTtlSeconds: 2,
    });
    const held = await ledger.reserve({ sessionId: 'chat-1', amountMicroUsd: 5 });
    if (!held.ok) throw new Error('refused');
    for (const key of [
      session('chat-1'),
      `${session('chat-1')}:held`,
      `${session('chat-1')}:deadlines`,
    ]) {
      const ttl = Number(await send(['PTTL', key]));
      expect(ttl).toBeGreaterThan(1_000);
      expect(ttl).toBeLessThanOrEqual(2_000);
    }
    await ledger.settle(held.reservation, 7);
    expect(Number(await send(['PTTL', session('chat-1')]))).toBeGreaterThan(1_000);
    // idle past it: the account is gone, and the session starts from zero
    await send(['PEXPIRE', session('chat-1'), '1']);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await ledger.spent('chat-1')).toEqual({
      spentMicroUsd: 0,
      reservedMicroUsd: 0,
      calls: 0,
    });
    const kept = createRedisCostLedger({ client: connection.client, prefix });
    const other = await kept.reserve({ sessionId: 'chat-2', amountMicroUsd: 5 });
    if (!other.ok) throw new Error('refused');
    expect(Number(await send(['PTTL', session('chat-2')]))).toBe(-1);
  });

  it('a reservation never settled (its process died) is spent at the amount held after its deadline', async () => {
    let now = 1_764_000_000_000;
    const prefix = uniquePrefix();
    const ledger = createRedisCostLedger({
      client: connection.client,
      prefix,
      reservationTtlSeconds: 60,
      clock: () => now,
    });
    const held = await ledger.reserve({ sessionId: 's', amountMicroUsd: 300, maxMicroUsd: 1000 });
    const late = await ledger.reserve({ sessionId: 's', amountMicroUsd: 200 });
    const refunded = await ledger.reserve({ sessionId: 's', amountMicroUsd: 100 });
    expect(await ledger.spent('s')).toEqual({ spentMicroUsd: 0, reservedMicroUsd: 600, calls: 3 });
    now += 60_000;
    expect(await ledger.spent('s')).toEqual({ spentMicroUsd: 600, reservedMicroUsd: 0, calls: 3 });
    // a call that outlived the deadline corrects the spend once: 200 held, 50 spent
    expect(held.ok && late.ok && refunded.ok).toBe(true);
    if (!late.ok || !refunded.ok) return;
    expect(await ledger.settle(late.reservation, 50)).toEqual({
      spentMicroUsd: 450,
      reservedMicroUsd: 0,
      calls: 3,
    });
    expect(await ledger.settle(late.reservation, 50)).toMatchObject({ spentMicroUsd: 450 });
    // one that did not run gives its amount and its call back
    await ledger.release(refunded.reservation);
    expect(await ledger.spent('s')).toEqual({ spentMicroUsd: 350, reservedMicroUsd: 0, calls: 2 });
    // another process's ledger (same prefix) sees the same account
    const elsewhere = createRedisCostLedger({ client: other.client, prefix, clock: () => now });
    expect(await elsewhere.spent('s')).toEqual({
      spentMicroUsd: 350,
      reservedMicroUsd: 0,
      calls: 2,
    });
  });

  it('reset() deletes its own prefix’s keys only, even with glob characters in the prefix', async () => {
    const prefix = `${uniquePrefix()}[app*]?:`;
    const neighbour = `${prefix.slice(0, -1)}x:`;
    const mine = createRedisRateLimitStore({ client: connection.client, prefix });
    const theirs = createRedisRateLimitStore({ client: connection.client, prefix: neighbour });
    for (const store of [mine, theirs]) {
      await store.take('a', perSecond, 0);
      await store.take('a', perSecond, 0);
    }
    await mine.reset();
    expect(await mine.take('a', perSecond, 0)).toBe(0);
    expect(await theirs.take('a', perSecond, 0)).toBe(500);
  });

  it('after a reset, the outcome of a call admitted before it is not counted', async () => {
    const store = createRedisCircuitBreakerStore({
      client: connection.client,
      prefix: uniquePrefix(),
    });
    const before = await store.acquire('search', limits, 0);
    await store.reset('search');
    expect(await store.record('search', limits, before, 'failure', 1)).toBeUndefined();
    expect(await store.state('search', limits, 1)).toBe('closed');
    const after = await store.acquire('search', limits, 2);
    expect(await store.record('search', limits, after, 'failure', 3)).toEqual({
      from: 'closed',
      to: 'open',
      at: 3,
      reason: 'failure_threshold',
    });
    expect(await store.state('search', limits, 4)).toBe('open');
    expect(await store.state('search', limits, 1003)).toBe('half_open');
  });
});
