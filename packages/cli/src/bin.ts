#!/usr/bin/env node
import { exitCodes } from './errors/index.js';
import { writeFailure } from './output/index.js';
import { processIo, runCli } from './program/index.js';

// Ctrl-C aborts the running command, which stops reading, prints a summary and exits 130;
// a second Ctrl-C exits at once.
const controller = new AbortController();
process.once('SIGINT', () => {
  controller.abort();
  process.once('SIGINT', () => process.exit(exitCodes.interrupted));
});
// The reader went away (`tracewarden view big.jsonl | head`): stop quietly, as Unix tools do.
// Any other failure (`> /dev/full`) is named with its cause rather than thrown as a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  process.stderr.write(`error: ${writeFailure('standard output', error).message}\n`);
  process.exit(exitCodes.usage);
});

const code = await runCli(process.argv.slice(2), processIo(controller.signal));
// After Ctrl-C a read may still be pending (a pipe, a FIFO): exit rather than wait for it.
if (code === exitCodes.interrupted) process.exit(code);
process.exitCode = code;
