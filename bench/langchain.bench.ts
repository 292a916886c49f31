/**
 * Overhead of `TracewardenCallbackHandler` per model call and per tool call, in one run: the
 * same LangChain runnables invoked with no callbacks (baseline), with a no-op handler (what
 * LangChain's own callback machinery costs any handler), and with the tracewarden handler
 * recording into an in-memory tracer. Handlers are awaited (`LANGCHAIN_CALLBACKS_BACKGROUND=false`,
 * as a blocking handler always is), so their work is inside the measured time.
 *
 * - model call: `FakeListChatModel.invoke()` (no network), a two-message request;
 * - tool call: `tool().invoke(toolCall)` whose TOOL_CALL is already in the trace (the usual
 *   loop: the handler recorded the model's call), so the handler records its TOOL_RESULT.
 *
 * Targets (issue 13): < 50 µs added per model call, < 10 µs added per tool call.
 */
process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';

import { createTracer } from '@tracewarden/core';
import {
  BaseCallbackHandler,
  FakeListChatModel,
  HumanMessage,
  TracewardenCallbackHandler,
  tool,
  z,
} from '../packages/langchain/src/__fixtures__/bench-runtime.js';
import { measure, report } from './lib.js';

class NoopHandler extends BaseCallbackHandler {
  name = 'noop';
  constructor() {
    super({ _awaitHandler: true });
  }
  handleChatModelStart(): void {}
  handleLLMEnd(): void {}
  handleToolStart(): void {}
  handleToolEnd(): void {}
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

const modelRows = [
  await measure('model.invoke, no callbacks', () => model.invoke(messages), options),
  await measure('model.invoke, no-op handler', () => model.invoke(messages, { callbacks: [noop] }), options),
  await measure('model.invoke, TracewardenCallbackHandler', traced, options),
];
globalThis.gc?.();

// ---- tool calls
const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
  name: 'weather',
  description: 'Weather',
  schema: z.object({ city: z.string() }),
});
const toolTracer = createTracer();
const toolHandler = new TracewardenCallbackHandler({ tracer: toolTracer });
const total = batch * (samples + 1) * 3 + 10;
// the model's calls, as the handler records them in a loop: one answer, its TOOL_CALL blocks
const answer = toolTracer.logMessage({ role: 'assistant', content: null });
for (let i = 0; i < total; i++)
  toolTracer.logAct({
    parent_block_id: answer.id,
    payload: { call_id: `call_${i}`, name: 'weather', arguments: { city: 'Paris' } },
  });
let next = 0;
const call = () => ({ name: 'weather', args: { city: 'Paris' }, id: `call_${next++}`, type: 'tool_call' as const });

const toolRows = [
  await measure('tool.invoke, no callbacks', () => weather.invoke(call()), options),
  await measure('tool.invoke, no-op handler', () => weather.invoke(call(), { callbacks: [noop] }), options),
  await measure(
    'tool.invoke, TracewardenCallbackHandler',
    () => weather.invoke(call(), { callbacks: [toolHandler] }),
    options,
  ),
];

report('LangChain model call (FakeListChatModel.invoke)', modelRows);
report('LangChain tool call (tool().invoke(toolCall))', toolRows);
const added = (rows: { nsPerOp: number }[], base: number) =>
  ((rows[2]?.nsPerOp ?? 0) - (rows[base]?.nsPerOp ?? 0)) / 1000;
console.log(
  `\nadded per model call: ${added(modelRows, 0).toFixed(1)} µs vs no callbacks, ${added(modelRows, 1).toFixed(1)} µs vs a no-op handler (target < 50 µs)`,
);
console.log(
  `added per tool call:  ${added(toolRows, 0).toFixed(1)} µs vs no callbacks, ${added(toolRows, 1).toFixed(1)} µs vs a no-op handler (target < 10 µs)`,
);
const results = toolTracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT').length;
console.log(`tool results recorded: ${results}; model trace blocks (last trace): ${tracer.blocks().length}`);
