/**
 * Overhead of `TracewardenCallbackHandler` per model call and per tool call, in one run: the
 * same LangChain runnables invoked with no callbacks (baseline), with a no-op handler (what
 * LangChain's own callback machinery costs any handler), and with the tracewarden handler
 * recording into an in-memory tracer. Handlers are awaited (`LANGCHAIN_CALLBACKS_BACKGROUND=false`,
 * as a blocking handler always is), so their work is inside the measured time. The three
 * variants of each are timed in interleaved rounds (this machine is shared), and the handler's
 * own callbacks are also timed directly, without LangChain's callback manager.
 *
 * - model call: `FakeListChatModel.invoke()` (no network), a two-message request; also with a
 *   handler given no `tracer`, which makes a trace per top-level run (`createTracer()` each);
 * - tool call: `tool().invoke(toolCall)` whose TOOL_CALL is already in the trace (the usual
 *   loop: the handler recorded the model's call), so the handler records its TOOL_RESULT; 100
 *   calls per trace. Two more rows take the path that avoids LangChain's callback manager: the
 *   tool wrapped by `guardTools` (no callbacks), without a tracer (the guard alone) and with the
 *   trace's `tracer` (it records the TOOL_RESULT, as the handler does).
 * - core's recording alone, next to the same LangChain work: the call without callbacks, then
 *   what the handler asks of core for it (the recorder's start and finish of a model call;
 *   `recordToolResult` with the handler's metadata for a tool call). Each has a twin that does
 *   the same LangChain work and builds the same inputs for core without calling it: core's share
 *   is the row minus its twin (until session 9 it was the row minus "no callbacks", which
 *   counted the bench's own inputs as core's: the model row read the answer's `text` getter,
 *   which converts LangChain's content blocks, where the handler reads `content`, ~8-14 µs per
 *   call at load 4-7; the tool row's two `performance.now()` and metadata literal a few µs).
 *   The rest of the handler's cost (handler minus no-op minus core's share) is the adapter's own
 *   conversion, run map and the garbage they leave. Called in a tight loop the same work is 3-5x
 *   cheaper: next to LangChain's ~100 µs of code per call it runs with cold caches (decision
 *   011, sessions 8 and 9).
 * - `guardTools({ tracer })` once more, on the calls that row recorded (oldest first, so in
 *   traces as recent as its own): the guard, the lookup of the model's TOOL_CALL and the guard's
 *   entry and its conversion run as before, and `recordToolResult` returns at its "already
 *   recorded" check. Its difference to the recording row is what recording the TOOL_RESULT
 *   block costs there; its difference to "guardTools (no tracer)" is the rest of the traced
 *   path (decision 011, session 9).
 *
 * Each variant is reported twice: wall time (what a caller waits) and the main thread's CPU time
 * (what the work costs; far steadier than wall time when other processes load the machine). The
 * load averages at the start and the end are printed with the figures.
 *
 * Targets (issue 13): < 50 µs added per model call, < 10 µs added per tool call.
 *
 * The handler is awaited by LangChain whatever `LANGCHAIN_CALLBACKS_BACKGROUND` says (it asks to
 * be, being cheaper inline than queued); the variable is set here for the no-op handler's sake.
 */
process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';

import { loadavg } from 'node:os';
import {
  createAdapterRuntime,
  createTracer,
  type ModelCallResponse,
  type ModelCallStartInput,
  recordToolResult,
} from '@tracewarden/core';
import {
  BaseCallbackHandler,
  FakeListChatModel,
  guardTools,
  HumanMessage,
  TracewardenCallbackHandler,
  tool,
  z,
} from '../packages/langchain/src/__fixtures__/bench-runtime.js';
import { type Measurement, measure, report } from './lib.js';
import { cpuMs } from './paired.js';

const loadAtStart = loadavg();

/** Wall-time and CPU-time medians of each variant of {@link interleaved}. */
interface Timed {
  wall: Measurement[];
  cpu: Measurement[];
}

