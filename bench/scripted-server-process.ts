/**
 * Runs `@tracewarden/testing`'s scripted server (echo fallback) in its own process for
 * `openai.bench.ts`, so the benchmark's process measures only client work. Prints the URL as one
 * line on stdout; exits when its parent disconnects or on SIGTERM.
 */
import { startScriptedServer } from '@tracewarden/testing';

const server = await startScriptedServer({ fallback: 'echo' });
process.stdout.write(`${server.url}\n`);
const shutdown = () => {
  void server.close().finally(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('disconnect', shutdown);
