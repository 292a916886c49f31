import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const script = fileURLToPath(new URL('./__fixtures__/liveness-script.ts', import.meta.url));

/** Runs the liveness script in its own process; resolves with its output and wall time. */
function run(mode: string) {
  return new Promise<{ stdout: string; code: number; ms: number }>((resolve) => {
    const start = Date.now();
    execFile(
      process.execPath,
      ['--conditions=@tracewarden/source', `--import=${tsx}`, script, mode],
      { timeout: 60_000 },
      (error, stdout) => {
        const failure = error as (Error & { code?: number }) | null;
        resolve({ stdout: stdout.trim(), code: failure?.code ?? 0, ms: Date.now() - start });
      },
    );
  });
}

// The guard's deadlines share one timer per guard (DeadlineQueue), whose hold on the event loop
// must follow the calls in flight as one timer per call would: a process must not end while a
// call waits for its deadline, nor wait for a deadline once every call has settled.
describe('a guard with a timeout, as the process sees it', () => {
  it('keeps the process alive while a call waits for its deadline, then fails the call', async () => {
    const { stdout, code } = await run('hung');
    expect(code).toBe(0);
    expect(stdout).toBe('TIMEOUT after true');
  });

  it('lets the process end once every call has settled, without waiting for a deadline', async () => {
    for (const mode of ['settled', 'io']) {
      const { stdout, code, ms } = await run(mode);
      expect(code).toBe(0);
      expect(stdout).toBe(mode);
      // the deadlines are 30 s away: a process held by the timer would run into execFile's timeout
      expect(ms).toBeLessThan(25_000);
    }
  });
});
