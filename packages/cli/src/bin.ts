#!/usr/bin/env node
import { exitCodes } from './errors/index.js';
import { writeFailure } from './output/index.js';
import { type CliOutput, processIo, runCli } from './program/index.js';

// Ctrl-C aborts the running command, which stops reading, prints a summary and exits 130;
// a second Ctrl-C exits at once.
const controller = new AbortController();
process.once('SIGINT', () => {
  controller.abort();
  process.once('SIGINT', () => process.exit(exitCodes.interrupted));
});
// The reader went away (`tracewarden check run.jsonl | head`): the rest of the output is dropped
// quietly, and the command still runs to its end, so its exit code says what it found (a CI
// gate piped into `head` must not pass a trace with violations). Any other failure
// (`> /dev/full`) is named with its cause rather than thrown as a stack trace.
let readerGone = false;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE' || readerGone) {
    readerGone = true;
    // a write waiting for room is woken: no room will come
    process.stdout.emit('drain');
    return;
  }
  process.stderr.write(`error: ${writeFailure('standard output', error).message}\n`);
  process.exit(exitCodes.usage);
});
const stdout: CliOutput = {
  write: (text) => (readerGone ? true : process.stdout.write(text)),
  get isTTY() {
    return process.stdout.isTTY;
  },
  get columns() {
    return process.stdout.columns;
  },
  once: (event, listener) => process.stdout.once(event, listener),
};

const code = await runCli(process.argv.slice(2), { ...processIo(controller.signal), stdout });
// After Ctrl-C a read may still be pending (a pipe, a FIFO): exit rather than wait for it.
if (code === exitCodes.interrupted) process.exit(code);
process.exitCode = code;
