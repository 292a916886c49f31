import { createWriteStream } from 'node:fs';
import { CliError } from '../errors/index.js';
import type { CliOutput } from '../program/cli-io.js';

/** An output file opened by {@link createFileOutput}. */
export interface FileOutput {
  output: CliOutput;
  /** Ends the file; rejects with the write failure, if any write failed. */
  close(): Promise<void>;
}

const hints: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full; free some space or write somewhere else',
  EDQUOT: 'the disk quota is exhausted; free some space or write somewhere else',
  EACCES: 'check the permissions of the file and its directory',
  EPERM: 'check the permissions of the file and its directory',
  ENOENT: 'check that its directory exists',
  EISDIR: 'it is a directory; name a file',
  EROFS: 'the file system is read-only; write somewhere else',
};

/**
 * The error a failed write ends the command with: it names the path and the system's cause
 * (`ENOSPC`), never the stream's own state (`ERR_STREAM_DESTROYED`).
 * @param path - the file written
 * @param error - the stream's error
 * @returns a `CLI_WRITE_FAILED` error (exit 2)
 * @example
 * ```ts
 * writeFailure('out.jsonl', Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })).message;
 * // 'cannot write out.jsonl (ENOSPC: no space left on device, write); the disk is full; free some space or write somewhere else'
 * ```
 */
export function writeFailure(path: string, error: unknown): CliError {
  const code = (error as { code?: unknown } | null)?.code;
  const detail = error instanceof Error ? error.message : String(error);
  const hint = typeof code === 'string' ? hints[code] : undefined;
  return new CliError({
    code: 'CLI_WRITE_FAILED',
    file: path,
    message: `cannot write ${path} (${detail}); ${hint ?? 'check that the path is writable'}`,
    cause: error,
  });
}

/**
 * Opens a file for a command's output. A write that fails (a full disk, a file system gone
 * read-only) ends the command with {@link writeFailure}: the next write and `close()` reject
 * with it, and a writer waiting for `drain` is woken rather than left waiting forever.
 *
 * @param path - the file to create or truncate
 * @returns the output and its `close()`
 * @throws CliError `CLI_WRITE_FAILED` when the file cannot be opened
 * @example
 * ```ts
 * const { output, close } = await createFileOutput('blocks.jsonl');
 * await writeText(output, '{"id":"tb_1"}\n');
 * await close();
 * ```
 */
export async function createFileOutput(path: string): Promise<FileOutput> {
  const stream = createWriteStream(path);
  let failure: CliError | undefined;
  let waiting: (() => void) | undefined;
  // `errored` is set as the write fails, before 'error' is emitted: a write or end() in between
  // would otherwise report the stream's state (ERR_STREAM_DESTROYED) instead of the cause.
  const failed = (): CliError | undefined => {
    if (failure === undefined && stream.errored !== null)
      failure = writeFailure(path, stream.errored);
    return failure;
  };
  // kept for the stream's life: an 'error' without a listener would crash the process
  stream.on('error', (error) => {
    failure ??= writeFailure(path, error);
    const wake = waiting;
    waiting = undefined;
    wake?.();
  });
  await new Promise<void>((done, fail) => {
    stream.once('open', () => done());
    stream.once('error', () => fail(failure));
  });
  const output: CliOutput = {
    write(text) {
      const error = failed();
      if (error !== undefined) throw error;
      return stream.write(text);
    },
    once(_event, listener) {
      if (failed() !== undefined) return listener();
      waiting = listener;
      stream.once('drain', () => {
        if (waiting !== listener) return;
        waiting = undefined;
        listener();
      });
    },
  };
  return {
    output,
    close: () =>
      new Promise<void>((done, fail) => {
        const before = failed();
        if (before !== undefined) return fail(before);
        stream.end((error?: Error | null) => {
          const after = failed();
          if (after !== undefined) fail(after);
          else if (error) fail(writeFailure(path, error));
          else done();
        });
      }),
  };
}
