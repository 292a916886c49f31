import { describe, expect, it } from 'vitest';
import { createMemorySink } from '../sinks/create-memory-sink.js';
import { renderTree } from '../sinks/render-tree.js';
import { stitchBlocks } from '../stitching/stitch-blocks.js';
import { createTracer } from '../tracing/create-tracer.js';
import { message, toolCall, toolResult } from './__fixtures__/build-blocks.js';
import { createBlockValidator } from './create-block-validator.js';
import { validateBlocks } from './validate-blocks.js';

// seed 002: TOOL_RESULT has an "optional seq", and results sort by "payload.seq (if present,
// nulls last)": `seq: null` is a seq that is not present.
const result = (id: string, seq: unknown) => ({
  ...toolResult(id, 'tb_c', 'c1'),
  payload: { call_id: 'c1', delta: id, seq },
});

describe('a TOOL_RESULT with seq: null', () => {
  it('is valid, never collides, and is kept as given', () => {
    const blocks = [
      message('tb_m'),
      toolCall('tb_c', 'tb_m', 'c1'),
      result('tb_r0', null),
      result('tb_r1', null),
      result('tb_r2', 0),
    ];
    expect(validateBlocks(blocks)).toEqual({ ok: true, errors: [] });

    const validator = createBlockValidator();
    const accepted = blocks.map((block) => validator.accept(block));
    expect(accepted[2]?.payload).toEqual({ call_id: 'c1', delta: 'tb_r0', seq: null });
    // a later null still does not collide with the accepted ones, a repeated number does
    expect(validator.accept(result('tb_r3', null)).payload).toMatchObject({ seq: null });
    expect(() => validator.accept(result('tb_r4', 0))).toThrow(/seq 0/);

    const stitched = stitchBlocks(accepted);
    expect(stitched.messages[0]?.tool_calls[0]?.results.map((block) => block.id)).toEqual([
      'tb_r2',
      'tb_r0',
      'tb_r1',
    ]);
    expect(renderTree(stitched)).not.toContain('#null');
  });

  it('is recorded by the tracer', () => {
    const tracer = createTracer({ sinks: [createMemorySink()] });
    const root = tracer.logMessage({ role: 'user', content: 'hi' });
    const call = tracer.logAct({
      parent_block_id: root.id,
      payload: { call_id: 'c1', name: 'f', arguments: {} },
    });
    const first = tracer.logObserve({
      parent_block_id: call.id,
      payload: { call_id: 'c1', delta: 'a', seq: null },
    });
    const second = tracer.logObserve({ payload: { call_id: 'c1', delta: 'b', seq: null } });
    expect(first.payload).toEqual({ call_id: 'c1', delta: 'a', seq: null });
    expect(second.parent_block_id).toBe(call.id);
  });

  it('still rejects a seq that is neither null nor a non-negative integer', () => {
    const report = validateBlocks([
      message('tb_m'),
      toolCall('tb_c', 'tb_m', 'c1'),
      result('tb_r', '1'),
    ]);
    expect(report.errors.map((error) => [error.code, error.details.field])).toEqual([
      ['VALIDATION', 'seq'],
    ]);
  });
});
