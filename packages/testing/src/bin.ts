#!/usr/bin/env node
import { runScriptedServerCommand } from './cli/scripted-server-command.js';

// Ctrl-C (or a SIGTERM) stops the server; a second Ctrl-C exits at once.
const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    controller.abort();
    process.once(signal, () => process.exit(130));
  });
process.exitCode = await runScriptedServerCommand(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  signal: controller.signal,
});
