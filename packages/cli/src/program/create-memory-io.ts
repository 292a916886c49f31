import type { CliIo } from './cli-io.js';

/** A {@link CliIo} that keeps what is written, for tests and embedding. */
export interface MemoryIo extends CliIo {
  /** Everything written to stdout so far. */
  readonly stdoutText: string;
  /** Everything written to stderr so far. */
  readonly stderrText: string;
}

/** Options of {@link createMemoryIo}. */
export interface MemoryIoOptions {
  /** Environment seen by the command. @default {} (no colour, default limits) */
  env?: Readonly<Record<string, string | undefined>>;
  /** Pretend stdout / stderr are terminals. @default false */
  tty?: boolean;
  /** Signal to interrupt the command with. */
  signal?: AbortSignal;
}

/**
 * Creates outputs that record what a command writes, to run {@link runCli} in process.
 *
 * @param options - environment, TTY mode and signal
 * @returns the io, with `stdoutText` / `stderrText`
 * @example
 * ```ts
 * const io = createMemoryIo();
 * const code = await runCli(['validate', 'run.jsonl'], io);
 * console.log(code, io.stdoutText);
 * ```
 */
export function createMemoryIo(options: MemoryIoOptions = {}): MemoryIo {
  let stdoutText = '';
  let stderrText = '';
  const tty = options.tty === true;
  return {
    stdout: {
      isTTY: tty,
      columns: 100,
      write: (text) => {
        stdoutText += text;
        return true;
      },
    },
    stderr: {
      isTTY: tty,
      columns: 100,
      write: (text) => {
        stderrText += text;
        return true;
      },
    },
    env: options.env ?? {},
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    get stdoutText() {
      return stdoutText;
    },
    get stderrText() {
      return stderrText;
    },
  };
}
