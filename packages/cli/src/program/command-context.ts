import {
  createPalette,
  createProgressBar,
  type Palette,
  type ProgressBar,
  useColor,
  writeText,
} from '../output/index.js';
import type { CliIo } from './cli-io.js';

/** What every command needs: the outputs, environment, Ctrl-C signal, and the exit code. */
export interface CommandContext {
  io: CliIo;
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted on Ctrl-C (SIGINT): commands stop reading and print what they have. */
  signal: AbortSignal;
  /** The exit code the command ends with. */
  exitCode: number;
  /** Colours for stdout (identity when stdout is not a terminal or `NO_COLOR` is set). */
  palette: Palette;
  /** Colours for stderr. */
  errorPalette: Palette;
  /** Writes to stdout, erasing any progress bar first; waits for the output to drain. */
  out(text: string): Promise<void>;
  /** Writes to stderr, erasing any progress bar first. */
  err(text: string): void;
  /** Starts a progress bar on stderr (drawn only when stderr is a terminal). */
  progress(label: string, total: number): ProgressBar;
}

/**
 * @param io - the outputs, environment and signal
 * @returns a fresh context with exit code 0
 */
export function createCommandContext(io: CliIo): CommandContext {
  const env = io.env ?? process.env;
  const signal = io.signal ?? new AbortController().signal;
  let bar: ProgressBar | undefined;
  const clear = () => bar?.clear();
  return {
    io,
    env,
    signal,
    exitCode: 0,
    palette: createPalette(useColor(io.stdout, env)),
    errorPalette: createPalette(useColor(io.stderr, env)),
    async out(text) {
      clear();
      await writeText(io.stdout, text);
    },
    err(text) {
      clear();
      io.stderr.write(text);
    },
    progress(label, total) {
      bar = createProgressBar({ output: io.stderr, total, label });
      return bar;
    },
  };
}
