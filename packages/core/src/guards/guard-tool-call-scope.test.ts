import { describe, expect, it } from 'vitest';
import { recordToolResult } from '../recording/record-tool-result.js';
import { createTracer } from '../tracing/create-tracer.js';
import { currentTracer, ToolCallScope, withTrace } from '../tracing/with-trace.js';
import { validateBlocks } from '../validation/validate-blocks.js';
import { guard } from './guard.js';
import { scopedResultMetadata } from './record-result-under-call.js';

function traceWithCall(callId: string) {
  const tracer = createTracer();
  const message = tracer.logMessage({ role: 'assistant', content: null });
  tracer.logAct({
    parent_block_id: message.id,
    payload: { call_id: callId, name: 'weather', arguments: { city: 'Oslo' } },
  });
  return tracer;
}

describe('ToolCallScope: a guarded function inside an adapter tool call', () => {
  it('the guard takes the call and hands its record over; the adapter records what the model reads, with it', async () => {
    const tracer = traceWithCall('call_1');
    // every in-memory guard and no tracer of its own (its quiet plan)
    const weather = guard(async (city: string) => ({ city, sky: 'sunny' }), {
      name: 'weather',
      circuitBreaker: { failureThreshold: 3, recoveryTimeout: 10 },
      rateLimit: { callsPerSecond: 100 },
      retry: { maxRetries: 1, initialDelay: 0 },
    });
    const scope = new ToolCallScope('call_1', tracer);
    // the user's own function: the model reads a text made from the guarded value
    const value = await scope.run(async () => `${(await weather('Oslo')).sky} in Oslo`);
    expect(scope.claimed).toBe(true);
    // nothing recorded by the guard itself: no TOOL_CALL under an id of its own
    expect(tracer.blocks().map((block) => block.sub_type)).toEqual(['MESSAGE', 'TOOL_CALL']);
    expect(scope.entry?.call.call_id).toBe('call_1');
    recordToolResult(tracer, {
      callId: 'call_1',
      output: value,
      metadata: scopedResultMetadata(scope, { status: 'success', tool_name: 'weather' }),
    });
    const result = tracer.blocks()[2];
    expect(result?.parent_block_id).toBe(tracer.blocks()[1]?.id);
    expect(result?.payload).toMatchObject({ call_id: 'call_1', output: 'sunny in Oslo' });
    expect(result?.metadata).toMatchObject({
      status: 'success',
      tool_name: 'weather',
      retry_count: 0,
      guard: { attempts: [{ attempt: 1, outcome: 'success' }] },
    });
    expect(validateBlocks(tracer.blocks()).ok).toBe(true);
  });

  it("keeps the adapter's status over the guard's, without the guard's exception", async () => {
    const scope = new ToolCallScope('call_1', createTracer());
    const flaky = guard(
      async () => {
        throw new Error('upstream down');
      },
      { name: 'flaky' },
    );
    // the user's function recovers from the guard's failure
    await scope.run(() => flaky().catch(() => 'cached'));
    const metadata = scopedResultMetadata(scope, { status: 'success' });
    expect(metadata).toMatchObject({ status: 'success' });
    expect(metadata).not.toHaveProperty('exception');
    expect(scopedResultMetadata(new ToolCallScope('c', undefined), { status: 'x' })).toEqual({
      status: 'x',
    });
  });

  it('a second guarded call in the same tool records a call of its own', async () => {
    const tracer = traceWithCall('call_1');
    const weather = guard(async (city: string) => `sunny in ${city}`, { name: 'weather' });
    // in the run's trace (withTrace), where the second call finds it
    await withTrace(tracer, () =>
      new ToolCallScope('call_1', tracer).run(
        async () => `${await weather('Oslo')}, ${await weather('Bergen')}`,
      ),
    );
    const calls = tracer.blocks().filter((block) => block.sub_type === 'TOOL_CALL');
    expect(calls).toHaveLength(2);
    expect(calls[1]?.payload).toMatchObject({ name: 'weather' });
    expect(calls[1]?.payload.call_id).not.toBe('call_1');
  });

  it('a guard that records elsewhere, or is given its own call id, does not take the call', async () => {
    const tracer = traceWithCall('call_1');
    const audit = createTracer();
    const weather = guard(async (city: string) => city, { name: 'weather' });
    const elsewhere = new ToolCallScope('call_1', tracer);
    await elsewhere.run(() => weather.invoke({ tracer: audit }, 'Oslo'));
    expect(elsewhere.claimed).toBe(false);
    expect(audit.blocks().map((block) => block.sub_type)).toContain('TOOL_RESULT');
    const own = guard(async (city: string) => city, { name: 'own', tracer: audit });
    const ownTracer = new ToolCallScope('call_1', tracer);
    await ownTracer.run(() => own('Oslo'));
    expect(ownTracer.claimed).toBe(false);
    const scope = new ToolCallScope('call_1', tracer);
    await scope.run(() => weather.invoke({ callId: 'call_1', tracer }, 'Oslo'));
    expect(scope.claimed).toBe(false);
    const plain = new ToolCallScope('call_1', tracer);
    await plain.run(async () => 'no guard here');
    expect(plain.claimed).toBe(false);
  });

  it('keeps the enclosing withTrace tracer as currentTracer() inside, and checks its call id', () => {
    const outer = createTracer();
    const inner = createTracer();
    withTrace(outer, () => {
      const scope = new ToolCallScope('call_1', inner);
      expect(scope.run(() => currentTracer())).toBe(outer);
    });
    expect(() => new ToolCallScope('', inner)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
  });
});

describe('a guarded call given the model call id "" (decision 030: absent)', () => {
  it('records its result under the waiting call by the order rule, or as a call of its own', async () => {
    const tracer = createTracer();
    const message = tracer.logMessage({ role: 'assistant', content: null });
    tracer.logAct({
      parent_block_id: message.id,
      payload: { call_id: 'call_generated_1', name: 'weather', arguments: {} },
    });
    const weather = guard(async () => 'sunny', { name: 'weather' });
    await weather.invoke({ callId: '', tracer });
    // the waiting call got the result
    const blocks = tracer.blocks();
    expect(blocks.map((block) => block.sub_type)).toEqual(['MESSAGE', 'TOOL_CALL', 'TOOL_RESULT']);
    expect(blocks[2]?.payload).toMatchObject({ call_id: 'call_generated_1', output: 'sunny' });
    // nothing waits now: a call of its own, with an id of the guard's, never ""
    await weather.invoke({ callId: '', tracer });
    const calls = tracer.blocks().filter((block) => block.sub_type === 'TOOL_CALL');
    expect(calls).toHaveLength(2);
    expect(calls[1]?.payload.call_id).not.toBe('');
    expect(validateBlocks(tracer.blocks()).ok).toBe(true);
  });
});
