import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../policy/index.js';
import { createTracer } from '../tracing/index.js';
import type { Tracer } from '../tracing/types.js';
import { validateBlocks } from '../validation/index.js';
import { createModelCallRecorder } from './create-model-call-recorder.js';
import { recordToolResult } from './record-tool-result.js';
import { canonicalJson, refusalFor, registerReview } from './refusals.js';
import type { NeutralMessage } from './types.js';

const user = (content: string): NeutralMessage => ({ role: 'user', content });
const assistantCalls = (content: string | null, ...names: string[]): NeutralMessage => ({
  role: 'assistant',
  content,
  tool_calls: names.map((name) => ({
    id: '',
    type: 'function' as const,
    function: { name, arguments: '{}' },
  })),
});
const toolOutput = (content: string): NeutralMessage => ({
  role: 'tool',
  tool_call_id: '',
  content,
});

/** Each TOOL_CALL of the trace as `name -> outputs`, and what could not be attached. */
function linked(tracer: Tracer) {
  const stitched = tracer.stitched();
  const calls = stitched.messages.flatMap((message) => message.tool_calls);
  return {
    calls: calls.map((call) => ({
      name: call.block.payload.name,
      outputs: call.results.map((result) => result.payload.output),
    })),
    ids: calls.map((call) => call.block.payload.call_id),
    orphans: stitched.orphans,
  };
}

