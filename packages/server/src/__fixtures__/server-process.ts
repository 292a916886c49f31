/**
 * A collector in a process of its own, for fault tests: started with
 * `TRACEWARDEN_TEST_SERVER_OPTIONS` (JSON: startServer options), it prints one JSON line
 * `{ "url", "key", "pid" }` once listening and runs until killed.
 */
import { startServer } from '../server/index.js';

const options = JSON.parse(process.env.TRACEWARDEN_TEST_SERVER_OPTIONS ?? '{}') as Parameters<
  typeof startServer
>[0];
const server = await startServer({ port: 0, env: {}, ...options, onError: () => {} });
process.stdout.write(
  `${JSON.stringify({ url: server.url, key: server.initialApiKey?.key ?? null, pid: process.pid })}\n`,
);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
