// Run by create-http-sink-exit.test.ts: writes blocks to an HTTP sink whose collector is not
// there, never flushes, and lets the process end on its own.
import { createTracer } from '../../tracing/create-tracer.js';
import { createHttpSink } from '../create-http-sink.js';

const [url, mode] = process.argv.slice(2);
const sink = createHttpSink({
  url: url as string,
  apiKey: 'tw_test_key',
  // 'waiting': the first send fails at once and a long retry wait starts
  flushIntervalMs: mode === 'waiting' ? 0 : 60_000,
  retryBaseDelayMs: 60_000,
  maxRetryDelayMs: 60_000,
});
const tracer = createTracer({ sinks: [sink] });
tracer.logMessage({ role: 'user', content: 'hi' });
tracer.logMessage({ role: 'user', content: 'again' });
