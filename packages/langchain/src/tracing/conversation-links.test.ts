import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createTracer, type Tracer } from '@tracewarden/core';
import { describe, expect, it } from 'vitest';
import { expectSoundTrace } from '../__fixtures__/trace-checks.js';
import { aiMessage, weather } from '../__fixtures__/weather-tools.js';
import { TracewardenCallbackHandler } from '../handler/tracewarden-callback-handler.js';
import { guardTools } from '../tools/guard-tools.js';

/** V8's full collection, exposed at run time (no `--expose-gc` needed in the test config). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Collects everything unreachable, WeakRef targets included (kept until the job ends). */
async function collectGarbage(): Promise<void> {
  const gc = collector();
  for (let round = 0; round < 3; round++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
  }
}

/** A manual tool loop (model, tool, model) on `handler`, as its own top-level runs. */
async function toolLoop(handler: TracewardenCallbackHandler, callId: string): Promise<void> {
  const model = fakeModel()
    .respond(
      aiMessage({
        content: '',
        tool_calls: [{ name: 'weather', args: { city: 'Paris' }, id: callId, type: 'tool_call' }],
      }),
    )
    .respond(aiMessage({ content: 'Sunny in Paris.' }));
  const messages: BaseMessage[] = [new HumanMessage('Weather in Paris?')];
  const answer = await model.invoke(messages, { callbacks: [handler] });
  messages.push(answer);
  for (const call of answer.tool_calls ?? [])
    messages.push(await weather.invoke(call, { callbacks: [handler] }));
  await model.invoke(messages, { callbacks: [handler] });
}

async function givenTracerRequest(request: number): Promise<WeakRef<Tracer>> {
  const tracer = createTracer();
  await toolLoop(
    new TracewardenCallbackHandler({ tracer, pricing: false }),
    `call_dropped_given_${request}`,
  );
  return new WeakRef(tracer);
}

async function defaultHandlerRequest(): Promise<WeakRef<Tracer>> {
  const handler = new TracewardenCallbackHandler({ pricing: false });
  await toolLoop(handler, 'call_dropped_default');
  const [tracer] = handler.tracers;
  if (tracer === undefined || handler.tracers.length !== 1) throw new Error('one trace expected');
  return new WeakRef(tracer);
}

async function latestTraceAfter(
  handler: TracewardenCallbackHandler,
  run: number,
): Promise<WeakRef<Tracer>> {
  await toolLoop(handler, `call_bounded_${run}`);
  const tracer = handler.tracers.at(-1);
  if (tracer === undefined) throw new Error('a trace expected');
  return new WeakRef(tracer);
}

describe('conversation links', () => {
  it('keep no trace alive once its handler and tracer are dropped', async () => {
    // (each request in a function of its own: a suspended async function's frame can keep the
    // last values of its locals alive)
    const refs: WeakRef<Tracer>[] = [];
    // one handler and one tracer per request, both dropped after it (serverless)
    for (let request = 0; request < 3; request++) refs.push(await givenTracerRequest(request));
    // a default handler, dropped with the trace it made
    refs.push(await defaultHandlerRequest());
    await collectGarbage();
    expect(refs.map((ref) => ref.deref() === undefined)).toEqual([true, true, true, true]);
  });

  it("keep no more of one handler's traces than its last 100", async () => {
    const handler = new TracewardenCallbackHandler({ pricing: false });
    const refs: WeakRef<Tracer>[] = [];
    for (let run = 0; run < 130; run++) refs.push(await latestTraceAfter(handler, run));
    expect(handler.tracers).toHaveLength(100);
    await collectGarbage();
    const alive = refs.filter((ref) => ref.deref() !== undefined);
    // what the handler keeps, and nothing the index would hold on its own
    expect(alive).toHaveLength(100);
    expect(alive.map((ref) => ref.deref())).toEqual(handler.tracers);
  });

  it("never record a handler's tool run into another handler's trace", async () => {
    // tenant A: its model proposed call_0 weather({city:"Paris"}), the tool has not run yet
    const tracerA = createTracer();
    const handlerA = new TracewardenCallbackHandler({ tracer: tracerA, pricing: false });
    const model = fakeModel().respond(
      aiMessage({
        content: '',
        tool_calls: [{ name: 'weather', args: { city: 'Paris' }, id: 'call_0', type: 'tool_call' }],
      }),
    );
    await model.invoke([new HumanMessage('Tenant A asks.')], { callbacks: [handlerA] });
    // tenant B, another handler, runs a call with the same id, tool and arguments (rebuilt
    // from its own storage): its run is its own trace
    const handlerB = new TracewardenCallbackHandler({ pricing: false });
    await weather.invoke(
      { type: 'tool_call', id: 'call_0', name: 'weather', args: { city: 'Paris' } },
      { callbacks: [handlerB] },
    );
    expect(tracerA.blocks().filter((block) => block.sub_type === 'TOOL_RESULT')).toEqual([]);
    expect(handlerB.tracers).toHaveLength(1);
    const tracerB = handlerB.tracers[0]!;
    expect(tracerB).not.toBe(tracerA);
    const results = expectSoundTrace(tracerB).filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results.map((block) => [block.payload.call_id, block.payload.output])).toEqual([
      ['call_0', 'Sunny in Paris'],
    ]);
  });

  it("never record a guarded tool's run (given no tracer) into another handler's trace", async () => {
    const tracerA = createTracer();
    const handlerA = new TracewardenCallbackHandler({ tracer: tracerA, pricing: false });
    const model = fakeModel().respond(
      aiMessage({
        content: '',
        tool_calls: [{ name: 'weather', args: { city: 'Oslo' }, id: 'call_0', type: 'tool_call' }],
      }),
    );
    await model.invoke([new HumanMessage('Tenant A asks.')], { callbacks: [handlerA] });
    // tenant B runs the guarded tool under its own handler, with the same id, tool and arguments
    const [guarded] = guardTools([weather]);
    const handlerB = new TracewardenCallbackHandler({ pricing: false });
    await guarded.invoke(
      { type: 'tool_call', id: 'call_0', name: 'weather', args: { city: 'Oslo' } },
      { callbacks: [handlerB] },
    );
    expect(tracerA.blocks().filter((block) => block.sub_type === 'TOOL_RESULT')).toEqual([]);
    expect(handlerB.tracers).toHaveLength(1);
    const results = expectSoundTrace(handlerB.tracers[0]!).filter(
      (block) => block.sub_type === 'TOOL_RESULT',
    );
    expect(results.map((block) => [block.payload.call_id, block.payload.output])).toEqual([
      ['call_0', 'Sunny in Oslo'],
    ]);
  });
});
