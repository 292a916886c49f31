import type { CliOutput } from '../program/cli-io.js';

/** A progress display for reading a file. */
export interface ProgressBar {
  /** Reports bytes read so far and records handled; redraws at most every 100 ms. */
  update(bytes: number, records?: number): void;
  /** Erases the bar (call before printing anything else to the same output). */
  clear(): void;
}

/** Options of {@link createProgressBar}. */
export interface ProgressBarOptions {
  /** Where to draw; nothing is drawn unless it is a terminal. */
  output: CliOutput;
  /** Total bytes (the file size). */
  total: number;
  /** Shown before the bar, e.g. the file name. */
  label: string;
  /** Clock in ms. @default Date.now */
  now?: () => number;
}

const noProgress: ProgressBar = { update: () => undefined, clear: () => undefined };

function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KiB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

/**
 * A one-line progress bar on a terminal (`\r`-redrawn), and nothing at all when the output is
 * not a terminal, so logs and pipes stay clean.
 *
 * @param options - output, total bytes, label
 * @returns the bar
 * @example
 * ```ts
 * const bar = createProgressBar({ output: process.stderr, total: size, label: 'blocks.jsonl' });
 * bar.update(bytesRead, records); bar.clear();
 * ```
 */
export function createProgressBar(options: ProgressBarOptions): ProgressBar {
  const { output, total, label } = options;
  if (output.isTTY !== true) return noProgress;
  const now = options.now ?? Date.now;
  let last = 0;
  let drawn = false;
  const width = 30;
  return {
    update(bytes, records) {
      const time = now();
      if (time - last < 100) return;
      last = time;
      const ratio = total > 0 ? Math.min(1, bytes / total) : 1;
      const filled = Math.round(ratio * width);
      const bar = `${'='.repeat(filled)}${filled < width ? '>' : ''}${' '.repeat(Math.max(0, width - filled - 1))}`;
      const count = records === undefined ? '' : `  ${records.toLocaleString('en-US')} records`;
      const columns = output.columns ?? 100;
      const text = `${label} [${bar}] ${(ratio * 100).toFixed(0).padStart(3)}%  ${formatBytes(bytes)} / ${formatBytes(total)}${count}`;
      output.write(`\r${text.slice(0, columns - 1)}\u001b[K`);
      drawn = true;
    },
    clear() {
      if (drawn) output.write('\r\u001b[K');
      drawn = false;
    },
  };
}
