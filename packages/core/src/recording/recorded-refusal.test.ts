import { describe, expect, it } from 'vitest';
import { createTracer } from '../tracing/create-tracer.js';
import { recordedRefusal } from './recorded-refusal.js';

function traceWith(policy: string | undefined, refusal?: string) {
  const tracer = createTracer();
  const message = tracer.logMessage({ role: 'assistant', content: null });
  const call = tracer.logAct({
    parent_block_id: message.id,
    payload: { call_id: 'c1', name: 'send_email', arguments: { to: 'eve@evil.example' } },
    metadata:
      policy === undefined
        ? {}
        : { policy, violations: [{ message: 'no mail outside acme', action: 'block' }] },
  });
  if (refusal !== undefined)
    tracer.logObserve({
      parent_block_id: call.id,
      payload: { call_id: 'c1', output: refusal },
      metadata: { status: 'failure', refused: true, policy: 'block' },
    });
  return tracer;
}

describe('recordedRefusal: a blocked call run again', () => {
  it('answers the refusal the trace recorded for the call (refuse mode)', () => {
    const tracer = traceWith('block', 'Not sent: ask the user.');
    expect(recordedRefusal(tracer, 'c1', 'send_email', { to: 'eve@evil.example' })).toBe(
      'Not sent: ask the user.',
    );
    // the arguments as JSON text, keys in any order, are the same call
    expect(recordedRefusal(tracer, 'c1', 'send_email', '{"to":"eve@evil.example"}')).toBe(
      'Not sent: ask the user.',
    );
  });

  it('words the refusal from the violations when none was recorded (throw mode)', () => {
    expect(
      recordedRefusal(traceWith('block'), 'c1', 'send_email', { to: 'eve@evil.example' }),
    ).toBe(
      'Tool call send_email was blocked by policy: no mail outside acme. It was not executed.',
    );
  });

  it('is undefined for a call that was not blocked, another tool, other arguments or no id', () => {
    for (const policy of [undefined, 'warn', 'log'])
      expect(
        recordedRefusal(traceWith(policy), 'c1', 'send_email', { to: 'eve@evil.example' }),
      ).toBeUndefined();
    const tracer = traceWith('block', 'no');
    expect(recordedRefusal(tracer, 'c2', 'send_email', { to: 'eve@evil.example' })).toBeUndefined();
    expect(recordedRefusal(tracer, 'c1', 'other', { to: 'eve@evil.example' })).toBeUndefined();
    expect(recordedRefusal(tracer, 'c1', 'send_email', { to: 'bob@acme.example' })).toBeUndefined();
    expect(recordedRefusal(tracer, '', 'send_email', { to: 'eve@evil.example' })).toBeUndefined();
  });
});
