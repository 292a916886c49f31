import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/index.js';
import { guard } from '../guards/guard.js';
import { parsePolicy } from '../policy/parse-policy.js';
import { createFakeModelCallHandle } from '../testing/fake-model-call-handle.js';
import { createTracer } from '../tracing/create-tracer.js';
import { withTrace } from '../tracing/with-trace.js';
import { createAdapterRuntime, fallbackTraceMaxCalls } from './create-adapter-runtime.js';
import { createStreamGate } from './create-stream-gate.js';
import { recordToolResult } from './record-tool-result.js';
import {
  canonicalJson,
  hasVerdict,
  maxPendingRefusals,
  maxVerdictsPerCallId,
  refusalFor,
  registerReview,
} from './refusals.js';

const messages = [{ role: 'user', content: 'hi' }];

describe('createStreamGate: the one stream lifecycle', () => {
  it('delivers content and tool-call pieces; holds from the completed call on while a policy decides', () => {
    const handle = createFakeModelCallHandle();
    const gate = createStreamGate(handle, { holdToolCalls: true, dropToolCalls: false });
    expect(gate.push({ text: 'Let me ' }, 'content')).toBe('deliver');
    expect(gate.push({ toolCalls: [{ index: 0, id: 'c1', name: 'x' }] }, 'tool-call')).toBe(
      'deliver',
    );
    expect(gate.push(undefined, 'tool-call-end')).toBe('hold');
    expect(gate.push({ text: 'more' }, 'content')).toBe('hold');
    expect(gate.push({ finishReason: 'tool_calls' }, 'finish')).toBe('hold');
    expect(gate.sawToolCalls).toBe(true);
    expect(gate.sawText).toBe(true);
    expect(handle.deltas.map((delta) => delta.text ?? delta.finishReason ?? 'call')).toEqual([
      'Let me ',
      'call',
      'more',
      'tool_calls',
    ]);
    expect(gate.end(false)).toMatchObject({ kind: 'finished' });
    expect(handle.ended?.kind).toBe('finished');
  });

  it('without a policy nothing is held; the finish of a text-only answer is never held', () => {
    const plain = createStreamGate(createFakeModelCallHandle(), {
      holdToolCalls: false,
      dropToolCalls: false,
    });
    expect(plain.push(undefined, 'tool-call-end')).toBe('deliver');
    expect(plain.push({ finishReason: 'stop' }, 'finish')).toBe('deliver');
    const textOnly = createStreamGate(createFakeModelCallHandle(), {
      holdToolCalls: true,
      dropToolCalls: false,
    });
    expect(textOnly.push({ text: 'hi' }, 'content')).toBe('deliver');
    expect(textOnly.push({ finishReason: 'stop' }, 'finish')).toBe('deliver');
  });

  it('refuse mode that removes calls: tool-call parts are dropped', () => {
    const gate = createStreamGate(createFakeModelCallHandle(), {
      holdToolCalls: true,
      dropToolCalls: true,
    });
    expect(gate.push({ toolCalls: [{ index: 0, id: 'c1' }] }, 'tool-call')).toBe('drop');
    expect(gate.push(undefined, 'tool-call-end')).toBe('drop');
    expect(gate.push({ finishReason: 'tool_calls' }, 'finish')).toBe('hold');
  });

  it('a live cut-off delivers the part that was paid for, then stops; once holding, it stops at once', () => {
    const stop = new Error('budget');
    const handle = createFakeModelCallHandle();
    const gate = createStreamGate(handle, { holdToolCalls: false, dropToolCalls: false });
    handle.stopOnNextChunk(stop);
    expect(gate.push({ text: 'paid' }, 'content')).toBe('deliver-then-stop');
    expect(gate.stopError).toBe(stop);
    expect(handle.ended).toEqual({ kind: 'failed', error: stop });
    expect(gate.end(false)).toEqual({ kind: 'failed', error: stop });

    const holding = createFakeModelCallHandle();
    const held = createStreamGate(holding, { holdToolCalls: true, dropToolCalls: false });
    held.push(undefined, 'tool-call-end');
    holding.stopOnNextChunk(stop);
    expect(held.push({ text: 'x' }, 'content')).toBe('stop');
  });

  it('ends as cancelled when the caller aborted, and reading errors go through handle.end', () => {
    const handle = createFakeModelCallHandle();
    expect(
      createStreamGate(handle, { holdToolCalls: false, dropToolCalls: false }).end(true),
    ).toEqual({ kind: 'cancelled' });
    expect(handle.ended).toEqual({ kind: 'cancelled' });
    const failing = createFakeModelCallHandle();
    const gate = createStreamGate(failing, { holdToolCalls: false, dropToolCalls: false });
    const error = new Error('socket closed');
    expect(gate.error(error)).toBe(error);
    expect(failing.ended).toEqual({ kind: 'failed', error });
    const aborted = createFakeModelCallHandle();
    const controller = new AbortController();
    controller.abort();
    createStreamGate(aborted, { holdToolCalls: false, dropToolCalls: false }).error(
      error,
      controller.signal,
    );
    expect(aborted.ended).toEqual({ kind: 'cancelled' });
  });
});

