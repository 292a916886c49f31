import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const script = fileURLToPath(new URL('./__fixtures__/http-exit-script.ts', import.meta.url));

/** A URL on which nothing listens (a port just freed). */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

function run(url: string, mode: string) {
  return new Promise<{ stderr: string; code: number | string | null }>((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=@tracewarden/source', `--import=${tsx}`, script, url, mode],
      // the sink's own timers wait 60 s: a process still alive at 45 s is kept alive by them
      { timeout: 45_000 },
      (error, _stdout, stderr) => {
        const failure = error as (Error & { code?: number; signal?: string }) | null;
        resolve({ stderr, code: failure === null ? 0 : (failure.signal ?? failure.code ?? null) });
      },
    );
  });
}

describe('an HTTP sink at process exit', () => {
  it.each(['buffered', 'waiting'])(
    'never keeps the process alive by its timers, and reports the unsent blocks (%s)',
    async (mode) => {
      const url = await deadUrl();
      const { stderr, code } = await run(url, mode);
      expect(code).toBe(0);
      expect(stderr).toContain(
        `2 trace blocks were still buffered for ${url}/v1/organizations/default when the process exited`,
      );
    },
  );
});
