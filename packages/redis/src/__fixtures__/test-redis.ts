import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { describe, it } from 'vitest';
import type { RedisClient } from '../client/index.js';

/** The Redis the tests use: `TRACEWARDEN_TEST_REDIS_URL` (CI's `.ci/run` starts one). */
export const testRedisUrl: string | undefined =
  process.env.TRACEWARDEN_TEST_REDIS_URL?.trim() || undefined;

const inCi = process.env.CI === 'true' || process.env.CI === '1';

const howToRun =
  'set TRACEWARDEN_TEST_REDIS_URL=redis://host:port (any Redis >= 6.2 the tests may write keys to; each test uses its own key prefix), or run bash .ci/run, which starts a throwaway redis-server';

/**
 * A suite that needs Redis. Without `TRACEWARDEN_TEST_REDIS_URL` it is one skipped test saying
 * how to run it, except in CI (`CI=true`), where it is one failing test: CI never skips Redis.
 */
export function describeRedis(name: string, body: () => void): void {
  if (testRedisUrl !== undefined) {
    describe(name, body);
  } else if (inCi) {
    describe(name, () => {
      it('runs against Redis in CI', () => {
        throw new Error(`CI=true but no Redis for the tests: ${howToRun}`);
      });
    });
  } else {
    describe(name, () => {
      it.skip(`skipped: no Redis; to run it, ${howToRun}`, () => {});
    });
  }
}

/** The two clients users pass, by name. */
export type ClientKind = 'ioredis' | 'node-redis';

/** A connected client of each kind, closed by `close()`. */
export interface TestClient {
  kind: ClientKind;
  client: RedisClient;
  close(): Promise<void>;
}

/**
 * Connects a new client of `kind` to the test Redis (a new connection: two clients stand for
 * two processes).
 */
export async function connectClient(kind: ClientKind): Promise<TestClient> {
  const url = testRedisUrl as string;
  if (kind === 'ioredis') {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await client.connect();
    return { kind, client, close: async () => void (await client.quit()) };
  }
  const client = createClient({ url });
  await client.connect();
  return { kind, client, close: async () => void (await client.quit()) };
}

/** A key prefix no other test uses. */
export function uniquePrefix(): string {
  return `tw-test:${randomBytes(6).toString('hex')}:`;
}
