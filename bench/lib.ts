/**
 * Tiny benchmark helpers. Every benchmark compares against a baseline measured in the same
 * process, and prints ratios; nothing here asserts timing.
 */

/** Result of {@link measure}. */
export interface Measurement {
  name: string;
  /** Nanoseconds per operation (median of the samples). */
  nsPerOp: number;
  ops: number;
}

function now(): bigint {
  return process.hrtime.bigint();
}

/**
 * Measures a synchronous or asynchronous function: warms up, then takes `samples` timed batches
 * of `batch` calls and returns the median ns/op.
 */
export async function measure(
  name: string,
  fn: () => unknown,
  options: { batch?: number; samples?: number; warmup?: number } = {},
): Promise<Measurement> {
  const batch = options.batch ?? 10_000;
  const samples = options.samples ?? 15;
  const warmup = options.warmup ?? batch;
  const probe = fn();
  const isAsync = probe instanceof Promise;
  if (isAsync) await probe;
  for (let i = 0; i < warmup; i++) {
    const r = fn();
    if (isAsync) await r;
  }
  const results: number[] = [];
  for (let s = 0; s < samples; s++) {
    const start = now();
    if (isAsync) {
      for (let i = 0; i < batch; i++) await fn();
    } else {
      for (let i = 0; i < batch; i++) fn();
    }
    results.push(Number(now() - start) / batch);
  }
  results.sort((a, b) => a - b);
  return { name, nsPerOp: results[Math.floor(results.length / 2)] ?? 0, ops: batch * samples };
}

/** Times one run of `fn` in milliseconds. */
export async function time<T>(fn: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  const start = now();
  const value = await fn();
  return { ms: Number(now() - start) / 1e6, value };
}

/** Prints a table of measurements with each one's ratio and difference to the first (the baseline). */
export function report(title: string, rows: Measurement[]): void {
  const base = rows[0];
  console.log(`\n## ${title}`);
  for (const row of rows) {
    const ratio = base ? row.nsPerOp / base.nsPerOp : 1;
    const added = base ? row.nsPerOp - base.nsPerOp : 0;
    console.log(
      `${row.name.padEnd(48)} ${row.nsPerOp.toFixed(1).padStart(12)} ns/op  x${ratio.toFixed(2).padStart(6)}  +${added.toFixed(1)} ns`,
    );
  }
}

/** Formats bytes as MiB. */
export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * The node flags that select the packages' TypeScript sources, when this process was started
 * with them (`pnpm bench:source`); none when it runs on the built `dist` (`pnpm bench`). Child
 * processes a bench starts pass these on, so a whole run measures one or the other.
 */
export function packageConditions(): string[] {
  return process.execArgv.includes('--conditions=@tracewarden/source')
    ? ['--conditions=@tracewarden/source']
    : [];
}