describe('createAdapterRuntime: one options type, checked where it is given', () => {
  it('rejects unknown keys, nested guard typos and wrong values with ConfigurationError naming the option', () => {
    const attempt = (options: unknown) => {
      try {
        createAdapterRuntime(options as never, { entryPoint: 'myAdapter' });
      } catch (error) {
        return error;
      }
      return undefined;
    };
    for (const [options, path] of [
      [{ gaurds: {} }, 'gaurds'],
      [{ guards: { rateLimt: {} } }, 'guards'],
      // a model call is never held waiting for a token: a wait the user set would be ignored
      [{ guards: { rateLimit: { callsPerSecond: 1, maxWaitMs: 2000 } } }, 'guards'],
      [{ guards: { budget: { maxCostPerSession: Number.NaN } } }, 'guards.budget'],
      [{ timeoutSeconds: 1e12 }, 'timeoutSeconds'],
      [{ policy: 'raise "x" if: (c: ToolCall)' }, 'policy'],
      [{ tracer: () => undefined }, 'tracer'],
      [{ onPolicyViolation: 'block' }, 'onPolicyViolation'],
      // what to do about a block, with no policy to block anything
      [{ onPolicyViolation: 'refuse' }, 'onPolicyViolation'],
      [{ refusalMessage: () => 'no' }, 'refusalMessage'],
      [{ recordRaw: 'yes' }, 'recordRaw'],
      [{ pricing: [1, 2] }, 'pricing'],
      [{ pricing: { unknownModell: 'warn' } }, 'pricing.unknownModell'],
      [{ pricing: { overides: {} } }, 'pricing.overides'],
      [{ pricing: { unknownModel: [1, 2] } }, 'pricing.unknownModel'],
      [{ pricing: { unknownModel: { fallback: [1] } } }, 'pricing.unknownModel'],
      [{ pricing: { overrides: { m: 0.15 } } }, 'pricing.overrides.m'],
      [{ pricing: { overrides: { m: ['0.15', '0.6'] } } }, 'pricing.overrides.m'],
      [{ pricing: { overrides: { m: [Number.NaN, 1] } } }, 'pricing.overrides.m'],
      [{ pricing: { overrides: { m: [-1, 1] } } }, 'pricing.overrides.m'],
      [{ pricing: { onWarn: 'log' } }, 'pricing.onWarn'],
      [{ pricing: { at: '2025-01-01' } }, 'pricing.at'],
    ] as const) {
      const error = attempt(options);
      expect(ConfigurationError.isInstance(error), JSON.stringify(options)).toBe(true);
      expect((error as ConfigurationError).path.startsWith(path)).toBe(true);
      expect((error as Error).message).toContain('myAdapter');
    }
    expect(String((attempt({ policy: 'x' }) as Error).message)).toContain('parsePolicy');
    for (const pricing of [
      { overrides: { 'my-model': [0.15, 0.6] }, unknownModel: { fallback: [1, 2] } },
      { unknownModel: 'warn', onWarn: () => undefined, at: new Date('2025-01-01') },
      { unknownModel: 'refuse', overrides: undefined },
    ])
      expect(attempt({ pricing })).toBeUndefined();
  });

  it('accepts guards as options or a list, the adapter’s own options, and resolves a default tracer', () => {
    const runtime = createAdapterRuntime(
      { guards: { rateLimit: { callsPerSecond: 10 } }, includeUsage: false } as never,
      {
        entryPoint: 'myAdapter',
        extraOptions: {
          includeUsage: (value) => (typeof value === 'boolean' ? undefined : 'a boolean'),
        },
      },
    );
    expect(runtime.defaultTracer()).toBe(runtime.defaultTracer());
    expect(runtime.recordRaw).toBe(true);
    expect(runtime.hasTimeout).toBe(false);
  });

  it('with a budget, a model the table cannot price is refused before the call, unless the user chose a rule', () => {
    const tracer = createTracer();
    const strict = createAdapterRuntime(
      { tracer, guards: { budget: { maxCostPerSession: 1 } } },
      { entryPoint: 'myAdapter' },
    );
    expect(() =>
      strict.recorder.start({ provider: 'acme', model: 'local-llm-7b', messages }),
    ).toThrow(expect.objectContaining({ code: 'UNKNOWN_MODEL_PRICE' }));
    const refused = tracer.blocks().at(-1);
    expect(refused?.metadata).toMatchObject({ status: 'failure' });
    const priced = createAdapterRuntime(
      {
        tracer: createTracer(),
        guards: { budget: { maxCostPerSession: 1 } },
        pricing: { overrides: { 'local-llm-7b': [1, 2] } },
      },
      { entryPoint: 'myAdapter' },
    );
    const call = priced.recorder.start({ provider: 'acme', model: 'local-llm-7b', messages });
    call.finish({ text: 'ok', usage: { inputTokens: 1_000_000, outputTokens: 0 } });
    const answer = call.tracer.blocks().at(-1);
    expect((answer?.metadata as { cost?: { cost_usd?: number } } | undefined)?.cost?.cost_usd).toBe(
      1,
    );
  });
});

