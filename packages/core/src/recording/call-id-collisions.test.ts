import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTracer } from '../tracing/index.js';
import type { Tracer } from '../tracing/types.js';
import { validateBlocks } from '../validation/index.js';
import type { ModelCallRecorder } from './create-model-call-recorder.js';
import { createModelCallRecorder } from './create-model-call-recorder.js';
import { recordToolResult } from './record-tool-result.js';
import type { NeutralMessage } from './types.js';

// Two conversations recording into one trace whose model numbers calls per answer (`call_0` in
// each) or gives none (`""`): an agent run inside a tool (agent-as-tool), or two conversations
// sharing an adapter's fallback trace. Each proposed call is a TOOL_CALL of its own, and each
// output lands under the call that produced it.

const user = (content: string): NeutralMessage => ({ role: 'user', content });
const asked = (id: string, name: string, args: Record<string, unknown>): NeutralMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
const output = (id: string, content: string): NeutralMessage => ({
  role: 'tool',
  tool_call_id: id,
  content,
});

/** Each TOOL_CALL of the trace as `[name, call_id, model id, outputs]`, and the orphans. */
function linked(tracer: Tracer) {
  const stitched = tracer.stitched();
  expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  expect(stitched.orphans).toEqual({ tool_calls: [], tool_results: [] });
  return stitched.messages
    .flatMap((message) => message.tool_calls)
    .map((call) => [
      call.block.payload.name,
      call.block.payload.call_id,
      (call.block.metadata as { chat_event?: { id?: unknown } } | undefined)?.chat_event?.id,
      call.results.map((result) => result.payload.output),
    ]);
}

/** One model call: the request, then an answer with one call or a text. */
function turn(
  recorder: ModelCallRecorder,
  messages: NeutralMessage[],
  answer: { call: [string, string, Record<string, unknown>] } | { text: string },
): void {
  const handle = recorder.start({ provider: 'p', model: 'm', messages });
  if ('text' in answer) handle.finish({ text: answer.text });
  else {
    const [id, name, args] = answer.call;
    handle.finish({ text: null, toolCalls: [{ id, name, arguments: JSON.stringify(args) }] });
  }
}

/**
 * The agent-as-tool run: the outer model calls `research`, whose tool runs an inner
 * conversation that calls `search`; both models give the same id. `resultsBy` says how tool
 * results reach the trace: through the next request only (middleware), or also recorded when
 * the tool ends (guards, telemetry) by `recordToolResult`.
 */
function agentAsTool(id: string, resultsBy: 'requests' | 'tool-end'): Tracer {
  const tracer = createTracer();
  const recorder = createModelCallRecorder({ tracer });
  const outer = [user('question')];
  turn(recorder, [...outer], { call: [id, 'research', { topic: 't' }] });
  outer.push(asked(id, 'research', { topic: 't' }));
  // the research tool runs its own conversation
  const inner = [user('research t')];
  turn(recorder, [...inner], { call: [id, 'search', { q: 'x' }] });
  inner.push(asked(id, 'search', { q: 'x' }));
  if (resultsBy === 'tool-end')
    recordToolResult(tracer, {
      callId: id,
      output: 'search hits',
      metadata: { status: 'success', tool_name: 'search' },
    });
  inner.push(output(id, 'search hits'));
  turn(recorder, [...inner], { text: 'research: 42' });
  if (resultsBy === 'tool-end')
    recordToolResult(tracer, {
      callId: id,
      output: 'research: 42',
      metadata: { status: 'success', tool_name: 'research' },
    });
  outer.push(output(id, 'research: 42'));
  turn(recorder, [...outer], { text: 'answer 42' });
  return tracer;
}

describe('an agent run inside a tool, recording into the same trace', () => {
  for (const resultsBy of ['requests', 'tool-end'] as const) {
    it(`keeps the inner call_0 as a call of its own, each output under its call (results by ${resultsBy})`, () => {
      expect(linked(agentAsTool('call_0', resultsBy))).toEqual([
        ['research', 'call_0', undefined, ['research: 42']],
        ['search', 'call_0_2', 'call_0', ['search hits']],
      ]);
    });

    it(`links "" outputs to the call of the conversation they follow (results by ${resultsBy})`, () => {
      const calls = linked(agentAsTool('', resultsBy));
      expect(calls.map(([name, , , outputs]) => [name, outputs])).toEqual([
        ['research', ['research: 42']],
        ['search', ['search hits']],
      ]);
    });
  }
});

describe('two conversations sharing one trace (an adapter without a trace of their own)', () => {
  afterEach(() => vi.restoreAllMocks());

  /** Both conversations ask, then both models answer with call_0 before either tool ran. */
  function bothWaiting() {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    const a = recorder.start({ provider: 'p', model: 'm', messages: [user('weather in A?')] });
    const b = recorder.start({ provider: 'p', model: 'm', messages: [user('weather in B?')] });
    b.finish({ text: null, toolCalls: [{ id: 'call_0', name: 'w', arguments: '{"city":"B"}' }] });
    a.finish({ text: null, toolCalls: [{ id: 'call_0', name: 'w', arguments: '{"city":"A"}' }] });
    const next = (city: string) => [
      user(`weather in ${city}?`),
      asked('call_0', 'w', { city }),
      output('call_0', `weather ${city}`),
    ];
    return { tracer, recorder, next };
  }

  it('records both calls, and each conversation’s output under its own call, in any order', () => {
    for (const order of [
      ['A', 'B'],
      ['B', 'A'],
    ]) {
      const { tracer, recorder, next } = bothWaiting();
      for (const city of order) turn(recorder, next(city), { text: `sunny in ${city}` });
      expect(linked(tracer)).toEqual([
        ['w', 'call_0', undefined, ['weather B']],
        ['w', 'call_0_2', 'call_0', ['weather A']],
      ]);
    }
  });

  it('a result recorded when its tool ends finds its call by tool arguments, without a warning', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const { tracer, recorder, next } = bothWaiting();
    for (const city of ['B', 'A'])
      recordToolResult(tracer, {
        callId: 'call_0',
        output: `weather ${city}`,
        metadata: { status: 'success', tool_name: 'w' },
        arguments: { city },
      });
    for (const city of ['A', 'B']) turn(recorder, next(city), { text: `sunny in ${city}` });
    expect(linked(tracer)).toEqual([
      ['w', 'call_0', undefined, ['weather B']],
      ['w', 'call_0_2', 'call_0', ['weather A']],
    ]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('results nothing tells apart are both recorded, one per call, with one warning', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const { tracer } = bothWaiting();
    for (const city of ['A', 'B'])
      expect(
        recordToolResult(tracer, {
          callId: 'call_0',
          output: `weather ${city}`,
          metadata: { status: 'success', tool_name: 'w' },
        }),
      ).toBe(true);
    const outputs = linked(tracer).map(([, , , results]) => results);
    expect(outputs.flat().sort()).toEqual(['weather A', 'weather B']);
    expect(outputs.every((results) => (results as unknown[]).length === 1)).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain('"call_0"');
  });
});

describe('one conversation still records a re-sent call once', () => {
  it('a call proposed while the request waits on the same id is the recorded call', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    turn(recorder, [user('q')], { call: ['call_0', 'w', { city: 'A' }] });
    // the history re-sent without the answer yet, and the same call proposed again
    turn(recorder, [user('q'), asked('call_0', 'w', { city: 'A' }), user('go on')], {
      call: ['call_0', 'w', { city: 'A' }],
    });
    expect(linked(tracer)).toEqual([['w', 'call_0', undefined, []]]);
  });
});
