import {
  defaultPort,
  type RunningServer,
  resolveDataDir,
  ServerError,
  startServer,
} from '@tracewarden/server';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CliError, exitCodes } from '../errors/index.js';
import { sqliteUnavailableError } from '../errors/sqlite-unavailable-error.js';
import type { CommandContext } from '../program/command-context.js';
import { dataDirFailure } from './data-dir-failure.js';

/** Options of {@link serveCollector} (the `serve` command's flags). */
export interface ServeOptions {
  host?: string | undefined;
  port?: number | undefined;
  dataDir?: string | undefined;
  databaseUrl?: string | undefined;
}

/**
 * Parses a port: a whole number from 0 (any free port) to 65535.
 * @param value - the option's text
 * @returns the port
 */
export function parsePort(value: string): number {
  const port = /^\d{1,5}$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw new InvalidArgumentError(`expected a port from 0 to 65535, got "${value}".`);
  }
  return port;
}

/**
 * `--data-dir <dir>`: where the collector's database and credentials live.
 * @returns the option
 */
export function dataDirOption(): Option {
  return new Option(
    '--data-dir <dir>',
    'data directory (default: $TRACEWARDEN_DATA_DIR, else ~/.tracewarden)',
  );
}

function startFailure(
  error: unknown,
  options: ServeOptions,
  env: Readonly<Record<string, string | undefined>>,
): never {
  const noSqlite = sqliteUnavailableError(error, 'tracewarden serve');
  if (noSqlite !== undefined) throw noSqlite;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  // a first start that could not listen has made the API key: later starts do not print it
  const saved = (error as { credentialsFile?: unknown } | undefined)?.credentialsFile;
  const keyNote =
    typeof saved === 'string'
      ? `. This first start created the API key and saved it to ${saved}; later starts do not print it`
      : '';
  if (code === 'EADDRINUSE') {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `port ${options.port ?? defaultPort} is already in use; stop what uses it or pick another with --port (0 picks a free one)${keyNote}`,
      cause: error,
    });
  }
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? defaultPort} (${code}); check --host and --port${keyNote}`,
      cause: error,
    });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `cannot listen on ${options.host}: no such host (${code}); pass --host an address of this machine (127.0.0.1, 0.0.0.0, ::)${keyNote}`,
      cause: error,
    });
  }
  if (error instanceof ServerError) {
    throw new CliError({ code: 'CLI_USAGE', message: error.message, cause: error });
  }
  if (options.databaseUrl === undefined)
    throw dataDirFailure(error, resolveDataDir(options.dataDir, env)) ?? error;
  throw error;
}

/**
 * Runs the collector until Ctrl-C (the context's signal) or SIGTERM, then drains in-flight
 * requests and closes the database. Prints the URL and, on first start, the API key.
 *
 * @param context - outputs, environment, signal
 * @param options - host, port, data directory
 * @returns the exit code (0 after a clean stop)
 * @example
 * ```ts
 * await serveCollector(context, { port: 0, dataDir: '/tmp/tracewarden' });
 * ```
 */
export async function serveCollector(
  context: CommandContext,
  options: ServeOptions,
): Promise<number> {
  let server: RunningServer;
  try {
    server = await startServer({
      host: options.host,
      port: options.port,
      dataDir: options.dataDir,
      databaseUrl: options.databaseUrl,
      env: context.env,
      onError: (error) =>
        context.err(
          `${context.errorPalette.red('error')}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        ),
    });
  } catch (error) {
    startFailure(error, options, context.env);
  }
  const { bold, dim } = context.palette;
  let text = `tracewarden collector listening on ${bold(server.url)}\ndata: ${server.database === 'postgres' ? `Postgres (credentials in ${server.dataDir})` : `${server.dataDir} (SQLite)`}\n`;
  if (server.initialApiKey !== undefined) {
    text += `first start: created organization "${server.initialApiKey.organization}" and its API key (shown once; also saved to ${server.credentialsFile}, mode 0600):\n  ${server.initialApiKey.key}\n`;
  }
  text += dim('Stop with Ctrl-C: requests in flight finish first.\n');
  await context.out(text);

  await new Promise<void>((resolve) => {
    if (context.signal.aborted) return resolve();
    const stop = () => {
      process.off('SIGTERM', stop);
      context.signal.removeEventListener('abort', stop);
      resolve();
    };
    process.once('SIGTERM', stop);
    context.signal.addEventListener('abort', stop, { once: true });
  });
  context.err('stopping: finishing requests in flight...\n');
  await server.close();
  context.err('stopped\n');
  return exitCodes.ok;
}

/**
 * Adds `tracewarden serve` to the program.
 * @param program - the root command
 * @param context - the command context
 * @returns the subcommand
 */
export function addServeCommand(program: Command, context: CommandContext): Command {
  return program
    .command('serve')
    .summary('run the trace collector (seed 002 HTTP API, SQLite built in)')
    .description(
      'Run the tracewarden collector: agents POST trace blocks to /v1/organizations/:org/traces/:traceId/blocks, read them back as pages or as the stitched tree. Data lives in SQLite under the data directory; the first start creates the organization "default" and prints its API key (also written to <data-dir>/credentials, mode 0600). Ctrl-C or SIGTERM stops it after requests in flight finish.',
    )
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .addOption(
      new Option(
        '--port <port>',
        `port to listen on, 0 for any free port (default: ${defaultPort})`,
      ).argParser(parsePort),
    )
    .addOption(dataDirOption())
    .addOption(
      new Option(
        '--database-url <url>',
        'Postgres URL to store in instead of SQLite; several collectors may share it (default: $TRACEWARDEN_DATABASE_URL)',
      ),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ tracewarden serve
  $ tracewarden serve --port 0 --data-dir ./collector-data
  $ curl -H "Authorization: Bearer $TRACEWARDEN_API_KEY" http://127.0.0.1:${defaultPort}/v1/organizations/default/traces

Limits: TRACEWARDEN_MAX_BODY_BYTES (13 MiB), TRACEWARDEN_MAX_DECOMPRESSED_BYTES,
TRACEWARDEN_MAX_BATCH_BLOCKS, TRACEWARDEN_MAX_TRACE_BLOCKS, and the seed's LIMIT_* byte limits.`,
    )
    .action(async (options: ServeOptions) => {
      context.exitCode = await serveCollector(context, options);
    });
}
