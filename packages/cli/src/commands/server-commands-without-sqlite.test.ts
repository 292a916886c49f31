import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { sqliteUnavailableError } from '../errors/sqlite-unavailable-error.js';
import { createMemoryIo } from '../program/create-memory-io.js';
import { runCli } from '../program/run-cli.js';

// What Node.js before 22.13 throws when the collector's store loads node:sqlite (no flag given).
function noSqlite(): Error {
  return Object.assign(new Error('No such built-in module: node:sqlite'), {
    code: 'ERR_UNKNOWN_BUILTIN_MODULE',
  });
}

vi.mock('@tracewarden/server', async (original) => {
  const server = await original<typeof import('@tracewarden/server')>();
  return {
    ...server,
    startServer: async () => {
      throw noSqlite();
    },
    SqliteStore: {
      openDataDir: () => {
        throw noSqlite();
      },
    },
  };
});

async function run(argv: string[]) {
  const io = createMemoryIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

describe('serve, orgs and keys on a Node.js without node:sqlite', () => {
  it('say which Node.js they need, instead of an internal error', async () => {
    // a collector's data directory (commands that only read it need its database file)
    const dataDir = mkdtempSync(join(tmpdir(), 'tracewarden-no-sqlite-'));
    writeFileSync(join(dataDir, 'tracewarden.db'), '');
    for (const argv of [
      ['serve', '--port', '0'],
      ['keys', 'list'],
      ['orgs', 'create', 'acme'],
    ]) {
      const result = await run([...argv, '--data-dir', dataDir]);
      expect(result.stderr).not.toContain('internal error');
      expect(result.stderr).toContain(
        `error: tracewarden ${argv.slice(0, argv[0] === 'serve' ? 1 : 2).join(' ')} needs node:sqlite for the collector's SQLite store, built into Node.js 22.13 or later (23.4 or later on Node 23); this is Node.js ${process.versions.node}.`,
      );
      expect(result.code).toBe(2);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the package asks for the Node.js versions the message names', () => {
    // node:sqlite came without a flag in 22.13 and 23.4: 22.12 installed, and serve failed
    expect(packageJson.engines.node).toBe('^22.13.0 || >=23.4.0');
  });

  it('leaves every other error as it was', () => {
    expect(sqliteUnavailableError(new Error('disk full'), 'tracewarden serve')).toBeUndefined();
    const otherModule = Object.assign(new Error('No such built-in module: node:nope'), {
      code: 'ERR_UNKNOWN_BUILTIN_MODULE',
    });
    expect(sqliteUnavailableError(otherModule, 'tracewarden serve')).toBeUndefined();
    expect(sqliteUnavailableError(noSqlite(), 'tracewarden serve', '22.12.0')?.message).toContain(
      'this is Node.js 22.12.0. Upgrade Node.js, or use a Postgres store with --database-url',
    );
  });
});
