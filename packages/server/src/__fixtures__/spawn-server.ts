import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { StartServerOptions } from '../server/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const repositoryRoot = join(here, '..', '..', '..', '..');

/** A collector running in a child process. */
export interface ServerProcess {
  url: string;
  /** The first start's key, or null when the database already had an organization. */
  key: string | null;
  child: ChildProcess;
  /** SIGKILL: no drain, no close, no rollback but the database's own. */
  kill(): Promise<void>;
  /** SIGTERM and wait (a graceful close). */
  stop(): Promise<void>;
}

/**
 * Starts `server-process.ts` in its own Node process (from source, through tsx).
 * @param options - startServer options (JSON-serialisable)
 */
export async function spawnServer(options: StartServerOptions): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    ['--conditions=@tracewarden/source', '--import', 'tsx', join(here, 'server-process.ts')],
    {
      cwd: repositoryRoot,
      env: { ...process.env, TRACEWARDEN_TEST_SERVER_OPTIONS: JSON.stringify(options) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const exited = once(child, 'exit');
  const first = await Promise.race([
    once(lines, 'line').then(([line]) => line as string),
    exited.then(([code]) => {
      throw new Error(`the server process exited (${code}) before listening: ${errors}`);
    }),
  ]);
  const { url, key } = JSON.parse(first) as { url: string; key: string | null };
  const gone = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      await exited;
    }
  };
  return { url, key, child, kill: () => gone('SIGKILL'), stop: () => gone('SIGTERM') };
}