describe('empty call ids are absent (decision 030) in the recorder', () => {
  it('links a Gemini-style loop ("" on every call and output) call by call, assistant text between included', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    const history: NeutralMessage[] = [user('weather in Paris, then the time?')];
    recorder
      .start({ provider: 'p', model: 'gemini', messages: [...history] })
      .finish({ text: 'Checking.', toolCalls: [{ id: '', name: 'get_weather', arguments: '{}' }] });
    history.push(assistantCalls('Checking.', 'get_weather'), toolOutput('22°C'));
    recorder.start({ provider: 'p', model: 'gemini', messages: [...history] }).finish({
      text: 'Now the time.',
      toolCalls: [{ id: '', name: 'get_time', arguments: '{}' }],
    });
    history.push(assistantCalls('Now the time.', 'get_time'), toolOutput('10:00'));
    recorder
      .start({ provider: 'p', model: 'gemini', messages: [...history] })
      .finish({ text: '22°C at 10:00.' });

    const result = linked(tracer);
    expect(result.calls).toEqual([
      { name: 'get_weather', outputs: ['22°C'] },
      { name: 'get_time', outputs: ['10:00'] },
    ]);
    expect(result.ids.every((id) => id !== '')).toBe(true);
    expect(new Set(result.ids).size).toBe(2);
    expect(result.orphans).toEqual({ tool_calls: [], tool_results: [] });
    // the re-sent assistant turns are the recorded responses, not new messages
    expect(
      tracer
        .blocks()
        .filter((block) => block.sub_type === 'MESSAGE')
        .map((block) => block.payload.content),
    ).toEqual(['weather in Paris, then the time?', 'Checking.', 'Now the time.', '22°C at 10:00.']);
  });

  it('gives calls streamed without an id their own ids, never shared between responses', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    const history: NeutralMessage[] = [user('two lookups')];
    for (const [name, output] of [
      ['lookup_a', 'A'],
      ['lookup_b', 'B'],
    ] as const) {
      const call = recorder.start({
        provider: 'p',
        model: 'gemini',
        messages: [...history],
        stream: true,
      });
      call.chunk({ toolCalls: [{ index: 0, id: '', name, arguments: '{"q":' }] });
      call.chunk({ toolCalls: [{ index: 0, arguments: '1}' }] });
      call.finish();
      history.push(
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: '', type: 'function', function: { name, arguments: '{"q":1}' } }],
        },
        toolOutput(output),
      );
    }
    recorder
      .start({ provider: 'p', model: 'gemini', messages: [...history] })
      .finish({ text: 'ok' });
    const result = linked(tracer);
    // (a stream's id-less call used to be `call_0` in every response: the second one was then
    // taken for the first, and its output landed under the first call)
    expect(result.calls).toEqual([
      { name: 'lookup_a', outputs: ['A'] },
      { name: 'lookup_b', outputs: ['B'] },
    ]);
    expect(new Set(result.ids).size).toBe(2);
    expect(result.orphans).toEqual({ tool_calls: [], tool_results: [] });
  });

  it('pairs parallel calls without ids in their order, one result each (decision 002)', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    recorder.start({ provider: 'p', model: 'gemini', messages: [user('both')] }).finish({
      text: null,
      toolCalls: [
        { id: '', name: 'first', arguments: '{}' },
        { id: '', name: 'second', arguments: '{}' },
      ],
    });
    recorder
      .start({
        provider: 'p',
        model: 'gemini',
        messages: [
          user('both'),
          assistantCalls(null, 'first', 'second'),
          toolOutput('out 1'),
          toolOutput('out 2'),
        ],
      })
      .finish({ text: 'done' });
    const result = linked(tracer);
    expect(result.calls).toEqual([
      { name: 'first', outputs: ['out 1'] },
      { name: 'second', outputs: ['out 2'] },
    ]);
    expect(result.orphans).toEqual({ tool_calls: [], tool_results: [] });
  });

  it('links the outputs of a history recorded for the first time ("" ids, text between call and output)', () => {
    const tracer = createTracer();
    createModelCallRecorder({ tracer })
      .start({
        provider: 'p',
        model: 'gemini',
        messages: [
          user('go'),
          assistantCalls(null, 'search'),
          { role: 'assistant', content: 'still searching…' },
          toolOutput('found it'),
        ],
      })
      .finish({ text: 'Here it is.' });
    const result = linked(tracer);
    expect(result.calls).toEqual([{ name: 'search', outputs: ['found it'] }]);
    expect(result.ids[0]).not.toBe('');
    expect(result.orphans).toEqual({ tool_calls: [], tool_results: [] });
  });

  it('records a result given "" through recordToolResult under the unanswered call, once', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    recorder
      .start({ provider: 'p', model: 'gemini', messages: [user('go')] })
      .finish({ text: null, toolCalls: [{ id: '', name: 'run', arguments: '{}' }] });
    expect(recordToolResult(tracer, { callId: '', output: 'ran' })).toBe(true);
    // the tool message re-sent next turn is that result, not a second one
    recorder
      .start({
        provider: 'p',
        model: 'gemini',
        messages: [user('go'), assistantCalls(null, 'run'), toolOutput('ran')],
      })
      .finish({ text: 'done' });
    expect(linked(tracer).calls).toEqual([{ name: 'run', outputs: ['ran'] }]);
    // with no call in the trace, an id-less result has nothing to answer
    expect(recordToolResult(createTracer(), { callId: '', output: 'x' })).toBe(false);
  });

  it('keeps a policy verdict on the call it is about when ids are empty (refuse mode)', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({
      tracer,
      onPolicyViolation: 'refuse',
      policy: parsePolicy(
        'raise "no email" if:\n    (call: ToolCall)\n    call is tool:send_email',
      ),
    });
    const outcome = recorder
      .start({ provider: 'p', model: 'gemini', messages: [user('go')] })
      .finish({
        text: null,
        toolCalls: [
          { id: '', name: 'read_inbox', arguments: '{}' },
          { id: '', name: 'send_email', arguments: '{}' },
        ],
      });
    // only the blocked call is refused (both have the id "")
    expect(outcome.refused).toBe(true);
    const result = linked(tracer);
    expect(result.calls.map((call) => [call.name, call.outputs.length])).toEqual([
      ['read_inbox', 0],
      ['send_email', 1],
    ]);
    const response = tracer
      .blocks()
      .find((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant');
    expect(response?.metadata.policy).toEqual({
      mode: 'refuse',
      blocked: [result.ids[1]],
      flagged: [result.ids[1]],
    });
  });
});

