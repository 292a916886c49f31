/**
 * Tracer hot path: one guarded tool call recorded as logAct + logObserve (two blocks), against
 * a no-op function baseline measured in the same run. Also with a JSONL file sink, flushed at
 * the end (the flush is timed separately).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJsonlFileSink, createMemorySink, createTracer, type Tracer } from '@tracewarden/core';
import { measure, mib, report, time } from './lib.js';

const batch = 10_000;
const samples = 15;
const arguments_ = { city: 'bogotá', units: 'metric' };
const output = { forecast: '22°C cloudy' };

function callPair(tracer: Tracer): () => void {
  let n = 0;
  return () => {
    const callId = `call_${n++}`;
    tracer.logAct({ payload: { call_id: callId, name: 'get_weather', arguments: arguments_ } });
    tracer.logObserve({ payload: { call_id: callId, output } });
  };
}

function freshTracer(sinks: Parameters<typeof createTracer>[0] = {}): Tracer {
  const tracer = createTracer(sinks);
  tracer.logMessage({ role: 'user', content: "what's the weather?" });
  return tracer;
}

let sinkNoop = 0;
const noop = () => {
  sinkNoop++;
};

const rows = [
  await measure('no-op function (baseline)', noop, { batch, samples }),
  await measure('logAct+logObserve, no sink', callPair(freshTracer()), { batch, samples }),
  await measure('logAct+logObserve, memory sink', callPair(freshTracer({ sinks: [createMemorySink()] })), {
    batch,
    samples,
  }),
];

const directory = mkdtempSync(join(tmpdir(), 'tracewarden-bench-'));
const path = join(directory, 'trace.jsonl');
const sink = createJsonlFileSink(path);
const fileTracer = freshTracer({ sinks: [sink] });
rows.push(await measure('logAct+logObserve, JSONL file sink', callPair(fileTracer), { batch, samples }));
const flushed = await time(() => fileTracer.flush());

report('tracer: one tool call = logAct + logObserve (2 blocks)', rows);
const base = rows[0]?.nsPerOp ?? 0;
for (const row of rows.slice(1)) {
  console.log(`${row.name.padEnd(48)} ${((row.nsPerOp - base) / 2).toFixed(1).padStart(12)} ns per traced block`);
}
const blocks = fileTracer.blocks().length;
console.log(
  `JSONL sink: ${blocks} blocks, ${mib(statSync(path).size)} on disk, final flush ${flushed.ms.toFixed(1)} ms`,
);
console.log(`(no-op calls: ${sinkNoop})`);
rmSync(directory, { recursive: true, force: true });
