import { describe, expect, it } from 'vitest';
import { createTracer } from '../tracing/create-tracer.js';
import { currentTracer, ToolCallScope, withTrace } from '../tracing/with-trace.js';
import { validateBlocks } from '../validation/validate-blocks.js';
import { guard } from './guard.js';

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
  it('the first guarded call takes the model call id and records only its TOOL_RESULT', async () => {
    const tracer = traceWithCall('call_1');
    // a guard with every in-memory guard and no tracer of its own (its quiet plan)
    const weather = guard(async (city: string) => `sunny in ${city}`, {
      name: 'weather',
      circuitBreaker: { failureThreshold: 3, recoveryTimeout: 10 },
      rateLimit: { callsPerSecond: 100 },
    });
    const scope = new ToolCallScope('call_1', tracer);
    const value = await scope.run(async () => weather('Oslo'));
    expect(value).toBe('sunny in Oslo');
    expect(scope.claimed).toBe(true);
    const blocks = tracer.blocks();
    expect(blocks.map((block) => block.sub_type)).toEqual(['MESSAGE', 'TOOL_CALL', 'TOOL_RESULT']);
    expect(blocks[2]?.parent_block_id).toBe(blocks[1]?.id);
    expect(blocks[2]?.payload).toMatchObject({ call_id: 'call_1', output: 'sunny in Oslo' });
    expect(validateBlocks(blocks).ok).toBe(true);
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
    expect(tracer.blocks().filter((block) => block.sub_type === 'TOOL_RESULT')).toHaveLength(2);
  });

  it('a call given its own call id does not take the scope; nothing guarded leaves it unclaimed', async () => {
    const tracer = traceWithCall('call_1');
    const weather = guard(async (city: string) => city, { name: 'weather' });
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