/**
 * Measures variants of one operation in interleaved rounds (each round times a batch of every
 * variant, the order rotating), so load drift on a shared machine hits all of them alike; each
 * figure is the median of its rounds, in wall time and in main-thread CPU time.
 */
async function interleaved(
  variants: { name: string; fn: () => Promise<unknown> }[],
  rounds = 15,
  batchSize = 1_000,
): Promise<Timed> {
  for (const variant of variants) for (let i = 0; i < batchSize; i++) await variant.fn();
  const wall = variants.map(() => [] as number[]);
  const cpu = variants.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const index = (k + round) % variants.length;
      const variant = variants[index] as (typeof variants)[number];
      const cpuStart = cpuMs();
      const start = process.hrtime.bigint();
      for (let i = 0; i < batchSize; i++) await variant.fn();
      (wall[index] as number[]).push(Number(process.hrtime.bigint() - start) / batchSize);
      (cpu[index] as number[]).push(((cpuMs() - cpuStart) * 1e6) / batchSize);
    }
  }
  const medians = (times: number[][]) =>
    variants.map((variant, index) => {
      const sorted = (times[index] as number[]).slice().sort((a, b) => a - b);
      return {
        name: variant.name,
        nsPerOp: sorted[Math.floor(sorted.length / 2)] ?? 0,
        ops: rounds * batchSize,
      };
    });
  return { wall: medians(wall), cpu: medians(cpu) };
}

class NoopHandler extends BaseCallbackHandler {
  name = 'noop';
  constructor() {
    super({ _awaitHandler: true });
  }
  // as TracewardenCallbackHandler does (LangChain 1.0.0 and 1.4.0 never call a handler's copy()
  // on these paths: their callback managers copy the list of handlers, not the handlers)
  override copy(): BaseCallbackHandler {
    return this;
  }
  // the callbacks TracewardenCallbackHandler implements, doing nothing: what LangChain's
  // callback manager costs such a handler
  handleChatModelStart(): void {}
  handleLLMStart(): void {}
  handleLLMNewToken(): void {}
  handleLLMEnd(): void {}
  handleLLMError(): void {}
  handleToolStart(): void {}
  handleToolEnd(): void {}
  handleToolError(): void {}
  handleChainStart(): void {}
  handleChainEnd(): void {}
  handleChainError(): void {}
}

const batch = 2_000;
const samples = 15;
const options = { batch, samples, warmup: batch };

// ---- model calls
const model = new FakeListChatModel({ responses: ['Sunny in Paris.'] });
const messages = [new HumanMessage('You answer briefly.'), new HumanMessage('Weather in Paris?')];
const noop = new NoopHandler();
let tracer = createTracer();
let handler = new TracewardenCallbackHandler({ tracer, pricing: false });
let calls = 0;
// a fresh trace every 10,000 calls, so the bench does not measure one ever-growing trace
const traced = () => {
  if (++calls % 10_000 === 0) {
    tracer = createTracer();
    handler = new TracewardenCallbackHandler({ tracer, pricing: false });
  }
  return model.invoke(messages, { callbacks: [handler] });
};

// without a tracer, as `new TracewardenCallbackHandler()` is used: each top-level run that
// continues no recorded conversation gets a new trace (createTracer() per call here)
const ownTraces = new TracewardenCallbackHandler({ pricing: false });

// core's recording of the same call, without LangChain's callback manager: the recorder's
// start (the request, whose history core records once) and finish (the answer), as the handler
// calls them (no pricing; its metadata.langchain)
const runtimeOptions = { entryPoint: 'bench' };
let coreTracer = createTracer();
let coreRuntime = createAdapterRuntime({ tracer: coreTracer, pricing: false }, runtimeOptions);
let coreCalls = 0;
const coreRecorded = async () => {
  if (++coreCalls % 10_000 === 0) {
    coreTracer = createTracer();
    coreRuntime = createAdapterRuntime({ tracer: coreTracer, pricing: false }, runtimeOptions);
  }
  const answer = await model.invoke(messages);
  const [request, response] = recorderInputs(answer.content, coreCalls);
  coreRuntime.recorder.start(request).finish(response);
};
/**
 * What the handler hands core's recorder for one call: the request as neutral messages and the
 * answer's text, read from `content` as the handler reads it (the `text` getter converts
 * LangChain's content blocks and costs more than the recording).
 */
