import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ServerProcess, spawnServer } from '../__fixtures__/spawn-server.js';
import { blocks, startTestServer, type TestServer } from '../__fixtures__/test-server.js';
import {
  createTestDatabase,
  describePostgres,
  describeStores,
  type TestDatabase,
  testDatabaseUrl,
} from '../__fixtures__/test-stores.js';
import type { StartServerOptions } from './index.js';

const limits = { maxBatchBlocks: 20_000, maxTraceBlocks: 100_000, maxBodyBytes: 64 * 1024 * 1024 };

/** A batch of `1 + 2 * pairs` blocks: a message, then a call and a result per pair. */
function largeBatch(pairs: number): unknown[] {
  const batch: unknown[] = [blocks.message('tb_m')];
  for (let index = 0; index < pairs; index++) {
    batch.push(blocks.call(`tb_c${index}`, 'tb_m', `call_${index}`));
    batch.push(blocks.result(`tb_r${index}`, `tb_c${index}`, `call_${index}`, 'ok', 0));
  }
  return batch;
}

/** POSTs a batch; resolves once the whole body is sent, with the answer (or the socket's end) to come. */
function postBatch(
  server: ServerProcess,
  key: string,
  traceId: string,
  batch: unknown[],
): { sent: Promise<void>; answered: Promise<number | string> } {
  const body = JSON.stringify({ blocks: batch });
  const { hostname, port } = new URL(server.url);
  let sent: () => void = () => {};
  const sentPromise = new Promise<void>((resolve) => (sent = resolve));
  const answered = new Promise<number | string>((resolve) => {
    const request = httpRequest(
      {
        host: hostname,
        port,
        method: 'POST',
        path: `/v1/organizations/default/traces/${traceId}/blocks`,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', (error) => resolve(error.message));
      },
    );
    request.on('error', (error) => resolve(error.message));
    request.end(body, () => sent());
  });
  return { sent: sentPromise, answered };
}

