/**
 * A process that records blocks into a JSONL file and then ends without `shutdown()`, in the way
 * given as argv: `exit` (process.exit), `end` (the event loop runs dry), `signal` (SIGTERM to
 * itself while kept alive). argv: path, mode, flushOnExit ('1' or '0').
 */
import { createJsonlFileSink } from '../../sinks/create-jsonl-file-sink.js';
import { createTracer } from '../create-tracer.js';

const [path, mode, flag] = process.argv.slice(2) as [string, string, string];
const tracer = createTracer({
  sinks: [createJsonlFileSink(path)],
  ...(flag === '1' ? { flushOnExit: true } : {}),
});
for (let i = 0; i < 5; i++) tracer.logMessage({ role: 'user', content: `message ${i}` });

if (mode === 'exit') process.exit(0);
if (mode === 'signal') {
  const keepAlive = setInterval(() => {}, 1000);
  process.on('exit', () => clearInterval(keepAlive));
  setTimeout(() => process.kill(process.pid, 'SIGTERM'), 10);
}