function recorderInputs(content: unknown, call: number): [ModelCallStartInput, ModelCallResponse] {
  return [
    {
      provider: 'fake',
      api: 'FakeListChatModel',
      model: 'fake-1',
      messages: [
        { role: 'user', content: 'You answer briefly.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      stream: false,
      tracer: coreTracer,
    },
    {
      text: content as string,
      reasoning: '',
      toolCalls: [],
      metadata: { langchain: { run_id: `run_${call}`, run_name: 'FakeListChatModel' } },
    },
  ];
}
// the twin of coreRecorded: the same LangChain work and inputs, core not called
let inputsMade = 0;
const coreInputsOnly = async () => {
  const answer = await model.invoke(messages);
  return recorderInputs(answer.content, ++inputsMade);
};

const modelRows = await interleaved([
  { name: 'model.invoke, no callbacks', fn: () => model.invoke(messages) },
  { name: 'model.invoke, no-op handler', fn: () => model.invoke(messages, { callbacks: [noop] }) },
  { name: 'model.invoke, TracewardenCallbackHandler', fn: traced },
  {
    name: 'model.invoke, handler without tracer (a trace a call)',
    fn: () => model.invoke(messages, { callbacks: [ownTraces] }),
  },
  { name: "model.invoke, no callbacks, then core's recorder", fn: coreRecorded },
  { name: "model.invoke, no callbacks, then the recorder's inputs only", fn: coreInputsOnly },
]);
globalThis.gc?.();

// ---- tool calls
const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
  name: 'weather',
  description: 'Weather',
  schema: z.object({ city: z.string() }),
});
// The model's calls as the handler records them in a loop, 100 per trace (a long conversation):
// one answer with its TOOL_CALL blocks; each measured tool call answers the next one.
const perTrace = 100;
// tool calls: 7 interleaved variants that take new calls (warm-up + 15 rounds of 1,000), then
// the direct ones
const totalCalls = 7 * 16 * 1_000 + batch * (samples + 1) + 2_010;
const traces: {
  tracer: ReturnType<typeof createTracer>;
  handler: TracewardenCallbackHandler;
  guarded: typeof weather;
}[] = [];
for (let t = 0; t * perTrace < totalCalls; t++) {
  const traceOfCalls = createTracer();
  const answer = traceOfCalls.logMessage({ role: 'assistant', content: null });
  for (let i = t * perTrace; i < (t + 1) * perTrace; i++)
    traceOfCalls.logAct({
      parent_block_id: answer.id,
      payload: { call_id: `call_${i}`, name: 'weather', arguments: { city: 'Paris' } },
    });
  const [guarded] = guardTools([weather], { tracer: traceOfCalls });
  traces.push({
    tracer: traceOfCalls,
    handler: new TracewardenCallbackHandler({ tracer: traceOfCalls }),
    guarded,
  });
}
const [guardedAlone] = guardTools([weather]);
// Calls the guardTools({ tracer }) row recorded, oldest first: the row that does all but record
// the block takes them again, in traces as recent as the recording row's own (a small pool
// cycled over would be warmer in the caches than the traces the recording row touches).
const recordedByGuard: number[] = [];
let answeredNext = 0;
let next = 0;
const call = (index: number) => ({
  name: 'weather',
  args: { city: 'Paris' },
  id: `call_${index}`,
  type: 'tool_call' as const,
});
const traceFor = (index: number) => traces[Math.floor(index / perTrace)] as (typeof traces)[number];
const handlerFor = (index: number) => traceFor(index).handler;