async function post(url: string, key: string, traceId: string, batch: unknown[]) {
  const response = await fetch(`${url}/v1/organizations/default/traces/${traceId}/blocks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ blocks: batch }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { inserted?: number; error?: { code: string } },
  };
}

async function storedCount(url: string, key: string, traceId: string): Promise<number> {
  const response = await fetch(
    `${url}/v1/organizations/default/traces/${traceId}/blocks?limit=1000`,
    { headers: { authorization: `Bearer ${key}` } },
  );
  if (response.status === 404) return 0;
  let count = 0;
  let page = (await response.json()) as { blocks: unknown[]; next_cursor: string | null };
  count += page.blocks.length;
  while (page.next_cursor !== null) {
    page = (await (
      await fetch(
        `${url}/v1/organizations/default/traces/${traceId}/blocks?limit=1000&cursor=${page.next_cursor}`,
        { headers: { authorization: `Bearer ${key}` } },
      )
    ).json()) as typeof page;
    count += page.blocks.length;
  }
  return count;
}

/** Resolves once `open()` reports the server's write transaction open (polled), or rejects. */
async function untilTransactionOpen(
  open: () => Promise<boolean> | boolean,
  answered: Promise<unknown>,
): Promise<void> {
  let done = false;
  void answered.then(() => {
    done = true;
  });
  for (;;) {
    if (await open()) return;
    if (done) throw new Error('the batch was answered before its transaction was seen open');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describeStores('faults: the server killed mid-batch', (kind) => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let options: StartServerOptions;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tracewarden-faults-'));
    database = kind === 'postgres' ? await createTestDatabase() : undefined;
    options = {
      dataDir,
      limits,
      ...(database === undefined ? {} : { databaseUrl: database.url }),
    };
  });
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  /** Whether another connection holds the write transaction of this trace. */
  async function transactionOpen(traceId: string): Promise<() => Promise<boolean> | boolean> {
    if (database === undefined) {
      const watcher = new DatabaseSync(join(dataDir, 'tracewarden.db'));
      watcher.exec('PRAGMA busy_timeout = 0');
      return () => {
        try {
          watcher.exec('BEGIN IMMEDIATE');
          watcher.exec('ROLLBACK');
          return false;
        } catch {
          watcher.close();
          return true; // SQLITE_BUSY: the server holds the write lock
        }
      };
    }
    const { Client } = await import('pg');
    const client = new Client({ connectionString: database.url });
    await client.connect();
    return async () => {
      const { rows } = await client.query(
        `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
           AND objid::bigint = (hashtext($1)::bigint + 4294967296) % 4294967296`,
        [traceId],
      );
      if (rows.length > 0) await client.end();
      return rows.length > 0;
    };
  }

  it('stores all of a batch or none of it when SIGKILLed inside its transaction, and takes the retry', async () => {
    const batch = largeBatch(2_000);
    let key = '';
    for (const attempt of [1, 2]) {
      const server = await spawnServer(options);
      if (server.key !== null) key = server.key;
      const traceId = `tr_killed_${attempt}`;
      const open = await transactionOpen(traceId);
      const { answered } = postBatch(server, key, traceId, batch);
      await untilTransactionOpen(open, answered);
      await server.kill();
      expect(typeof (await answered)).toBe('string'); // the socket died: no answer

      const restarted = await spawnServer(options);
      try {
        const stored = await storedCount(restarted.url, key, traceId);
        expect([0, batch.length]).toContain(stored);
        // the client's retry: stored whole now, or a no-op when the commit had made it
        const retry = await post(restarted.url, key, traceId, batch);
        expect(retry.status).toBe(stored === 0 ? 201 : 200);
        expect(await storedCount(restarted.url, key, traceId)).toBe(batch.length);
      } finally {
        await restarted.stop();
      }
    }
  }, 120_000);
});

describePostgres('faults: two server processes on one database', () => {
  let database: TestDatabase;
  let servers: ServerProcess[] = [];
  let key: string;
  beforeAll(async () => {
    if (testDatabaseUrl === undefined) return;
    database = await createTestDatabase();
    const dataDirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'tracewarden-race-')));
    // both start on an empty database at once: migrations and the first key happen once
    servers = await Promise.all(
      dataDirs.map((dataDir) => spawnServer({ dataDir, databaseUrl: database.url })),
    );
    const keys = servers.map((server) => server.key).filter((found) => found !== null);
    expect(keys).toHaveLength(1);
    key = keys[0] as string;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
  });

  it('lets exactly one of two racing writers store a call id, a result seq, a block id', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const rounds = 12;
    await Promise.all(
      Array.from({ length: rounds }, async (_, round) => {
        const traceId = `tr_race_${round}`;
        expect((await post(a.url, key, traceId, [blocks.message('tb_m')])).status).toBe(201);

        const calls = await Promise.all([
          post(a.url, key, traceId, [blocks.call('tb_call_a', 'tb_m', 'call_1')]),
          post(b.url, key, traceId, [blocks.call('tb_call_b', 'tb_m', 'call_1')]),
        ]);
        expect(calls.map((call) => call.status).sort()).toEqual([201, 409]);
        expect(calls.find((call) => call.status === 409)?.body.error?.code).toBe(
          'DUPLICATE_CALL_ID',
        );
        const winner = calls[0]?.status === 201 ? 'tb_call_a' : 'tb_call_b';

        const results = await Promise.all([
          post(a.url, key, traceId, [blocks.result('tb_res_a', winner, 'call_1', 'a', 0)]),
          post(b.url, key, traceId, [blocks.result('tb_res_b', winner, 'call_1', 'b', 0)]),
        ]);
        expect(results.map((result) => result.status).sort()).toEqual([201, 409]);
        expect(results.find((result) => result.status === 409)?.body.error?.code).toBe(
          'DUPLICATE_RESULT_SEQ',
        );

        // the same batch from both (a client's retry landing on another server): one stores it,
        // the other finds it stored
        const same = [blocks.think('tb_think', 'tb_m')];
        const resent = await Promise.all([
          post(a.url, key, traceId, same),
          post(b.url, key, traceId, same),
        ]);
        expect(resent.map((answer) => answer.status).sort()).toEqual([200, 201]);
        expect(resent.map((answer) => answer.body.inserted).sort()).toEqual([0, 1]);

        const stored = (await (
          await fetch(`${b.url}/v1/organizations/default/traces/${traceId}/blocks`, {
            headers: { authorization: `Bearer ${key}` },
          })
        ).json()) as { blocks: { id: string; sub_type: string }[] };
        expect(stored.blocks.map((block) => block.sub_type).sort()).toEqual([
          'MESSAGE',
          'THINK',
          'TOOL_CALL',
          'TOOL_RESULT',
        ]);
        const trace = (await (
          await fetch(`${a.url}/v1/organizations/default/traces/${traceId}`, {
            headers: { authorization: `Bearer ${key}` },
          })
        ).json()) as { block_count: number };
        expect(trace.block_count).toBe(4);
      }),
    );
  }, 120_000);
});

/** A TCP proxy to Postgres that can be cut (every connection dropped, new ones refused) and restored. */
async function startProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createTcpServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  };
  await listen();
  return {
    get port() {
      return port;
    },
    async cut() {
      const closed = new Promise<void>((resolve) => server?.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    restore: listen,
  };
}

describePostgres('faults: Postgres down, then back', () => {
  let database: TestDatabase;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let t: TestServer;
  beforeAll(async () => {
    if (testDatabaseUrl === undefined) return;
    database = await createTestDatabase();
    const url = new URL(database.url);
    proxy = await startProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${proxy.port}`;
    // the outage's 503s are logged by default: not in the test's output
    t = await startTestServer({ databaseUrl: url.toString(), onError: () => {} });
  });
  afterAll(async () => {
    await t?.stop();
    await proxy?.cut();
    await database?.drop();
  });

  it('answers 503 SERVICE_UNAVAILABLE while the database is unreachable, loses nothing stored, and serves again once it is back', async () => {
    expect((await t.post('tr_outage', [blocks.message('tb_m')])).status).toBe(201);
    await proxy.cut();
    const during = await t.post('tr_outage', [blocks.call('tb_c', 'tb_m', 'call_1')]);
    expect(during.status).toBe(503);
    expect(
      ((await during.json()) as { error: { code: string; message: string } }).error,
    ).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('Postgres is unavailable'),
    });
    expect((await t.request('/readyz')).status).toBe(503);

    await proxy.restore();
    // the client's retry of the same batch
    const retried = await t.post('tr_outage', [blocks.call('tb_c', 'tb_m', 'call_1')]);
    expect(retried.status).toBe(201);
    expect((await t.request('/readyz')).status).toBe(200);
    const stored = (await (
      await t.request('/v1/organizations/default/traces/tr_outage/blocks')
    ).json()) as { blocks: { id: string }[] };
    expect(stored.blocks.map((block) => block.id)).toEqual(['tb_m', 'tb_c']);
  });
});
