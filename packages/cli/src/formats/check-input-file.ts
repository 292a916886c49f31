import { constants as fsConstants } from 'node:fs';
import { access, open, stat } from 'node:fs/promises';
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
    if (info.isFile() && info.size >= 2) await refuseUnreadableEncoding(file);
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

/**
 * Refuses a file whose first bytes say it is no UTF-8 text: gzip (`1f 8b`) or UTF-16 with its
 * byte order mark (`ff fe` / `fe ff`, what Windows PowerShell's `>` writes). Read as UTF-8, such
 * a file is a stream of invalid JSON and encoding warnings whose advice (Latin-1?) is wrong.
 */
async function refuseUnreadableEncoding(file: string): Promise<void> {
  const handle = await open(file, 'r');
  const head = Buffer.alloc(2);
  try {
    await handle.read(head, 0, 2, 0);
  } finally {
    await handle.close();
  }
  if (head[0] === 0x1f && head[1] === 0x8b)
    throw new CliError({
      code: 'CLI_UNKNOWN_FORMAT',
      file,
      message: `${file} is gzip-compressed; decompress it first (gunzip -k ${file}, or zcat ${file} > traces.jsonl)`,
    });
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))
    throw new CliError({
      code: 'CLI_UNKNOWN_FORMAT',
      file,
      message: `${file} is UTF-16 text (as Windows PowerShell's > writes); convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8 ${file} > traces.jsonl, or Out-File -Encoding utf8)`,
    });
}