// 2,000 calls recorded ahead, so that row never waits for the recording row (the rounds rotate)
for (let i = 0; i < 2_000; i++) {
  const index = next++;
  recordedByGuard.push(index);
  await traceFor(index).guarded.invoke(call(index));
}
const toolRows = await interleaved([
  { name: 'tool.invoke, no callbacks', fn: () => weather.invoke(call(next++)) },
  {
    name: 'tool.invoke, no-op handler',
    fn: () => weather.invoke(call(next++), { callbacks: [noop] }),
  },
  {
    name: 'tool.invoke, TracewardenCallbackHandler',
    fn: () => {
      const index = next++;
      return weather.invoke(call(index), { callbacks: [handlerFor(index)] });
    },
  },
  { name: 'tool.invoke, guardTools (no tracer)', fn: () => guardedAlone.invoke(call(next++)) },
  {
    name: 'tool.invoke, guardTools({ tracer })',
    fn: () => {
      const index = next++;
      recordedByGuard.push(index);
      return traceFor(index).guarded.invoke(call(index));
    },
  },
  {
    name: "tool.invoke, no callbacks, then core's recordToolResult",
    fn: async () => {
      const index = next++;
      const started = performance.now();
      const output = await weather.invoke(call(index));
      recordToolResult(traceFor(index).tracer, resultInput(index, output.content, started));
    },
  },
  {
    name: "tool.invoke, no callbacks, then recordToolResult's inputs only",
    fn: async () => {
      const index = next++;
      const started = performance.now();
      const output = await weather.invoke(call(index));
      return [traceFor(index).tracer, resultInput(index, output.content, started)];
    },
  },
  {
    name: 'tool.invoke, guardTools({ tracer }), result already in the trace',
    fn: () => {
      const index = recordedByGuard[answeredNext++] as number;
      return traceFor(index).guarded.invoke(call(index));
    },
  },
]);

/**
 * What the handler records for a tool run: the ToolMessage's content, its status, name, time and
 * metadata.langchain.
 */
function resultInput(index: number, content: unknown, started: number) {
  return {
    callId: `call_${index}`,
    output: content,
    metadata: {
      status: 'success',
      tool_name: 'weather',
      execution_time_ms: Math.round((performance.now() - started) * 1000) / 1000,
      langchain: { run_id: `run_${index}`, run_name: 'weather' },
    },
  };
}

// ---- the handler's callbacks called directly: its own work and core's recording, without
// LangChain's callback manager (whose cost any handler pays, see the no-op rows)
const serializedModel = { lc: 1, type: 'not_implemented', id: ['langchain', 'FakeListChatModel'] };
const serializedTool = { lc: 1, type: 'not_implemented', id: ['langchain', 'tools', 'weather'] };
const answerMessage = await model.invoke(messages);
const generation = { text: 'Sunny in Paris.', message: answerMessage };
let direct = createTracer();
let directHandler = new TracewardenCallbackHandler({ tracer: direct, pricing: false });
let directCalls = 0;
const directModel = () => {
  if (++directCalls % 10_000 === 0) {
    direct = createTracer();
    directHandler = new TracewardenCallbackHandler({ tracer: direct, pricing: false });
  }
  const runId = `run_${directCalls}`;
  directHandler.handleChatModelStart(
    serializedModel as never,
    [messages],
    runId,
    undefined,
    {},
    [],
    {
      ls_provider: 'fake',
      ls_model_name: 'fake-1',
    },
  );
  directHandler.handleLLMEnd({ generations: [[generation as never]] }, runId);
};
const toolMessage = {
  type: 'tool',
  content: 'Sunny in Paris',
  tool_call_id: '',
  status: 'success',
};
const directTool = () => {
  const index = next++;
  const runId = `tool_${index}`;
  const handlerOfCall = handlerFor(index);
  handlerOfCall.handleToolStart(
    serializedTool as never,
    '{"city":"Paris"}',
    runId,
    undefined,
    [],
    {},
    'weather',
    `call_${index}`,
  );
  toolMessage.tool_call_id = `call_${index}`;
  handlerOfCall.handleToolEnd(toolMessage, runId);
};
const directRows = [
  await measure('handler callbacks of a model call', directModel, options),
  await measure('handler callbacks of a tool call', directTool, options),
];

