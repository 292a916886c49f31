import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createTracer, type Tracer } from '@tracewarden/core';
import { createAgent, createMiddleware } from 'langchain';
import { describe, expect, it } from 'vitest';
import { expectSoundTrace } from '../__fixtures__/trace-checks.js';
import { aiMessage, weather } from '../__fixtures__/weather-tools.js';
import { TracewardenCallbackHandler } from '../handler/tracewarden-callback-handler.js';
import { tracewardenAgentMiddleware } from '../middleware/tracewarden-agent-middleware.js';
import { guardTools } from '../tools/guard-tools.js';
import { linkCall, waitingCallOf } from './conversation-links.js';

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

/**
 * A manual tool loop (model, tool, model) on `handler`, as its own top-level runs; returns the
 * conversation's messages (what a chat server keeps).
 */
async function toolLoop(
  handler: TracewardenCallbackHandler,
  callId: string,
): Promise<BaseMessage[]> {
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
  messages.push(await model.invoke(messages, { callbacks: [handler] }));
  return messages;
}

/** Conversations a test keeps, as a chat server keeps each session's history. */
const keptHistories: BaseMessage[][] = [];

async function givenTracerRequest(request: number): Promise<WeakRef<Tracer>> {
  const tracer = createTracer();
  keptHistories.push(
    await toolLoop(
      new TracewardenCallbackHandler({ tracer, pricing: false }),
      `call_dropped_given_${request}`,
    ),
  );
  return new WeakRef(tracer);
}

async function defaultHandlerRequest(): Promise<WeakRef<Tracer>> {
  const handler = new TracewardenCallbackHandler({ pricing: false });
  keptHistories.push(await toolLoop(handler, 'call_dropped_default'));
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
  it('keep no trace alive once its handler and tracer are dropped, its messages kept', async () => {
    // (each request in a function of its own: a suspended async function's frame can keep the
    // last values of its locals alive)
    keptHistories.length = 0;
    const refs: WeakRef<Tracer>[] = [];
    // one handler and one tracer per request, both dropped after it (serverless)
    for (let request = 0; request < 3; request++) refs.push(await givenTracerRequest(request));
    // a default handler, dropped with the trace it made
    refs.push(await defaultHandlerRequest());
    await collectGarbage();
    expect(refs.map((ref) => ref.deref() === undefined)).toEqual([true, true, true, true]);
    // the app still holds every conversation's messages, the answers recorded among them
    expect(keptHistories.map((messages) => messages.length)).toEqual([4, 4, 4, 4]);
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

  it("limit a guarded tool under two handlers to both handlers' traces, not a third's", async () => {
    // a handler in the model's constructor and one per call: both record this conversation
    const first = new TracewardenCallbackHandler({ pricing: false });
    const second = new TracewardenCallbackHandler({ pricing: false });
    const model = fakeModel().respond(
      aiMessage({
        content: '',
        tool_calls: [{ name: 'weather', args: { city: 'Rome' }, id: 'call_0', type: 'tool_call' }],
      }),
    );
    await model.invoke([new HumanMessage('Weather in Rome?')], { callbacks: [first, second] });
    // another tenant's handler: its model proposed the same call_0 later, still waiting
    const tracerC = createTracer();
    const third = new TracewardenCallbackHandler({ tracer: tracerC, pricing: false });
    const other = fakeModel().respond(
      aiMessage({
        content: '',
        tool_calls: [{ name: 'weather', args: { city: 'Rome' }, id: 'call_0', type: 'tool_call' }],
      }),
    );
    await other.invoke([new HumanMessage('Tenant C asks.')], { callbacks: [third] });
    const [guarded] = guardTools([weather]);
    await guarded.invoke(
      { type: 'tool_call', id: 'call_0', name: 'weather', args: { city: 'Rome' } },
      { callbacks: [first, second] },
    );
    expect(tracerC.blocks().filter((block) => block.sub_type === 'TOOL_RESULT')).toEqual([]);
    const ownResults = [...first.tracers, ...second.tracers].flatMap((tracer) =>
      tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT'),
    );
    expect(ownResults.map((block) => block.payload.call_id)).toContain('call_0');
  });

  it("limit a guarded tool under the agent middleware to the middleware's traces", async () => {
    const tracerC = createTracer();
    const third = new TracewardenCallbackHandler({ tracer: tracerC, pricing: false });
    // another tenant's model proposes the agent's call_0 (same tool and arguments) just before
    // the agent's tool runs: the latest waiting call_0 in the process is the other tenant's
    const otherTenant = createMiddleware({
      name: 'OtherTenant',
      wrapToolCall: async (request, handler) => {
        const other = fakeModel().respond(
          aiMessage({
            content: '',
            tool_calls: [
              { name: 'weather', args: { city: 'Lima' }, id: 'call_0', type: 'tool_call' },
            ],
          }),
        );
        await other.invoke([new HumanMessage('Tenant C asks.')], { callbacks: [third] });
        return handler(request);
      },
    });
    const middleware = tracewardenAgentMiddleware({ pricing: false });
    const agent = createAgent({
      model: fakeModel()
        .respond(
          aiMessage({
            content: '',
            tool_calls: [
              { name: 'weather', args: { city: 'Lima' }, id: 'call_0', type: 'tool_call' },
            ],
          }),
        )
        .respond(aiMessage({ content: 'Sunny in Lima.' })),
      tools: guardTools([weather]),
      middleware: [middleware, otherTenant],
    });
    await agent.invoke({ messages: [new HumanMessage('Weather in Lima?')] });
    expect(tracerC.blocks().filter((block) => block.sub_type === 'TOOL_RESULT')).toEqual([]);
    expect(middleware.tracers).toHaveLength(1);
    const results = expectSoundTrace(middleware.tracers[0]!).filter(
      (block) => block.sub_type === 'TOOL_RESULT',
    );
    expect(results.map((block) => [block.payload.call_id, block.payload.output])).toEqual([
      ['call_0', 'Sunny in Lima'],
    ]);
  });

  it("skip a foreign trace's link before serialising its arguments", () => {
    let reads = 0;
    const args = {
      get city() {
        reads++;
        return 'Quito';
      },
    };
    linkCall(createTracer(), 'call_probe', 'probe_tool', args);
    // looked up among no one's traces: the link is not ours, its arguments are never read
    expect(waitingCallOf(undefined, 'probe_tool', { city: 'Quito' }, new WeakSet())).toBe(
      undefined,
    );
    expect(reads).toBe(0);
    // among everyone's: it is read, and found
    expect(waitingCallOf(undefined, 'probe_tool', { city: 'Quito' })?.callId).toBe('call_probe');
    expect(reads).toBeGreaterThan(0);
  });
});