describe('tool results under the model’s TOOL_CALL', () => {
  function traceWithCall() {
    const tracer = createTracer();
    const message = tracer.logMessage({ role: 'assistant', content: null });
    tracer.logAct({
      parent_block_id: message.id,
      payload: { call_id: 'call_1', name: 'search', arguments: { q: 'x' } },
    });
    return tracer;
  }

  it('recordToolResult records once, under its TOOL_CALL; an unknown call id is not recorded', () => {
    const tracer = traceWithCall();
    expect(
      recordToolResult(tracer, {
        callId: 'call_1',
        output: 'found',
        metadata: { status: 'success' },
      }),
    ).toBe(true);
    expect(recordToolResult(tracer, { callId: 'call_1', output: 'again' })).toBe(false);
    expect(recordToolResult(tracer, { callId: 'call_9', output: 'x' })).toBe(false);
    const results = tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results).toHaveLength(1);
    expect(results[0]?.parent_block_id).toBe(tracer.findToolCall('call_1')?.id);
  });

  it('guard invoke({ callId }): the guarded call’s TOOL_RESULT lands under the model’s TOOL_CALL', async () => {
    const tracer = traceWithCall();
    const search = guard(async (query: { q: string }) => [query.q], { name: 'search' });
    await search.invoke({ callId: 'call_1', tracer }, { q: 'x' });
    const calls = tracer.blocks().filter((block) => block.sub_type === 'TOOL_CALL');
    expect(calls).toHaveLength(1);
    const result = tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.parent_block_id).toBe(calls[0]?.id);
    expect(result?.payload.output).toEqual(['x']);
    expect(result?.metadata).toMatchObject({ status: 'success', tool_name: 'search' });
  });

  it('guard invoke({ callId }) without that TOOL_CALL in the trace records the pair under that id', async () => {
    const tracer = createTracer();
    const search = guard(async () => 'ok', { name: 'search' });
    await search.invoke({ callId: 'call_7', tracer });
    expect(tracer.findToolCall('call_7')).toBeDefined();
  });

  it('guard invoke({ tracer: null, onEntry }) records nothing and hands over the entry', async () => {
    const tracer = traceWithCall();
    const entries: unknown[] = [];
    const search = guard(async () => 'ok', { name: 'search' });
    await search.invoke({
      callId: 'call_1',
      tracer: null,
      onEntry: (entry) => entries.push(entry),
    });
    expect(entries).toEqual([
      expect.objectContaining({ call: expect.objectContaining({ call_id: 'call_1' }) }),
    ]);
    expect(tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT')).toHaveLength(0);
  });
});

