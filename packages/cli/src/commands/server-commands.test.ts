import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryIo, type MemoryIoOptions } from '../program/create-memory-io.js';
import { runCli } from '../program/run-cli.js';

const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-cli-server-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

async function run(argv: string[], options: MemoryIoOptions = {}) {
  const io = createMemoryIo(options);
  const code = await runCli(argv, io);
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

/** Starts `tracewarden serve` in process; resolves once it printed its URL. */
async function serve(argv: string[], env: Record<string, string> = {}) {
  const controller = new AbortController();
  const io = createMemoryIo({ env, signal: controller.signal });
  const exited = runCli(['serve', '--port', '0', ...argv], io);
  for (let i = 0; i < 200 && !/listening on (\S+)/.test(io.stdoutText); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const url = /listening on (\S+)/.exec(io.stdoutText)?.[1] as string;
  return {
    io,
    url,
    async stop() {
      controller.abort();
      return exited;
    },
  };
}

describe('tracewarden serve', () => {
  it('prints the URL and, on first start only, the key; serves until Ctrl-C, then drains and exits 0', async () => {
    const dataDir = join(temporary, 'serve');
    const first = await serve(['--data-dir', dataDir]);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const key = /^\s+(twk_\S+)$/m.exec(first.io.stdoutText)?.[1] as string;
    expect(key).toBeDefined();
    expect(first.io.stdoutText).toContain(`saved to ${join(dataDir, 'credentials')}`);
    expect(statSync(join(dataDir, 'credentials')).mode & 0o777).toBe(0o600);
    const response = await fetch(`${first.url}/v1/organizations/default/traces`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await response.json()).toEqual({ traces: [], next_cursor: null });
    expect(await first.stop()).toBe(0);
    expect(first.io.stderrText).toContain('stopped');

    const second = await serve([], { TRACEWARDEN_DATA_DIR: dataDir });
    expect(second.io.stdoutText).not.toContain('twk_');
    expect(second.io.stdoutText).toContain(`data: ${dataDir}`);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    expect(await second.stop()).toBe(0);
  });

  it('a first start on a busy port says where the API key it created is saved', async () => {
    const busy = await serve(['--data-dir', join(temporary, 'busy')]);
    try {
      const dataDir = join(temporary, 'first-on-busy-port');
      const failed = await run(['serve', '--port', new URL(busy.url).port, '--data-dir', dataDir]);
      expect(failed.code).toBe(2);
      expect(failed.stderr).toContain('already in use');
      expect(failed.stderr).toContain(join(dataDir, 'credentials'));
      expect(readFileSync(join(dataDir, 'credentials'), 'utf8')).toMatch(/TRACEWARDEN_API_KEY=/);
    } finally {
      await busy.stop();
    }
  });

  it('rejects a bad port and an unreachable Postgres URL as usage errors', async () => {
    const badPort = await run(['serve', '--port', '70000']);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('expected a port from 0 to 65535');
    const postgres = await run([
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(temporary, 'pg'),
      '--database-url',
      'postgres://localhost/tracewarden',
    ]);
    expect(postgres.code).toBe(2);
    expect(postgres.stderr).toContain('Postgres');
  });
});

describe('tracewarden orgs and keys', () => {
  it('names a wrong --host or --data-dir as the user’s mistake (exit 2, no stack trace), and never makes a database where one was only read', async () => {
    const file = join(temporary, 'a-file');
    writeFileSync(file, 'not a directory');
    const corrupt = join(temporary, 'corrupt');
    mkdirSync(corrupt, { recursive: true });
    writeFileSync(join(corrupt, 'tracewarden.db'), 'this is no SQLite file at all, '.repeat(40));
    const cases: [string[], string][] = [
      [
        ['serve', '--host', 'example.invalid', '--port', '0', '--data-dir', join(temporary, 'h')],
        'no such host',
      ],
      [
        ['serve', '--port', '0', '--data-dir', file],
        `cannot use ${file} as the collector's data directory`,
      ],
      [['serve', '--port', '0', '--data-dir', corrupt], 'is not a tracewarden collector database'],
      [['keys', 'list', '--data-dir', corrupt], 'is not a tracewarden collector database'],
      [['keys', 'list', '--data-dir', join(temporary, 'typo', 'dir')], 'no collector database in'],
      [['orgs', 'list', '--data-dir', join(temporary, 'typo', 'dir')], 'no collector database in'],
    ];
    for (const [argv, expected] of cases) {
      const result = await run(argv);
      expect(result.stderr).toContain(expected);
      expect(result.stderr).not.toContain('internal error');
      expect(result.code).toBe(2);
    }
    expect(existsSync(join(temporary, 'typo'))).toBe(false);
  });

  it('creates organizations and keys, lists keys without secrets, revokes them', async () => {
    const dataDir = join(temporary, 'admin');
    const created = await run(['orgs', 'create', 'acme', '--data-dir', dataDir]);
    expect(created).toMatchObject({ code: 0, stdout: 'created organization "acme"\n' });
    const again = await run(['orgs', 'create', 'acme', '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    expect((await run(['orgs', 'create', 'bad name', '--data-dir', dataDir])).code).toBe(2);

    const key = await run([
      'keys',
      'create',
      '--organization',
      'acme',
      '--name',
      'ci',
      '--data-dir',
      dataDir,
    ]);
    expect(key.code).toBe(0);
    expect(key.stdout).toMatch(/^twk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}\n$/);
    const id = key.stdout.slice(4, 20);
    expect(key.stderr).toContain(`created key ${id} for organization "acme"`);

    const missing = await run([
      'keys',
      'create',
      '--organization',
      'nobody',
      '--data-dir',
      dataDir,
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('tracewarden orgs create nobody');

    const list = await run(['keys', 'list', '--json', '--data-dir', dataDir]);
    const keys = JSON.parse(list.stdout) as {
      id: string;
      organization: string;
      revoked_at: null;
    }[];
    expect(keys).toEqual([
      expect.objectContaining({ id, organization: 'acme', name: 'ci', revoked_at: null }),
    ]);
    expect(list.stdout).not.toContain(key.stdout.trim().slice(-43));

    // the key works on a collector over the same data directory, until revoked
    const server = await serve(['--data-dir', dataDir]);
    const path = `${server.url}/v1/organizations/acme/traces`;
    const headers = { authorization: `Bearer ${key.stdout.trim()}` };
    expect((await fetch(path, { headers })).status).toBe(200);
    expect(await run(['keys', 'revoke', id, '--data-dir', dataDir])).toMatchObject({
      code: 0,
      stdout: `revoked key ${id}\n`,
    });
    expect((await fetch(path, { headers })).status).toBe(401);
    expect(await server.stop()).toBe(0);

    expect((await run(['keys', 'revoke', id, '--data-dir', dataDir])).code).toBe(1);
    const text = await run(['keys', 'list', '--organization', 'acme', '--data-dir', dataDir]);
    expect(text.stdout).toMatch(new RegExp(`^${id}\\tacme\\trevoked `));
    const orgs = await run(['orgs', 'list', '--data-dir', dataDir]);
    expect(orgs.stdout).toMatch(/^acme\t/m);
    expect(readFileSync(join(dataDir, 'tracewarden.db')).length).toBeGreaterThan(0);
  });
});

// The collector's Postgres, as the server's tests find it (CI's .ci/run starts one).
const databaseUrl = process.env.TRACEWARDEN_TEST_DATABASE_URL?.trim() || undefined;
const inCi = process.env.CI === 'true' || process.env.CI === '1';

describe('orgs and keys on the collector Postgres (--database-url)', () => {
  if (databaseUrl === undefined) {
    const howToRun =
      'set TRACEWARDEN_TEST_DATABASE_URL=postgres://user@host:port/database or run bash .ci/run, which starts a throwaway Postgres';
    if (inCi)
      it('runs against Postgres in CI', () => {
        throw new Error(`CI=true but no Postgres for the tests: ${howToRun}`);
      });
    else it.skip(`skipped: no Postgres; to run it, ${howToRun}`, () => {});
    return;
  }
  it('create an organization, a key, list it, revoke it: the same commands as on SQLite', async () => {
    const organization = `acme-${Date.now().toString(36)}`;
    const url = ['--database-url', databaseUrl];
    expect((await run(['orgs', 'create', organization, ...url])).code).toBe(0);
    expect((await run(['orgs', 'create', organization, ...url])).code).toBe(1);
    const listed = JSON.parse((await run(['orgs', 'list', '--json', ...url])).stdout) as {
      name: string;
    }[];
    expect(listed.map((org) => org.name)).toContain(organization);
    const created = await run(['keys', 'create', '--organization', organization, ...url]);
    expect(created.code).toBe(0);
    expect(created.stdout.trim()).not.toBe('');
    const keys = JSON.parse(
      (await run(['keys', 'list', '--organization', organization, '--json', ...url])).stdout,
    ) as { id: string; revoked_at: string | null }[];
    expect(keys).toHaveLength(1);
    const id = keys[0]?.id as string;
    expect((await run(['keys', 'revoke', id, ...url])).code).toBe(0);
    const after = JSON.parse(
      (await run(['keys', 'list', '--organization', organization, '--json', ...url])).stdout,
    ) as { revoked_at: string | null }[];
    expect(after[0]?.revoked_at).not.toBeNull();
    // the environment variable works as the flag does
    const viaEnv = await run(['keys', 'list', '--organization', organization], {
      env: { TRACEWARDEN_DATABASE_URL: databaseUrl },
    });
    expect(viaEnv.stdout).toContain(id);
  });
  it('a URL that is not Postgres is a usage error', async () => {
    const result = await run(['keys', 'list', '--database-url', 'mysql://x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Postgres URL');
  });
});
