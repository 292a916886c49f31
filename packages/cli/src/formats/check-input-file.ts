import { constants as fsConstants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { CliError } from '../errors/index.js';

/**
 * @internal Checks that a file exists, is not a directory and may be read, before any command
 * starts on it.
 * @returns its size in bytes
 * @throws CliError `CLI_FILE_NOT_FOUND` or `CLI_FILE_UNREADABLE`, with what to do about it
 */
export async function checkInputFile(file: string): Promise<number> {
  try {
    const info = await stat(file);
    if (info.isDirectory()) {
      throw new CliError({
        code: 'CLI_FILE_UNREADABLE',
        file,
        message: `${file} is a directory; pass the trace files inside it (e.g. ${file}/*.jsonl)`,
      });
    }
    // stat works on a file we may not read (mode 000, another user's file): ask now, so the
    // reader never meets EACCES halfway through a command
    await access(file, fsConstants.R_OK);
    return info.size;
  } catch (error) {
    if (CliError.isInstance(error)) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') {
      throw new CliError({
        code: 'CLI_FILE_NOT_FOUND',
        file,
        message: `${file}: no such file; check the path (relative paths start from the current directory)`,
        cause: error,
      });
    }
    throw new CliError({
      code: 'CLI_FILE_UNREADABLE',
      file,
      message: `${file}: cannot read it (${code ?? String(error)}${code === 'EACCES' ? ': permission denied' : ''}); check its permissions`,
      cause: error,
    });
  }
}
