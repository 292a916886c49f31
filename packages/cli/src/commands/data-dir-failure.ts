import { CliError } from '../errors/index.js';

/**
 * A user's mistake about the collector's data directory, named as one: a path that is a file or
 * cannot be made (`EEXIST`, `ENOTDIR`, `EACCES` from `mkdir`), or a `tracewarden.db` that is no
 * SQLite database. `undefined` for any other error (a bug, reported as one).
 * @param error - what opening the data directory threw
 * @param dataDir - the data directory in force
 * @returns the usage error to throw, or `undefined`
 * @internal
 */
export function dataDirFailure(error: unknown, dataDir: string): CliError | undefined {
  const failure = error as (NodeJS.ErrnoException & { errcode?: unknown }) | undefined;
  const code = failure?.code;
  if (
    failure?.syscall === 'mkdir' ||
    code === 'EEXIST' ||
    code === 'ENOTDIR' ||
    code === 'EACCES' ||
    code === 'EPERM'
  )
    return new CliError({
      code: 'CLI_USAGE',
      message: `cannot use ${dataDir} as the collector's data directory (${code ?? 'error'}: ${failure?.message ?? String(error)}); pass --data-dir (or TRACEWARDEN_DATA_DIR) a directory you can write (it is created if missing)`,
      cause: error,
    });
  // SQLITE_NOTADB (26) and a damaged file
  if (
    failure?.errcode === 26 ||
    /file is not a database|database disk image is malformed/i.test(failure?.message ?? '')
  )
    return new CliError({
      code: 'CLI_USAGE',
      message: `${dataDir}/tracewarden.db is not a tracewarden collector database (${failure?.message}); pass the --data-dir of a collector, or an empty directory for a new one`,
      cause: error,
    });
  return undefined;
}
