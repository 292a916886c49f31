import { describe, expect, it } from 'vitest';
import { createBudget } from '../guards/create-budget.js';
import { createMemorySink } from '../sinks/index.js';
import { createTracer } from '../tracing/index.js';
import { validateBlocks } from '../validation/index.js';
import { createModelCallGuards } from './create-model-call-guards.js';
import { createModelCallRecorder } from './create-model-call-recorder.js';

// A model call still in flight when its tracer shuts down (a stream nobody finished reading, a
// script ending mid-answer) is recorded as cancelled with what streamed in, and reaches the
// sinks: `shutdown()` loses nothing.

describe('a model call in flight at the tracer’s shutdown', () => {
  it('is recorded as cancelled with its partial answer, reaches the sinks, and frees its budget', async () => {
    const sink = createMemorySink();
    const tracer = createTracer({ sinks: [sink] });
    const budget = createBudget({ maxCostPerSession: 1, estimateCost: 0.5 });
    const recorder = createModelCallRecorder({ tracer, guards: createModelCallGuards({ budget }) });
    const call = recorder.start({
      provider: 'openai',
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'tell me a story' }],
      stream: true,
    });
    call.chunk({ text: 'Once upon ' });
    call.chunk({ text: 'a time' });
    const ended = recorder.start({
      provider: 'openai',
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    ended.finish({ text: 'hello' });
    await tracer.shutdown();
    const blocks = sink.blocks;
    expect(validateBlocks(blocks).errors).toEqual([]);
    const answers = blocks.filter(
      (block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant',
    );
    expect(answers.map((block) => [block.payload.content, block.metadata.status])).toEqual([
      ['hello', 'success'],
      ['Once upon a time', 'cancelled'],
    ]);
    expect(answers[1]?.metadata.ended_by).toBe('tracer_shutdown');
    expect(answers[0]?.metadata.ended_by).toBeUndefined();
    // the reservation of the call cut short is released, not held for good
    expect(await budget.remaining('default')).toBeGreaterThan(0.5 * 1e6);
    // its real end, later, changes nothing
    call.finish({ text: 'Once upon a time, the end.' });
    expect(sink.blocks).toHaveLength(blocks.length);
  });

  it('a call that ended before the shutdown is not recorded again', async () => {
    const sink = createMemorySink();
    const tracer = createTracer({ sinks: [sink] });
    const recorder = createModelCallRecorder({ tracer });
    const call = recorder.start({
      provider: 'p',
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    call.cancel();
    await tracer.shutdown();
    expect(sink.blocks.filter((block) => block.payload.role === 'assistant')).toHaveLength(1);
  });
});