describe('refusals handed to the tools', () => {
  const refused = { toolName: 'send', arguments: undefined, refusal: 'no' };
  it('are taken once, and bounded (the oldest go first)', () => {
    registerReview('call_a', refused);
    expect(refusalFor('call_a', 'send', {})).toBe('no');
    expect(refusalFor('call_a', 'send', {})).toBeUndefined();
    for (let i = 0; i <= maxPendingRefusals; i++) registerReview(`bulk_${i}`, refused);
    expect(refusalFor('bulk_0', 'send', {})).toBeUndefined();
    expect(refusalFor(`bulk_${maxPendingRefusals}`, 'send', {})).toBe('no');
    for (let i = 0; i <= maxPendingRefusals; i++) refusalFor(`bulk_${i}`, 'send', {});
  });

  it('a call reviewed twice (nested reviewers) keeps the refusal and both re-checks', () => {
    const args = canonicalJson({ to: 'a' });
    registerReview('call_n', { toolName: 'send', arguments: args, refusal: 'inner says no' });
    registerReview('call_n', { toolName: 'send', arguments: args, refusal: undefined });
    expect(refusalFor('call_n', 'send', { to: 'a' })).toBe('inner says no');
    registerReview('call_r', {
      toolName: 'send',
      arguments: args,
      refusal: undefined,
      recheck: (_name, changed) => ((changed as { to: string }).to === 'b' ? 'first' : undefined),
    });
    registerReview('call_r', {
      toolName: 'send',
      arguments: args,
      refusal: undefined,
      recheck: () => undefined,
    });
    expect(refusalFor('call_r', 'send', { to: 'b' })).toBe('first');
    // another call that reuses the id is judged on its own
    registerReview('call_s', { toolName: 'send', arguments: args, refusal: 'no' });
    registerReview('call_s', {
      toolName: 'send',
      arguments: canonicalJson({ to: 'c' }),
      refusal: undefined,
    });
    expect(refusalFor('call_s', 'send', { to: 'c' })).toBeUndefined();
  });
});

