import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningServer, type StartServerOptions, startServer } from '../server/index.js';
import { type CollectorStore, PostgresStore, SqliteStore } from '../storage/index.js';
import { createTestDatabase, type StoreKind, type TestDatabase } from './test-stores.js';

/** A collector on a free port and a fresh data directory, with helpers for its API. */
export interface TestServer {
  server: RunningServer;
  /** The database the server stores in. */
  store: StoreKind;
  dataDir: string;
  /** The Postgres URL (its own schema), for a Postgres server. */
  databaseUrl: string | undefined;
  /** The `default` organization's key, created on first start. */
  key: string;
  /** fetch on the server, with `Authorization: Bearer <key>` unless `key` is given (null: none). */
  request(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  /** POSTs `{ blocks }` to a trace of an organization. */
  post(
    traceId: string,
    blocks: unknown[],
    options?: { organization?: string; key?: string },
  ): Promise<Response>;
  /** Opens the server's database directly (as the CLI's admin commands or a second server would). */
  openStore(): Promise<CollectorStore>;
  /** Closes the server and removes its data directory (and its Postgres schema). */
  stop(): Promise<void>;
}

/**
 * Starts a collector for one test file, on SQLite (a fresh data directory) or Postgres (a fresh
 * schema in `TRACEWARDEN_TEST_DATABASE_URL`).
 * @param options - the store (default SQLite) and more options for startServer
 */
export async function startTestServer(
  options: StartServerOptions & { store?: StoreKind } = {},
): Promise<TestServer> {
  const { store = 'sqlite', ...rest } = options;
  const dataDir = mkdtempSync(join(tmpdir(), 'tracewarden-server-'));
  const database: TestDatabase | undefined =
    store === 'postgres' ? await createTestDatabase() : undefined;
  const server = await startServer({
    port: 0,
    dataDir,
    env: {},
    ...(database === undefined ? {} : { databaseUrl: database.url }),
    ...rest,
  });
  const key = server.initialApiKey?.key as string;
  const request: TestServer['request'] = (path, init = {}) => {
    const { key: given, ...rest } = init;
    const headers = new Headers(rest.headers);
    const used = given === undefined ? key : given;
    if (used !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${used}`);
    return fetch(`${server.url}${path}`, { ...rest, headers });
  };
  return {
    server,
    store,
    dataDir,
    databaseUrl: database?.url,
    key,
    request,
    post(traceId, blocks, options = {}) {
      const organization = options.organization ?? 'default';
      return request(
        `/v1/organizations/${encodeURIComponent(organization)}/traces/${encodeURIComponent(traceId)}/blocks`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ blocks }),
          ...(options.key === undefined ? {} : { key: options.key }),
        },
      );
    },
    async openStore() {
      return database === undefined
        ? new SqliteStore(join(dataDir, 'tracewarden.db'))
        : await PostgresStore.open({ connectionString: database.url });
    },
    async stop() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}

/** Block builders in the seed's shapes (ids given, timestamps left to the server unless given). */
export const blocks = {
  message(id: string, content = 'what is the weather?', role = 'user') {
    return { id, sub_type: 'MESSAGE', payload: { role, content } };
  },
  call(id: string, parent: string, callId: string, name = 'get_weather') {
    return {
      id,
      sub_type: 'TOOL_CALL',
      parent_block_id: parent,
      payload: { call_id: callId, name, arguments: { city: 'Bogotá' } },
    };
  },
  result(id: string, parent: string, callId: string, output: unknown = '22°C', seq?: number) {
    return {
      id,
      sub_type: 'TOOL_RESULT',
      parent_block_id: parent,
      payload: { call_id: callId, output, ...(seq === undefined ? {} : { seq }) },
    };
  },
  think(id: string, parent: string, text = 'decide to show celsius') {
    return { id, sub_type: 'THINK', parent_block_id: parent, payload: { text } };
  },
};
