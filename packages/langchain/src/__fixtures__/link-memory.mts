// Run by conversation-links-memory.test.ts in a child process with --expose-gc: links 3000 tool
// calls with 100 KB arguments, each in a trace nobody keeps, then prints the heap growth in MB
// once the traces are collected and the index swept.
import { randomBytes } from 'node:crypto';
import { createTracer } from '@tracewarden/core';
import { linkCall } from '../tracing/conversation-links.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < 3000; i++) {
  const tracer = createTracer();
  // distinct flat strings (a repeated one is a small tree of shared pieces)
  linkCall(tracer, `call_${i}`, 'write_file', { content: randomBytes(50_000).toString('hex') });
}
// collect the traces, let the index's sweep run, collect what it let go
for (let round = 0; round < 5; round++) {
  gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
}
gc();
console.log(JSON.stringify({ grownMb: (process.memoryUsage().heapUsed - before) / 1e6 }));