describe('refusals of two conversations that reuse one call id', () => {
  const args = canonicalJson({ to: 'evil@x.com' });
  const traceA = {};
  const traceB = {};

  it('each tool takes its own trace’s verdict, whichever claims first', () => {
    for (const firstClaim of ['a', 'b']) {
      registerReview(
        'call_0',
        { toolName: 'send_email', arguments: args, refusal: 'blocked' },
        traceA,
      );
      registerReview(
        'call_0',
        { toolName: 'get_weather', arguments: '{}', refusal: undefined },
        traceB,
      );
      const claimA = () => refusalFor('call_0', 'send_email', { to: 'evil@x.com' });
      const claimB = () => refusalFor('call_0', 'get_weather', {});
      if (firstClaim === 'a') {
        expect(claimA()).toBe('blocked');
        expect(claimB()).toBeUndefined();
      } else {
        expect(claimB()).toBeUndefined();
        expect(claimA()).toBe('blocked');
      }
      expect(refusalFor('call_0', 'send_email', { to: 'evil@x.com' })).toBeUndefined();
    }
  });

  it('one tool, other arguments: each call is judged on its own arguments', () => {
    registerReview(
      'call_1',
      { toolName: 'send_email', arguments: args, refusal: 'blocked' },
      traceA,
    );
    registerReview(
      'call_1',
      {
        toolName: 'send_email',
        arguments: canonicalJson({ to: 'boss@acme.example' }),
        refusal: undefined,
      },
      traceB,
    );
    expect(refusalFor('call_1', 'send_email', { to: 'boss@acme.example' })).toBeUndefined();
    expect(refusalFor('call_1', 'send_email', { to: 'evil@x.com' })).toBe('blocked');
  });

  it('the same call allowed in one trace and blocked in another is never run where it was blocked', () => {
    for (const order of [0, 1]) {
      const blocked = { toolName: 'send_email', arguments: args, refusal: 'blocked' };
      const allowed = { toolName: 'send_email', arguments: args, refusal: undefined };
      if (order === 0) {
        registerReview('call_2', blocked, traceA);
        registerReview('call_2', allowed, traceB);
      } else {
        registerReview('call_2', allowed, traceB);
        registerReview('call_2', blocked, traceA);
      }
      // the tool cannot tell whose call it runs: both are refused, the blocked one is never run
      expect(refusalFor('call_2', 'send_email', { to: 'evil@x.com' })).toBe('blocked');
      expect(refusalFor('call_2', 'send_email', { to: 'evil@x.com' })).toBe('blocked');
      expect(refusalFor('call_2', 'send_email', { to: 'evil@x.com' })).toBeUndefined();
    }
  });

  it('two conversations sharing one tracer: the allowed call taking its verdict leaves the blocked one’s', () => {
    registerReview(
      'call_5',
      { toolName: 'send_email', arguments: args, refusal: 'blocked' },
      traceA,
    );
    registerReview(
      'call_5',
      {
        toolName: 'send_email',
        arguments: canonicalJson({ to: 'boss@acme.example' }),
        refusal: undefined,
      },
      traceA,
    );
    expect(refusalFor('call_5', 'send_email', { to: 'boss@acme.example' })).toBeUndefined();
    expect(refusalFor('call_5', 'send_email', { to: 'evil@x.com' })).toBe('blocked');
  });

  it('a caller that knows the trace takes only that trace’s verdict', () => {
    registerReview(
      'call_6',
      { toolName: 'send_email', arguments: args, refusal: 'blocked' },
      traceB,
    );
    expect(hasVerdict('call_6', 'send_email', traceA)).toBe(false);
    expect(refusalFor('call_6', 'send_email', { to: 'evil@x.com' }, traceA)).toBeUndefined();
    expect(hasVerdict('call_6', 'send_email', traceB)).toBe(true);
    expect(refusalFor('call_6', 'send_email', { to: 'evil@x.com' }, traceB)).toBe('blocked');
  });

  it('one id keeps its newest maxVerdictsPerCallId verdicts', () => {
    for (let i = 0; i <= maxVerdictsPerCallId; i++)
      registerReview('call_7', { toolName: `tool_${i}`, arguments: '{}', refusal: 'no' }, {});
    expect(hasVerdict('call_7', 'tool_0')).toBe(false);
    expect(hasVerdict('call_7', `tool_${maxVerdictsPerCallId}`)).toBe(true);
    for (let i = 1; i <= maxVerdictsPerCallId; i++) refusalFor('call_7', `tool_${i}`, {});
    expect(hasVerdict('call_7', `tool_${maxVerdictsPerCallId}`)).toBe(false);
  });

  it('a later call reusing the id of an unclaimed one in the same trace does not replace it', () => {
    registerReview(
      'call_3',
      { toolName: 'send_email', arguments: args, refusal: 'blocked' },
      traceA,
    );
    registerReview('call_3', { toolName: 'search', arguments: '{}', refusal: undefined }, traceA);
    expect(refusalFor('call_3', 'send_email', { to: 'evil@x.com' })).toBe('blocked');
    expect(refusalFor('call_3', 'search', {})).toBeUndefined();
  });
});

describe('a policy verdict in refuse mode can keep the call for the tool to refuse', () => {
  it('keepRefusedCall: the call stays in what the caller sees; its review says refusedAtTool', () => {
    const runtime = createAdapterRuntime(
      {
        tracer: createTracer(),
        policy: parsePolicy('raise "no" if:\n    (call: ToolCall)\n    call is tool:danger'),
        onPolicyViolation: 'refuse',
      },
      { entryPoint: 'myAdapter' },
    );
    const call = runtime.recorder.start({
      provider: 'acme',
      model: 'm',
      messages,
      keepRefusedCall: (proposed) => proposed.name === 'danger',
    });
    const outcome = call.finish({
      toolCalls: [
        { id: 'c1', name: 'danger', arguments: '{}' },
        { id: 'c2', name: 'search', arguments: '{}' },
      ],
    });
    expect(outcome.refused).toBe(false);
    expect(outcome.refusalText).toBeUndefined();
    expect(outcome.toolCalls[0]).toMatchObject({ allowed: false, refusedAtTool: true });
    expect(outcome.toolCalls[0]?.refusal).toContain('blocked by policy');
  });
});

