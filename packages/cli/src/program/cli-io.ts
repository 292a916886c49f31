/** A text output of the command line: `process.stdout`, `process.stderr`, or a test double. */
export interface CliOutput {
  /** Writes text; returns false when the caller should wait for `drain` (as Node streams do). */
  write(text: string): unknown;
  /** Whether this output is a terminal (progress bars and colour only go to terminals). */
  readonly isTTY?: boolean | undefined;
  /** Terminal width, when a terminal. */
  readonly columns?: number | undefined;
  /** Node streams: waits for `drain` after a write returned false. */
  once?(event: 'drain', listener: () => void): unknown;
}

/** Where the command line reads and writes: the process, or fakes in tests. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  /** Environment (`NO_COLOR`, `LIMIT_*`). @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Aborting it stops the running command cleanly (exit 130), as Ctrl-C does. */
  signal?: AbortSignal;
}

/**
 * The process's own standard streams and environment.
 * @param signal - aborted on SIGINT by the executable
 * @returns a {@link CliIo} over `process`
 * @example
 * ```ts
 * process.exitCode = await runCli(process.argv.slice(2), processIo());
 * ```
 */
export function processIo(signal?: AbortSignal): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    ...(signal === undefined ? {} : { signal }),
  };
}
