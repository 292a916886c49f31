#!/usr/bin/env node
import { processIo, runCli } from './program/index.js';

// Ctrl-C aborts the running command, which stops reading, prints a summary and exits 130;
// a second Ctrl-C exits at once.
const controller = new AbortController();
process.once('SIGINT', () => {
  controller.abort();
  process.once('SIGINT', () => process.exit(130));
});

process.exitCode = await runCli(process.argv.slice(2), processIo(controller.signal));
