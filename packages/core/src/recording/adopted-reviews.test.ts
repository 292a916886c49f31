import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../policy/index.js';
import { createTracer } from '../tracing/index.js';
import { validateBlocks } from '../validation/index.js';
import { createModelCallRecorder } from './create-model-call-recorder.js';
import type { ModelToolCall, NeutralMessage, ReviewedCalls } from './types.js';

/*
 * Two recorders of one model call (an enforcing AI SDK middleware inside the telemetry
 * integration): the inner one reviews and enforces, the outer one records the inner's verdicts
 * in the trace the user reads.
 */

const policy = parsePolicy(`
raise "no deleting" if:
    (call: ToolCall)
    call is tool:delete_all
`);

const prompt: NeutralMessage[] = [{ role: 'user', content: 'tidy up' }];
const lookup: ModelToolCall = { id: 'c1', name: 'lookup', arguments: '{"q":"x"}' };
const deletion: ModelToolCall = { id: 'c2', name: 'delete_all', arguments: '{}' };

/** The inner recorder's verdicts on one answer, as its `onReviewed` hands them over. */
function innerVerdicts(
  mode: 'throw' | 'refuse',
  calls: ModelToolCall[],
  keepRefusedCall?: (call: ModelToolCall) => boolean,
): ReviewedCalls {
  let reviewed: ReviewedCalls | undefined;
  const inner = createModelCallRecorder({
    tracer: createTracer(),
    policy,
    onPolicyViolation: mode,
  }).start({
    provider: 'p',
    model: 'm',
    messages: prompt,
    keepRefusedCall,
    onReviewed: (verdicts) => {
      reviewed = verdicts;
    },
  });
  try {
    inner.finish({ text: null, toolCalls: calls, raw: { body: 'provider payload' } });
  } catch (error) {
    // throw mode: the verdicts were handed over before the rejection
    expect(error).toMatchObject({ code: 'POLICY_VIOLATION' });
  }
  if (reviewed === undefined) throw new Error('onReviewed was not called');
  return reviewed;
}

/** The outer recorder of the call (tracing only), taking in another recorder's verdicts. */
function outerRecorder(verdicts: ReviewedCalls) {
  const tracer = createTracer();
  const outer = createModelCallRecorder({ tracer }).start({
    provider: 'p',
    model: 'm',
    messages: prompt,
    adoptedReviews: () => verdicts,
  });
  return { tracer, outer };
}

const toolCallsOf = (tracer: ReturnType<typeof createTracer>) =>
  tracer.blocks().filter((block) => block.sub_type === 'TOOL_CALL');

