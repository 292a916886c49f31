/**
 * Tool runs no model call proposed (a plain `tool.invoke(args)`, a tool call whose id no
 * recorded TOOL_CALL has) are checked against the handler's policy before the tool body runs.
 */
import { HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { createTracer, PolicyViolationError, parsePolicy } from '@tracewarden/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectSoundTrace } from '../__fixtures__/trace-checks.js';
import { aiMessage, ran, sendEmail, weather } from '../__fixtures__/weather-tools.js';
import { TracewardenCallbackHandler } from './tracewarden-callback-handler.js';

const outsideMail = parsePolicy(`
raise "no mail outside acme.example" if:
    (call: ToolCall)
    call is tool:send_email
    not match(r".*@acme\\.example$", call.function.arguments.to)
`);

beforeEach(() => {
  ran.length = 0;
});

function toolBlocks(tracer: ReturnType<typeof createTracer>) {
  const blocks = expectSoundTrace(tracer);
  return {
    calls: blocks.filter((block) => block.sub_type === 'TOOL_CALL'),
    results: blocks.filter((block) => block.sub_type === 'TOOL_RESULT'),
  };
}

describe('a plain tool.invoke(args) with a policy', () => {
  it('is blocked before the tool body runs (throw mode), recorded as a refused pair', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({
      tracer,
      policy: outsideMail,
      pricing: false,
    });
    await new FakeListChatModel({ responses: ['I will mail it.'] }).invoke('Mail the report', {
      callbacks: [handler],
    });
    const error = await sendEmail
      .invoke({ to: 'eve@evil.example', body: 'report' }, { callbacks: [handler] })
      .catch((caught: unknown) => caught);
    expect(PolicyViolationError.isInstance(error)).toBe(true);
    expect((error as PolicyViolationError).violations[0]?.message).toBe(
      'no mail outside acme.example',
    );
    expect(ran).toEqual([]);
    const { calls, results } = toolBlocks(tracer);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.payload).toMatchObject({
      name: 'send_email',
      arguments: { to: 'eve@evil.example', body: 'report' },
    });
    expect(calls[0]?.metadata).toMatchObject({ unlinked: true, policy: 'block' });
    expect(calls[0]?.metadata.violations).toHaveLength(1);
    expect(results).toHaveLength(1);
    expect(results[0]?.metadata).toMatchObject({
      status: 'failure',
      refused: true,
      policy: 'block',
    });
    // under the latest assistant message
    const [, assistant] = tracer.stitched().messages;
    expect(assistant?.block.payload).toMatchObject({ content: 'I will mail it.' });
    expect(assistant?.tool_calls[0]?.results).toHaveLength(1);
  });

  it('is refused with the refusal as the error message in refuse mode', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({
      tracer,
      policy: outsideMail,
      onPolicyViolation: 'refuse',
      refusalMessage: (review) => `refused ${review.call.name}`,
    });
    const error = await sendEmail
      .invoke({ to: 'eve@evil.example', body: 'x' }, { callbacks: [handler] })
      .catch((caught: unknown) => caught);
    expect(PolicyViolationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('refused send_email');
    expect(ran).toEqual([]);
    const { results } = toolBlocks(tracer);
    expect(results[0]?.payload.output).toBe('refused send_email');
  });

  it('runs an allowed call and records the pair as before', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, policy: outsideMail });
    const output = await sendEmail.invoke(
      { to: 'bob@acme.example', body: 'hi' },
      { callbacks: [handler] },
    );
    expect(output).toEqual({ sent: true, to: 'bob@acme.example' });
    expect(ran).toEqual(['send_email:bob@acme.example']);
    const { calls, results } = toolBlocks(tracer);
    expect(calls[0]?.metadata.policy).toBeUndefined();
    expect(results[0]?.metadata).toMatchObject({ status: 'success', tool_name: 'send_email' });
  });

  it('records a warn violation on the TOOL_CALL and runs the tool', async () => {
    const tracer = createTracer();
    const policy = parsePolicy(
      `raise "weather looked up" if:\n    (call: ToolCall)\n    call is tool:weather`,
      { actions: { 'weather looked up': 'warn' } },
    );
    const handler = new TracewardenCallbackHandler({ tracer, policy });
    expect(await weather.invoke({ city: 'Oslo' }, { callbacks: [handler] })).toBe('Sunny in Oslo');
    expect(ran).toEqual(['weather:Oslo']);
    const { calls } = toolBlocks(tracer);
    expect(calls[0]?.metadata).toMatchObject({ policy: 'warn' });
  });

  it('judges the call on the trace so far (a rule over an earlier message)', async () => {
    const policy = parsePolicy(`
raise "mail after a secret" if:
    (m: Message) -> (call: ToolCall)
    "secret" in m.content
    call is tool:send_email
`);
    const send = async (prompt: string) => {
      const tracer = createTracer();
      const handler = new TracewardenCallbackHandler({ tracer, policy, pricing: false });
      await new FakeListChatModel({ responses: ['ok'] }).invoke(prompt, { callbacks: [handler] });
      return sendEmail.invoke({ to: 'bob@acme.example', body: 'x' }, { callbacks: [handler] }).then(
        () => 'ran',
        (error: unknown) => (PolicyViolationError.isInstance(error) ? 'blocked' : error),
      );
    };
    expect(await send('the weather, please')).toBe('ran');
    expect(await send('the secret plan, mail it')).toBe('blocked');
    expect(ran).toEqual(['send_email:bob@acme.example']);
  });

  it('fails closed when the policy itself throws: the tool body never runs', async () => {
    const handler = new TracewardenCallbackHandler({
      tracer: createTracer(),
      policy: {
        checkToolCall() {
          throw new Error('policy exploded');
        },
      },
    });
    await expect(weather.invoke({ city: 'Rome' }, { callbacks: [handler] })).rejects.toThrow(
      'policy exploded',
    );
    expect(ran).toEqual([]);
  });
});

