import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CollectorStore,
  PostgresStore,
  resolveDatabaseUrl,
  resolveDataDir,
  ServerError,
  SqliteStore,
} from '@tracewarden/server';
import type { Command } from 'commander';
import { Option } from 'commander';
import { CliError, exitCodes } from '../errors/index.js';
import { sqliteUnavailableError } from '../errors/sqlite-unavailable-error.js';
import type { CommandContext } from '../program/command-context.js';
import { dataDirFailure } from './data-dir-failure.js';
import { dataDirOption } from './serve-command.js';

/** Options shared by `orgs` and `keys` subcommands. */
export interface AdminOptions {
  dataDir?: string | undefined;
  databaseUrl?: string | undefined;
}

/** `--database-url`: the collector's Postgres, as `serve` takes it. */
function databaseUrlOption(): Option {
  return new Option(
    '--database-url <url>',
    "the collector's Postgres (default: $TRACEWARDEN_DATABASE_URL; else the data directory's SQLite)",
  );
}

/**
 * Runs `work` on the collector's store (its Postgres with `--database-url` /
 * `TRACEWARDEN_DATABASE_URL`, else the data directory's SQLite), closing it after; server errors
 * become usage errors.
 */
async function withStore<T>(
  context: CommandContext,
  command: string,
  options: AdminOptions,
  work: (store: CollectorStore) => T | Promise<T>,
): Promise<T> {
  let store: CollectorStore | undefined;
  let dataDir: string | undefined;
  try {
    const databaseUrl = resolveDatabaseUrl(options.databaseUrl, context.env);
    if (databaseUrl === undefined) {
      dataDir = resolveDataDir(options.dataDir, context.env);
      // a command that only reads or revokes must not quietly make an empty collector database
      // where a --data-dir was mistyped (creating an organization or a key may start one)
      if (!command.endsWith(' create') && !existsSync(join(dataDir, 'tracewarden.db')))
        throw new CliError({
          code: 'CLI_USAGE',
          message: `no collector database in ${dataDir} (no tracewarden.db there); pass the --data-dir (or TRACEWARDEN_DATA_DIR) your collector uses, or start a new collector there first with \`tracewarden serve --data-dir ${dataDir}\``,
        });
    }
    store =
      dataDir !== undefined
        ? SqliteStore.openDataDir(dataDir)
        : await PostgresStore.open({ connectionString: databaseUrl as string });
    return await work(store);
  } catch (error) {
    const noSqlite = sqliteUnavailableError(error, `tracewarden ${command}`);
    if (noSqlite !== undefined) throw noSqlite;
    const badDataDir = dataDir === undefined ? undefined : dataDirFailure(error, dataDir);
    if (badDataDir !== undefined) throw badDataDir;
    if (ServerError.isInstance(error)) {
      throw new CliError({
        code: 'CLI_USAGE',
        message: error.message,
        exitCode: error.code === 'NOT_FOUND' ? exitCodes.problems : exitCodes.usage,
        cause: error,
      });
    }
    throw error;
  } finally {
    await store?.close();
  }
}

/**
 * Adds `tracewarden orgs create | list` to the program. They work on the data directory
 * directly (a running collector sees the change at once: SQLite in WAL mode).
 * @param program - the root command
 * @param context - the command context
 * @returns the subcommand
 */
export function addOrgsCommand(program: Command, context: CommandContext): Command {
  const orgs = program
    .command('orgs')
    .summary("manage the collector's organizations")
    .description(
      "Manage the collector's organizations. Each API key belongs to one organization and sees only its traces.",
    );
  orgs
    .command('create')
    .description(
      'create an organization (then give it a key: tracewarden keys create --organization <name>)',
    )
    .argument('<name>', "the organization's name, as in /v1/organizations/<name>/...")
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .action(async (name: string, options: AdminOptions) => {
      await withStore(context, 'orgs create', options, async (store) => {
        const { created } = await store.createOrganization(name);
        if (!created) {
          throw new CliError({
            code: 'CLI_USAGE',
            message: `organization "${name}" already exists; create a key for it with tracewarden keys create --organization ${name}`,
            exitCode: exitCodes.problems,
          });
        }
        await context.out(`created organization "${name}"\n`);
      });
    });
  orgs
    .command('list')
    .description('list organizations')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .option('--json', 'print JSON')
    .action(async (options: AdminOptions & { json?: boolean }) => {
      await withStore(context, 'orgs list', options, async (store) => {
        const all = await store.organizations();
        if (options.json === true) {
          await context.out(
            `${JSON.stringify(
              all.map(({ name, created_at }) => ({ name, created_at })),
              null,
              2,
            )}\n`,
          );
        } else {
          await context.out(all.map((org) => `${org.name}\t${org.created_at}\n`).join(''));
        }
      });
    });
  return orgs;
}

/**
 * Adds `tracewarden keys create | revoke | list` to the program.
 * @param program - the root command
 * @param context - the command context
 * @returns the subcommand
 */
export function addKeysCommand(program: Command, context: CommandContext): Command {
  const keys = program
    .command('keys')
    .summary("manage the collector's API keys")
    .description(
      'Manage API keys. A key is shown once, when created; the collector keeps only its hash.',
    );
  keys
    .command('create')
    .description('create an API key; prints the key alone on stdout (for scripts)')
    .option('--organization <name>', 'the organization the key belongs to', 'default')
    .option('--name <label>', 'a label to recognise the key by in keys list')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .action(async (options: AdminOptions & { organization: string; name?: string }) => {
      await withStore(context, 'keys create', options, async (store) => {
        const created = await store.createApiKey(options.organization, { name: options.name });
        context.err(
          `created key ${created.id} for organization "${created.organization}" (shown once; store it now)\n`,
        );
        await context.out(`${created.key}\n`);
      });
    });
  keys
    .command('revoke')
    .description('revoke an API key: requests with it get 401 from then on')
    .argument('<id>', 'the key id (as keys list shows it) or the key itself')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .action(async (id: string, options: AdminOptions) => {
      await withStore(context, 'keys revoke', options, async (store) => {
        if (!(await store.revokeApiKey(id))) {
          throw new CliError({
            code: 'CLI_USAGE',
            message: `no active key ${id}; see tracewarden keys list`,
            exitCode: exitCodes.problems,
          });
        }
        await context.out(`revoked key ${id}\n`);
      });
    });
  keys
    .command('list')
    .description('list API keys (ids, never secrets)')
    .option('--organization <name>', "only this organization's keys")
    .option('--json', 'print JSON')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .action(async (options: AdminOptions & { organization?: string; json?: boolean }) => {
      await withStore(context, 'keys list', options, async (store) => {
        const all = await store.listApiKeys(options.organization);
        if (options.json === true) {
          await context.out(`${JSON.stringify(all, null, 2)}\n`);
          return;
        }
        const rows = all.map((key) =>
          [
            key.id,
            key.organization,
            key.revoked_at === null ? 'active' : `revoked ${key.revoked_at}`,
            key.created_at,
            key.name ?? '',
          ].join('\t'),
        );
        await context.out(rows.length === 0 ? 'no keys\n' : `${rows.join('\n')}\n`);
      });
    });
  return keys;
}
