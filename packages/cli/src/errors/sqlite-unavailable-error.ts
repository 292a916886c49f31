import { CliError } from './cli-error.js';

/**
 * The Node.js versions with `node:sqlite` built in, without a flag (it came unflagged in 23.4
 * and 22.13; the package's `engines` says the same).
 */
export const sqliteNodeVersions = '22.13 or later (23.4 or later on Node 23)';

/**
 * @internal What `serve`, `orgs` and `keys` say when the collector's SQLite store cannot open
 * because this Node.js has no `node:sqlite` (before 22.13 it needs a flag): the Node version
 * needed, instead of an internal error.
 * @param error - what opening the store threw
 * @param command - the command that needs it (`tracewarden serve`)
 * @param nodeVersion - this Node.js's version @default process.versions.node
 * @returns the error to report, or undefined for any other error
 * @example
 * ```ts
 * throw sqliteUnavailableError(error, 'tracewarden serve') ?? error;
 * ```
 */
export function sqliteUnavailableError(
  error: unknown,
  command: string,
  nodeVersion: string = process.versions.node,
): CliError | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_UNKNOWN_BUILTIN_MODULE' || !String(message).includes('sqlite')) return;
  return new CliError({
    // exit 2, as for a port in use: the command cannot run here as given
    code: 'CLI_USAGE',
    message: `${command} needs node:sqlite for the collector's SQLite store, built into Node.js ${sqliteNodeVersions}; this is Node.js ${nodeVersion}. Upgrade Node.js, or use a Postgres store with --database-url (or TRACEWARDEN_DATABASE_URL).`,
    cause: error,
  });
}
