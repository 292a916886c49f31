/**
 * Tracer hot path: one guarded tool call recorded as logAct + logObserve (two blocks), against
 * a no-op function baseline measured in the same run. Also with a JSONL file sink, flushed at
 * the end (the flush is timed separately).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createBlockValidator,
  createIdGenerator,
  createJsonlFileSink,
  createMemorySink,
  createTracer,
  type Tracer,
} from '@tracewarden/core';
import { measure, mib, report, time } from './lib.js';

const batch = 10_000;
const samples = 15;
const arguments_ = { city: 'bogotá', units: 'metric' };
const output = { forecast: '22°C cloudy' };

// Each trace holds at most this many calls (a long agent run); then a fresh tracer starts, so the
// figures are not dominated by one ever-growing heap.
const callsPerTrace = 5_000;

function callPair(makeTracer: () => Tracer, tracers: Tracer[] = []): () => void {
  let tracer = makeTracer();
  tracers.push(tracer);
  let parent = tracer.blocks()[0]!.id;
  let n = 0;
  return () => {
    if (n === callsPerTrace) {
      tracer = makeTracer();
      tracers.push(tracer);
      parent = tracer.blocks()[0]!.id;
      n = 0;
    }
    const callId = `call_${n++}`;
    tracer.logAct({
      parent_block_id: parent,
      payload: { call_id: callId, name: 'get_weather', arguments: arguments_ },
    });
    tracer.logObserve({ payload: { call_id: callId, output } });
  };
}

function freshTracer(options: Parameters<typeof createTracer>[0] = {}): Tracer {
  const tracer = createTracer(options);
  tracer.logMessage({ role: 'user', content: "what's the weather?" });
  return tracer;
}

let sinkNoop = 0;
const noop = () => {
  sinkNoop++;
};

// The floor under the tracer: the same two blocks through the validator alone, with ids and
// timestamps made the same way.
function validatorPair(): () => void {
  const ids = createIdGenerator();
  const at = new Date().toISOString();
  let validator = createBlockValidator({ traceId: 'tr_bench' });
  let message = '';
  let n = callsPerTrace;
  return () => {
    if (n === callsPerTrace) {
      validator = createBlockValidator({ traceId: 'tr_bench' });
      message = ids.blockId();
      validator.accept({
        id: message,
        trace_id: 'tr_bench',
        sub_type: 'MESSAGE',
        payload: { role: 'user', content: 'hi' },
        created_at: at,
      });
      n = 0;
    }
    const callId = `call_${n++}`;
    const call = ids.blockId();
    validator.accept({
      id: call,
      trace_id: 'tr_bench',
      sub_type: 'TOOL_CALL',
      parent_block_id: message,
      payload: { call_id: callId, name: 'get_weather', arguments: arguments_ },
      created_at: at,
    });
    validator.accept({
      id: ids.blockId(),
      trace_id: 'tr_bench',
      sub_type: 'TOOL_RESULT',
      parent_block_id: call,
      payload: { call_id: callId, output },
      created_at: at,
    });
  };
}

const rows = [
  await measure('no-op function (baseline)', noop, { batch, samples }),
  await measure('validator.accept x2 + 2 ids (floor)', validatorPair(), { batch, samples }),
  await measure(
    'logAct+logObserve, no sink',
    callPair(() => freshTracer()),
    { batch, samples },
  ),
  await measure(
    'logAct+logObserve, memory sink',
    callPair(() => freshTracer({ sinks: [createMemorySink()] })),
    { batch, samples },
  ),
];

// recordEntry: the same call as a seed 004 TraceEntry (what a guard records)
function entryCall(makeTracer: () => Tracer): () => void {
  let tracer = makeTracer();
  let n = 0;
  return () => {
    if (n === callsPerTrace) {
      tracer = makeTracer();
      n = 0;
    }
    const callId = `call_${n++}`;
    tracer.recordEntry({
      call: {
        call_id: callId,
        tool_name: 'get_weather',
        args: [],
        kwargs: arguments_,
        // the form guards write (Date#toISOString)
        timestamp: '2025-01-31T12:00:00.000Z',
        session_id: null,
        metadata: {},
      },
      result: {
        call_id: callId,
        tool_name: 'get_weather',
        status: 'success',
        return_value: output,
        exception: null,
        exception_type: null,
        execution_time_ms: 1,
        retry_count: 0,
        validations: [],
        hallucination: null,
        cost: null,
        timestamp: '2025-01-31T12:00:00.001Z',
      },
    });
  };
}
rows.push(
  await measure(
    'recordEntry (TraceEntry -> 2 blocks), memory sink',
    entryCall(() => freshTracer({ sinks: [createMemorySink()] })),
    { batch, samples },
  ),
);

const directory = mkdtempSync(join(tmpdir(), 'tracewarden-bench-'));
const path = join(directory, 'trace.jsonl');
const sink = createJsonlFileSink(path);
const fileTracers: Tracer[] = [];
rows.push(
  await measure(
    'logAct+logObserve, JSONL file sink',
    callPair(() => freshTracer({ sinks: [sink] }), fileTracers),
    { batch, samples },
  ),
);
const flushed = await time(() => sink.flush());

report('tracer: one tool call = logAct + logObserve (2 blocks)', rows);
const base = rows[0]?.nsPerOp ?? 0;
const added = (name: string) => (rows.find((row) => row.name === name)?.nsPerOp ?? 0) - base;
console.log('\n## summary (wall time, added over the no-op baseline)');
console.log(`no-op baseline                          ${base.toFixed(1).padStart(10)} ns per call`);
for (const [label, name, per] of [
  ['validator alone (floor)', 'validator.accept x2 + 2 ids (floor)', 2],
  ['tracer, no sink', 'logAct+logObserve, no sink', 2],
  ['tracer, memory sink', 'logAct+logObserve, memory sink', 2],
  ['tracer, JSONL file sink', 'logAct+logObserve, JSONL file sink', 2],
] as const) {
  console.log(
    `${label.padEnd(40)}${(added(name) / per).toFixed(1).padStart(10)} ns per block  (target < 1000)`,
  );
}
console.log(
  `${'recordEntry, memory sink'.padEnd(40)}${added('recordEntry (TraceEntry -> 2 blocks), memory sink').toFixed(1).padStart(10)} ns per entry  (2 blocks)`,
);
const blocks = fileTracers.reduce((sum, tracer) => sum + tracer.blocks().length, 0);
console.log(
  `JSONL sink: ${blocks} blocks, ${mib(statSync(path).size)} on disk, final flush ${flushed.ms.toFixed(1)} ms`,
);
console.log(`(no-op calls: ${sinkNoop})`);
rmSync(directory, { recursive: true, force: true });