describe('the budget on model calls', () => {
  const expensive = {
    pricing: { overrides: { 'wide-model': [0, 1000] as const } },
    guards: { budget: { maxCostPerCall: 1 } },
  };

  it('cuts a stream of wide-script text off before the limit (a token a character, not four)', () => {
    const runtime = createAdapterRuntime({ tracer: createTracer(), ...expensive } as never, {
      entryPoint: 'myAdapter',
    });
    const call = runtime.recorder.start({ provider: 'acme', model: 'wide-model', messages });
    let stop: Error | undefined;
    let delivered = 0;
    for (let i = 0; i < 20 && stop === undefined; i++) {
      stop = call.chunk({ text: '漢'.repeat(100) });
      delivered += 100;
    }
    // $1 at $1000 per million output tokens is 1,000 tokens: about 1,000 such characters
    expect(stop).toMatchObject({ code: 'BUDGET_EXCEEDED' });
    expect(delivered).toBeLessThanOrEqual(1000);
  });

  it('records that a call passed its limit when its real cost did (the live estimate fell short)', () => {
    const tracer = createTracer();
    const runtime = createAdapterRuntime({ tracer, ...expensive } as never, {
      entryPoint: 'myAdapter',
    });
    const call = runtime.recorder.start({ provider: 'acme', model: 'wide-model', messages });
    call.finish({ text: 'short', usage: { inputTokens: 10, outputTokens: 2000 } });
    const decisions = (tracer.blocks().at(-1)?.metadata as { decisions?: unknown[] } | undefined)
      ?.decisions;
    expect(decisions).toContainEqual(
      expect.objectContaining({ guard: 'budget', event: 'exceeded', limit: 'max_cost_per_call' }),
    );
  });
});

describe('createAdapterRuntime: the fallback trace stays bounded', () => {
  function call(runtime: ReturnType<typeof createAdapterRuntime>, n: number) {
    const handle = runtime.recorder.start({
      provider: 'acme',
      model: 'm-1',
      messages: [{ role: 'user', content: `question ${n}` }],
    });
    handle.finish({ text: `answer ${n}` });
    return handle.tracer;
  }

  it('starts a new fallback trace after fallbackTraceMaxCalls calls, releasing the old one', () => {
    const runtime = createAdapterRuntime({ pricing: false }, { entryPoint: 'myAdapter' });
    const first = call(runtime, 0);
    expect(runtime.defaultTracer()).toBe(first);
    for (let n = 1; n < fallbackTraceMaxCalls; n++) expect(call(runtime, n)).toBe(first);
    const next = call(runtime, fallbackTraceMaxCalls);
    expect(next).not.toBe(first);
    expect(runtime.defaultTracer()).toBe(next);
    expect(first.blocks().length).toBe(2 * fallbackTraceMaxCalls);
    expect(next.blocks().map((block) => block.payload.content)).toEqual([
      `question ${fallbackTraceMaxCalls}`,
      `answer ${fallbackTraceMaxCalls}`,
    ]);
  });

  it('defaultTracer(true) counts a call in the same bound; a bare look-up never does', () => {
    const runtime = createAdapterRuntime({ pricing: false }, { entryPoint: 'myAdapter' });
    const first = runtime.defaultTracer(true);
    for (let n = 0; n < 5 * fallbackTraceMaxCalls; n++) expect(runtime.defaultTracer()).toBe(first);
    // calls picked by the adapter (defaultTracer(true)) and started by the recorder share one count
    for (let n = 1; n < fallbackTraceMaxCalls - 1; n++)
      expect(runtime.defaultTracer(true)).toBe(first);
    expect(call(runtime, fallbackTraceMaxCalls - 1)).toBe(first);
    const next = runtime.defaultTracer(true);
    expect(next).not.toBe(first);
    expect(call(runtime, fallbackTraceMaxCalls)).toBe(next);
  });

  it('never replaces a tracer the user gave, as an option or with withTrace', () => {
    const given = createTracer();
    const withOption = createAdapterRuntime({ tracer: given, pricing: false }, { entryPoint: 'a' });
    const inScope = createAdapterRuntime({ pricing: false }, { entryPoint: 'b' });
    const scoped = createTracer();
    for (let n = 0; n <= fallbackTraceMaxCalls; n++) {
      expect(call(withOption, n)).toBe(given);
      expect(withTrace(scoped, () => call(inScope, n))).toBe(scoped);
    }
    expect(given.blocks()).toHaveLength(2 * (fallbackTraceMaxCalls + 1));
  });
});