report('LangChain model call (FakeListChatModel.invoke), wall time', modelRows.wall);
report('LangChain model call, main-thread CPU time', modelRows.cpu);
report('LangChain tool call (tool().invoke(toolCall)), wall time', toolRows.wall);
report('LangChain tool call, main-thread CPU time', toolRows.cpu);
const added = (rows: { nsPerOp: number }[], row: number, base: number) =>
  (((rows[row]?.nsPerOp ?? 0) - (rows[base]?.nsPerOp ?? 0)) / 1000).toFixed(1);
for (const [what, rows, target] of [
  ['model call', modelRows, 50],
  ['tool call', toolRows, 10],
] as const)
  console.log(
    `\nadded per ${what}: ${added(rows.wall, 2, 0)} µs wall / ${added(rows.cpu, 2, 0)} µs CPU vs no callbacks, ` +
      `${added(rows.wall, 2, 1)} µs wall / ${added(rows.cpu, 2, 1)} µs CPU vs a no-op handler (target < ${target} µs)`,
  );
console.log(
  `added per model call by a handler without tracer (a new trace each): ${added(modelRows.wall, 3, 0)} µs wall / ` +
    `${added(modelRows.cpu, 3, 0)} µs CPU vs no callbacks`,
);
// the handler's cost vs the no-op handler, split: core's recording (the core-alone row vs its
// twin, which does the same LangChain work and builds the same inputs) and the rest (the
// adapter's own work and its garbage)
for (const [what, rows, core, twin] of [
  ['model call', modelRows, 4, 5],
  ['tool call', toolRows, 5, 6],
] as const)
  console.log(
    `of the handler's ${added(rows.cpu, 2, 1)} µs CPU per ${what} vs a no-op handler: core's recording ` +
      `${added(rows.cpu, core, twin)} µs CPU (alone, next to the same call, vs the same inputs built), ` +
      `the adapter and the rest ` +
      `${(Number(added(rows.cpu, 2, 1)) - Number(added(rows.cpu, core, twin))).toFixed(1)} µs CPU`,
  );
for (const [row, what] of [
  [3, 'guardTools (no tracer)'],
  [4, 'guardTools({ tracer })'],
] as const)
  console.log(
    `added per tool call by ${what}, no callbacks: ${added(toolRows.wall, row, 0)} µs wall / ` +
      `${added(toolRows.cpu, row, 0)} µs CPU vs the raw tool`,
  );
// guardTools({ tracer })'s cost over the raw tool, split: the guard alone, the rest of the traced
// path (the lookup of the model's TOOL_CALL, the guard's entry and its conversion) and
// recording the TOOL_RESULT block
console.log(
  `of guardTools({ tracer })'s ${added(toolRows.cpu, 4, 0)} µs CPU per tool call: the guard ` +
    `${added(toolRows.cpu, 3, 0)}, the traced path but the block ${added(toolRows.cpu, 7, 3)}, ` +
    `recording the block ${added(toolRows.cpu, 4, 7)} µs CPU`,
);
console.log('\n## the handler alone (its callbacks called directly, no callback manager)');
for (const row of directRows)
  console.log(`${row.name.padEnd(48)} ${(row.nsPerOp / 1000).toFixed(1).padStart(8)} µs/op`);
const results = traces.reduce(
  (sum, entry) =>
    sum + entry.tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT').length,
  0,
);
console.log(
  `tool results recorded: ${results}; model trace blocks (last trace): ${tracer.blocks().length}`,
);
const loadAtEnd = loadavg();
console.log(
  `load average at start ${loadAtStart.map((load) => load.toFixed(2)).join(' ')}, at end ${loadAtEnd.map((load) => load.toFixed(2)).join(' ')}`,
);