describe('hasResult', () => {
  it('looks results up without reading the trace again, however long it grows', () => {
    const inner = createTracer();
    let reads = 0;
    const tracer = new Proxy(inner, {
      get(target, key, receiver) {
        if (key === 'blocks')
          return () => {
            reads += 1;
            return target.blocks();
          };
        return Reflect.get(target, key, receiver);
      },
    });
    const recorder = createModelCallRecorder({ tracer });
    const history: NeutralMessage[] = [user('loop')];
    const turns = 400;
    for (let turn = 0; turn < turns; turn++) {
      const id = `call_${turn}`;
      recorder
        .start({ provider: 'p', model: 'm', messages: [...history] })
        .finish({ text: null, toolCalls: [{ id, name: 'step', arguments: '{}' }] });
      // a guard or an executor records the result first (by id), then the loop re-sends it
      recordToolResult(tracer, { callId: id, output: `out ${turn}` });
      history.push(
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id, type: 'function', function: { name: 'step', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: id, content: `out ${turn}` },
      );
    }
    recorder.start({ provider: 'p', model: 'm', messages: [...history] }).finish({ text: 'end' });
    // once, when recording first met this tracer (it used to be once per new result: O(trace) each)
    expect(reads).toBe(1);
    const stitched = inner.stitched();
    const calls = stitched.messages.flatMap((message) => message.tool_calls);
    expect(calls).toHaveLength(turns);
    expect(calls.every((call) => call.results.length === 1)).toBe(true);
  });

  it('sees results the trace held before recording first met the tracer', () => {
    const tracer = createTracer();
    const message = tracer.logMessage({ role: 'assistant', content: null });
    tracer.logAct({
      parent_block_id: message.id,
      payload: { call_id: 'c1', name: 'f', arguments: {} },
    });
    tracer.logObserve({ payload: { call_id: 'c1', output: 'logged by hand' } });
    createModelCallRecorder({ tracer })
      .start({
        provider: 'p',
        model: 'm',
        messages: [user('go'), { role: 'tool', tool_call_id: 'c1', content: 'logged by hand' }],
      })
      .finish({ text: 'ok' });
    expect(tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT')).toHaveLength(1);
  });
});

describe('call ids the model uses again (providers that number calls per answer)', () => {
  const callsWithId = (id: string, ...names: string[]): NeutralMessage => ({
    role: 'assistant',
    content: null,
    tool_calls: names.map((name) => ({
      id,
      type: 'function' as const,
      function: { name, arguments: '{}' },
    })),
  });
  const output = (id: string, content: string): NeutralMessage => ({
    role: 'tool',
    tool_call_id: id,
    content,
  });

  it('records a reused call_0 as a call of its own, its result under it, through the history', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    const history: NeutralMessage[] = [user('inbox, then reply')];
    recorder
      .start({ provider: 'p', model: 'm', messages: [...history] })
      .finish({ toolCalls: [{ id: 'call_0', name: 'get_inbox', arguments: '{}' }] });
    history.push(callsWithId('call_0', 'get_inbox'), output('call_0', 'mail'));
    recorder
      .start({ provider: 'p', model: 'm', messages: [...history] })
      .finish({ toolCalls: [{ id: 'call_0', name: 'send_email', arguments: '{}' }] });
    history.push(callsWithId('call_0', 'send_email'), output('call_0', 'sent'));
    recorder.start({ provider: 'p', model: 'm', messages: [...history] }).finish({ text: 'Done.' });

    const result = linked(tracer);
    expect(result.calls).toEqual([
      { name: 'get_inbox', outputs: ['mail'] },
      { name: 'send_email', outputs: ['sent'] },
    ]);
    expect(result.ids).toEqual(['call_0', 'call_0_2']);
    expect(result.orphans).toEqual({ tool_calls: [], tool_results: [] });
    // a tool's result recorded by the model's id lands under the latest call of that id
    expect(recordToolResult(tracer, { callId: 'call_0', output: 'again' })).toBe(false);
  });

  it("parallel calls sharing one id are two calls, their results in the calls' order, every turn", () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    const history: NeutralMessage[] = [user('inbox and weather')];
    recorder.start({ provider: 'p', model: 'm', messages: [...history] }).finish({
      toolCalls: [
        { id: 'call_0', name: 'get_inbox', arguments: '{}' },
        { id: 'call_0', name: 'get_weather', arguments: '{}' },
      ],
    });
    history.push(
      callsWithId('call_0', 'get_inbox', 'get_weather'),
      output('call_0', 'mail'),
      output('call_0', 'rain'),
    );
    recorder.start({ provider: 'p', model: 'm', messages: [...history] }).finish({
      toolCalls: [
        { id: 'call_0', name: 'read_mail', arguments: '{}' },
        { id: 'call_0', name: 'get_forecast', arguments: '{}' },
      ],
    });
    history.push(
      callsWithId('call_0', 'read_mail', 'get_forecast'),
      output('call_0', 'body'),
      output('call_0', 'sun'),
    );
    recorder.start({ provider: 'p', model: 'm', messages: [...history] }).finish({ text: 'Done.' });

    const result = linked(tracer);
    expect(result.calls).toEqual([
      { name: 'get_inbox', outputs: ['mail'] },
      { name: 'get_weather', outputs: ['rain'] },
      { name: 'read_mail', outputs: ['body'] },
      { name: 'get_forecast', outputs: ['sun'] },
    ]);
    expect(result.ids).toEqual(['call_0', 'call_0_2', 'call_0_3', 'call_0_4']);
    expect(result.orphans).toEqual({ tool_calls: [], tool_results: [] });
    expect(validateBlocks(tracer.blocks()).ok).toBe(true);
  });

  it("a tool executor records results of parallel calls sharing an id in the calls' order", () => {
    const tracer = createTracer();
    createModelCallRecorder({ tracer })
      .start({ provider: 'p', model: 'm', messages: [user('both')] })
      .finish({
        toolCalls: [
          { id: 'call_0', name: 'get_inbox', arguments: '{}' },
          { id: 'call_0', name: 'get_weather', arguments: '{}' },
        ],
      });
    expect(recordToolResult(tracer, { callId: 'call_0', output: 'mail' })).toBe(true);
    expect(recordToolResult(tracer, { callId: 'call_0', output: 'rain' })).toBe(true);
    expect(linked(tracer).calls).toEqual([
      { name: 'get_inbox', outputs: ['mail'] },
      { name: 'get_weather', outputs: ['rain'] },
    ]);
  });

  it("a fresh id for a shared one never takes another call's id in the same response", () => {
    const tracer = createTracer();
    createModelCallRecorder({ tracer })
      .start({ provider: 'p', model: 'm', messages: [user('three')] })
      .finish({
        toolCalls: [
          { id: 'call_0', name: 'a', arguments: '{}' },
          { id: 'call_0', name: 'b', arguments: '{}' },
          { id: 'call_0_2', name: 'c', arguments: '{}' },
        ],
      });
    expect(linked(tracer).ids).toEqual(['call_0', 'call_0_3', 'call_0_2']);
    expect(linked(tracer).calls.map((call) => call.name)).toEqual(['a', 'b', 'c']);
  });

  it('a history seen for the first time keeps both parallel calls that share an id', () => {
    const tracer = createTracer();
    createModelCallRecorder({ tracer })
      .start({
        provider: 'p',
        model: 'm',
        messages: [
          user('both'),
          callsWithId('call_0', 'get_inbox', 'get_weather'),
          output('call_0', 'mail'),
          output('call_0', 'rain'),
        ],
      })
      .finish({ text: 'ok' });
    expect(linked(tracer).calls).toEqual([
      { name: 'get_inbox', outputs: ['mail'] },
      { name: 'get_weather', outputs: ['rain'] },
    ]);
  });

  it('a history seen for the first time: the same call again after its answer is a new call (polling)', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    const poll = callsWithId('call_0', 'job_status');
    recorder
      .start({
        provider: 'p',
        model: 'm',
        messages: [
          user('wait for the job'),
          poll,
          output('call_0', 'running'),
          poll,
          output('call_0', 'done'),
        ],
      })
      .finish({ text: 'The job is done.' });
    const result = linked(tracer);
    expect(result.calls).toEqual([
      { name: 'job_status', outputs: ['running'] },
      { name: 'job_status', outputs: ['done'] },
    ]);
    expect(result.ids).toEqual(['call_0', 'call_0_2']);
  });

  it('a history seen for the first time records each reuse in order', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    recorder
      .start({
        provider: 'p',
        model: 'm',
        messages: [
          user('two steps'),
          callsWithId('call_0', 'get_inbox'),
          output('call_0', 'mail'),
          callsWithId('call_0', 'send_email'),
          output('call_0', 'sent'),
        ],
      })
      .finish({ text: 'Done.' });
    const result = linked(tracer);
    expect(result.calls).toEqual([
      { name: 'get_inbox', outputs: ['mail'] },
      { name: 'send_email', outputs: ['sent'] },
    ]);
    expect(result.orphans).toEqual({ tool_calls: [], tool_results: [] });
  });
});

describe('verdicts on calls without an id ("") handed to the tools that run them', () => {
  it('keeps one verdict per call: a blocked call never runs under its allowed neighbour', () => {
    const blocked = 'refused: mail to attacker@evil.com';
    registerReview('', {
      toolName: 'send_email',
      arguments: canonicalJson({ to: 'attacker@evil.com' }),
      refusal: blocked,
    });
    registerReview('', { toolName: 'get_inbox', arguments: canonicalJson({}), refusal: undefined });
    // taken in the order the tools run, whatever it is
    expect(refusalFor('', 'get_inbox', {})).toBeUndefined();
    expect(refusalFor('', 'send_email', { to: 'attacker@evil.com' })).toBe(blocked);
    // each verdict is taken once
    expect(refusalFor('', 'send_email', { to: 'attacker@evil.com' })).toBeUndefined();
  });
});