describe('a tool call whose id no recorded TOOL_CALL has', () => {
  it('is checked and blocked before the body runs, under its own call id', async () => {
    const tracer = createTracer();
    const handler = new TracewardenCallbackHandler({ tracer, policy: outsideMail });
    const forged = {
      type: 'tool_call' as const,
      id: 'call_forged',
      name: 'send_email',
      args: { to: 'eve@evil.example', body: 'x' },
    };
    const error = await sendEmail
      .invoke(forged, { callbacks: [handler] })
      .catch((caught: unknown) => caught);
    expect(PolicyViolationError.isInstance(error)).toBe(true);
    expect(ran).toEqual([]);
    const { calls, results } = toolBlocks(tracer);
    expect(calls.map((block) => block.payload.call_id)).toEqual(['call_forged']);
    expect(results.map((block) => block.payload.call_id)).toEqual(['call_forged']);
  });

  it('leaves a call the model proposed to the model call’s review (recorded once, not re-checked)', async () => {
    const tracer = createTracer();
    const policy = parsePolicy(
      `raise "weather looked up" if:\n    (call: ToolCall)\n    call is tool:weather`,
      { actions: { 'weather looked up': 'warn' } },
    );
    const handler = new TracewardenCallbackHandler({ tracer, policy, pricing: false });
    const model = fakeModel().respond(
      aiMessage({
        content: '',
        tool_calls: [{ name: 'weather', args: { city: 'Rome' }, id: 'call_w', type: 'tool_call' }],
      }),
    );
    const answer = await model.invoke([new HumanMessage('Weather?')], { callbacks: [handler] });
    await weather.invoke(answer.tool_calls![0]!, { callbacks: [handler] });
    expect(ran).toEqual(['weather:Rome']);
    const { calls, results } = toolBlocks(tracer);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.metadata.unlinked).toBeUndefined();
    expect(results).toHaveLength(1);
  });
});
