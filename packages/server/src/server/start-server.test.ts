import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blocks } from '../__fixtures__/test-server.js';
import { ServerError } from '../errors/index.js';
import { defaultPort, resolveDatabaseUrl, resolveDataDir, startServer } from './index.js';

const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-start-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

describe('startServer', () => {
  it('creates the default organization and one key on first start only, in a 0600 credentials file', async () => {
    const dataDir = join(temporary, 'first');
    const first = await startServer({ port: 0, dataDir, env: {} });
    try {
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(first.initialApiKey?.organization).toBe('default');
      const key = first.initialApiKey?.key as string;
      expect(key).toMatch(/^twk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      const credentials = readFileSync(first.credentialsFile, 'utf8');
      expect(credentials).toContain(`TRACEWARDEN_API_KEY=${key}`);
      expect(credentials).toContain(`TRACEWARDEN_URL=${first.url}`);
      expect(statSync(first.credentialsFile).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDir, 'tracewarden.db')).mode & 0o777).toBe(0o600);
      // the database holds only a hash of the secret
      const database = readFileSync(join(dataDir, 'tracewarden.db'));
      expect(database.includes(Buffer.from(key.slice(-43)))).toBe(false);
    } finally {
      await first.close();
    }
    const second = await startServer({ port: 0, dataDir, env: {} });
    try {
      expect(second.initialApiKey).toBeUndefined();
      const key = readFileSync(second.credentialsFile, 'utf8').match(
        /TRACEWARDEN_API_KEY=(\S+)/,
      )?.[1];
      const response = await fetch(`${second.url}/v1/organizations/default/traces`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('says where the first key is when the first start cannot listen (a busy port)', async () => {
    const busy = await startServer({ port: 0, dataDir: join(temporary, 'busy'), env: {} });
    try {
      const dataDir = join(temporary, 'first-on-busy-port');
      const port = Number(new URL(busy.url).port);
      const failed = await startServer({ port, dataDir, env: {} }).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(failed?.message).toContain(join(dataDir, 'credentials'));
      expect(readFileSync(join(dataDir, 'credentials'), 'utf8')).toMatch(
        /TRACEWARDEN_API_KEY=twk_/,
      );
    } finally {
      await busy.close();
    }
  });

  it('reads the data directory from TRACEWARDEN_DATA_DIR, else ~/.tracewarden, and has a fixed default port', () => {
    expect(resolveDataDir('/given', { TRACEWARDEN_DATA_DIR: '/env' })).toBe('/given');
    expect(resolveDataDir(undefined, { TRACEWARDEN_DATA_DIR: '/env' })).toBe('/env');
    expect(resolveDataDir(undefined, {})).toMatch(/\.tracewarden$/);
    expect([3000, 4317, 4318, 6006, 8080]).not.toContain(defaultPort);
  });

  it('refuses a database URL that is not Postgres, an unreachable Postgres, and bad limit variables', async () => {
    const dataDir = join(temporary, 'pg');
    await expect(
      startServer({ port: 0, dataDir, databaseUrl: 'mysql://root:secret@localhost/tw', env: {} }),
    ).rejects.toSatisfy(
      (error) =>
        error instanceof ServerError &&
        error.code === 'INVALID_REQUEST' &&
        /postgres:\/\//.test(error.message) &&
        !error.message.includes('secret'),
    );
    // nothing listens on port 1: the start fails, as a 503-class error, and writes no key
    await expect(
      startServer({
        port: 0,
        dataDir,
        env: { TRACEWARDEN_DATABASE_URL: 'postgres://127.0.0.1:1/tw' },
      }),
    ).rejects.toSatisfy(
      (error) => error instanceof ServerError && error.code === 'SERVICE_UNAVAILABLE',
    );
    await expect(
      startServer({ port: 0, dataDir, env: { TRACEWARDEN_MAX_BODY_BYTES: '8MB' } }),
    ).rejects.toThrow(/TRACEWARDEN_MAX_BODY_BYTES/);
    expect(existsSync(join(dataDir, 'credentials'))).toBe(false);
    expect(resolveDatabaseUrl(undefined, { TRACEWARDEN_DATABASE_URL: 'postgresql://db/tw' })).toBe(
      'postgresql://db/tw',
    );
    expect(resolveDatabaseUrl('', {})).toBeUndefined();
  });

  it('lets createApiKey create organizations, each key working on its own organization', async () => {
    const server = await startServer({ port: 0, dataDir: join(temporary, 'keys'), env: {} });
    try {
      const { key, organization } = await server.createApiKey({ organization: 'team-a' });
      expect(organization).toBe('team-a');
      const response = await fetch(`${server.url}/v1/organizations/team-a/traces`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(await response.json()).toEqual({ traces: [], next_cursor: null });
      await expect(server.createApiKey({ organization: 'bad name!' })).rejects.toThrow(
        /not allowed/,
      );
    } finally {
      await server.close();
    }
  });

  it('drains: close() waits for a request in flight, answers it, then closes; readyz fails meanwhile', async () => {
    const server = await startServer({ port: 0, dataDir: join(temporary, 'drain'), env: {} });
    const key = server.initialApiKey?.key as string;
    const { hostname, port } = new URL(server.url);
    const body = JSON.stringify({ blocks: [blocks.message('tb_m')] });
    let finish: () => void = () => {};
    let connected: () => void = () => {};
    const onSocket = new Promise<void>((resolve) => (connected = resolve));
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = httpRequest(
        {
          host: hostname,
          port,
          method: 'POST',
          path: '/v1/organizations/default/traces/tr_drain/blocks',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      request.on('error', reject);
      request.on('socket', (socket) => socket.on('connect', () => connected()));
      // half the body now: the request is in flight when close() is called
      request.write(body.slice(0, 10));
      finish = () => request.end(body.slice(10));
    });
    await onSocket;
    await new Promise((resolve) => setTimeout(resolve, 100));
    let closed = false;
    const closing = server.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(false);
    finish();
    const result = await answered;
    expect(result.status).toBe(201);
    await closing;
    expect(closed).toBe(true);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    await server.close();
  });

  it('closes connections of requests still running after the drain timeout, storing nothing of them', async () => {
    const server = await startServer({ port: 0, dataDir: join(temporary, 'stuck'), env: {} });
    const key = server.initialApiKey?.key as string;
    const { hostname, port } = new URL(server.url);
    let connected: () => void = () => {};
    const onSocket = new Promise<void>((resolve) => (connected = resolve));
    const failed = new Promise<string>((resolve) => {
      const request = httpRequest({
        host: hostname,
        port,
        method: 'POST',
        path: '/v1/organizations/default/traces/tr_stuck/blocks',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': '1000',
        },
      });
      request.on('error', (error) => resolve(error.message));
      request.on('response', () => resolve('answered'));
      request.on('socket', (socket) => socket.on('connect', () => connected()));
      request.write('{"blocks": [');
    });
    await onSocket;
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.close({ timeoutMs: 50 });
    expect(await failed).not.toBe('answered');
    const reopened = await startServer({ port: 0, dataDir: join(temporary, 'stuck'), env: {} });
    try {
      const response = await fetch(`${reopened.url}/v1/organizations/default/traces`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(await response.json()).toEqual({ traces: [], next_cursor: null });
    } finally {
      await reopened.close();
    }
  });
});