describe('verdicts adopted from another recorder of the same call', () => {
  it("hand over the rejected answer in 'throw' mode only: recorded whole by the other recorder, as a call that succeeded", () => {
    expect(innerVerdicts('refuse', [lookup, deletion]).answer).toBeUndefined();
    expect(innerVerdicts('throw', [lookup]).answer).toBeUndefined();
    const verdicts = innerVerdicts('throw', [lookup, deletion]);
    expect(verdicts.answer).toMatchObject({ text: null, toolCalls: [lookup, deletion] });
    // the raw payload stays with the recorder that had it (the other one records raw data only
    // as its own options say)
    expect(verdicts.answer).not.toHaveProperty('raw');
    const { tracer, outer } = outerRecorder(verdicts);
    outer.finish(verdicts.answer);
    const answer = tracer.blocks().find((block) => block.payload.role === 'assistant');
    expect(answer?.metadata).toMatchObject({
      status: 'success',
      policy: { mode: 'throw', blocked: ['c2'] },
    });
    expect(
      toolCallsOf(tracer).map((block) => [block.payload.call_id, block.metadata.policy]),
    ).toEqual([
      ['c1', undefined],
      ['c2', 'block'],
    ]);
    expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  });

  it('are recorded on the TOOL_CALLs, and enforce nothing here (a throw-mode recorder without a policy does not throw)', () => {
    const verdicts = innerVerdicts('refuse', [lookup, deletion], () => true);
    expect(verdicts.mode).toBe('refuse');
    expect(verdicts.reviews.map((review) => [review.decision, review.refusedAtTool])).toEqual([
      ['allow', undefined],
      ['block', true],
    ]);
    const { tracer, outer } = outerRecorder(verdicts);
    const outcome = outer.finish({ text: null, toolCalls: [lookup, deletion] });
    // what the caller sees is this recorder's own verdict: nothing removed, nothing to hand over
    expect(outcome.refused).toBe(false);
    expect(outcome.toolCalls.map((review) => review.allowed)).toEqual([true, true]);
    const [first, second] = toolCallsOf(tracer);
    expect(first?.metadata).not.toHaveProperty('policy');
    expect(second?.metadata).toMatchObject({
      policy: 'block',
      violations: [{ message: 'no deleting', action: 'block' }],
    });
    const answer = tracer.blocks().find((block) => block.payload.role === 'assistant');
    expect(answer?.metadata.policy).toEqual({ mode: 'refuse', blocked: ['c2'], flagged: ['c2'] });
    // the refusal the tool will answer is under the call, as the inner recorder records it
    const result = tracer.blocks().find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.payload).toMatchObject({ call_id: 'c2', output: expect.any(String) });
    expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  });

  it('a call the other recorder removed (refuse) or whose answer it rejected (throw) is recorded after the answer', () => {
    for (const mode of ['refuse', 'throw'] as const) {
      const verdicts = innerVerdicts(mode, [lookup, deletion]);
      const { tracer, outer } = outerRecorder(verdicts);
      if (mode === 'refuse')
        // the answer as the inner recorder delivered it: the blocked call removed
        outer.finish({ text: 'refused', toolCalls: [lookup] });
      else outer.fail(new Error('rejected by the inner recorder'));
      const calls = toolCallsOf(tracer);
      expect(calls.map((block) => block.payload.call_id)).toEqual(['c1', 'c2']);
      expect(calls[1]?.metadata).toMatchObject({ policy: 'block' });
      const answer = tracer.blocks().find((block) => block.payload.role === 'assistant');
      expect(answer?.metadata).toMatchObject({
        status: mode === 'refuse' ? 'success' : 'failure',
        policy: { mode, blocked: ['c2'] },
      });
      // a refused call's refusal is its result; a rejected one has none
      const results = tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT');
      expect(results.map((block) => block.payload.call_id)).toEqual(
        mode === 'refuse' ? ['c2'] : [],
      );
      expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
    }
  });

  it('two calls of one answer under one id: each verdict lands on the call with its arguments', () => {
    const pathPolicy = parsePolicy(`
raise "no deleting the root" if:
    (call: ToolCall)
    call is tool:delete
    call.function.arguments.path == "/"
`);
    const root: ModelToolCall = { id: 'call_0', name: 'delete', arguments: '{"path":"/"}' };
    const tmp: ModelToolCall = { id: 'call_0', name: 'delete', arguments: '{"path":"/tmp"}' };
    let reviewed: ReviewedCalls | undefined;
    createModelCallRecorder({
      tracer: createTracer(),
      policy: pathPolicy,
      onPolicyViolation: 'refuse',
    })
      .start({
        provider: 'p',
        model: 'm',
        messages: prompt,
        onReviewed: (verdicts) => {
          reviewed = verdicts;
        },
      })
      .finish({ text: null, toolCalls: [root, tmp] });
    const tracer = createTracer();
    // the answer as the inner recorder delivered it: the blocked call removed
    createModelCallRecorder({ tracer })
      .start({ provider: 'p', model: 'm', messages: prompt, adoptedReviews: () => reviewed })
      .finish({ text: 'refused one', toolCalls: [tmp] });
    const calls = toolCallsOf(tracer).map((block) => [
      block.payload.arguments,
      block.metadata.policy,
    ]);
    expect(calls).toEqual([
      [{ path: '/tmp' }, undefined],
      [{ path: '/' }, 'block'],
    ]);
    expect(validateBlocks(tracer.blocks()).errors).toEqual([]);
  });

  it('with a policy of its own: the strictest decision, each violation once', () => {
    const verdicts = innerVerdicts('refuse', [deletion], () => true);
    const tracer = createTracer();
    const outer = createModelCallRecorder({
      tracer,
      policy,
      onPolicyViolation: 'refuse',
    }).start({
      provider: 'p',
      model: 'm',
      messages: prompt,
      keepRefusedCall: () => true,
      adoptedReviews: () => verdicts,
    });
    const outcome = outer.finish({ text: null, toolCalls: [deletion] });
    expect(outcome.toolCalls[0]?.allowed).toBe(false);
    expect(toolCallsOf(tracer)[0]?.metadata.violations).toHaveLength(1);
  });

  it('a throw-mode inner recorder hands its verdicts over before it rejects', () => {
    const verdicts = innerVerdicts('throw', [deletion]);
    expect(verdicts).toMatchObject({ mode: 'throw', reviews: [{ decision: 'block' }] });
  });
});
