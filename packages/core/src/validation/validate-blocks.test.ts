import { describe, expect, it } from 'vitest';
import { message, smallTrace, think, toolCall, toolResult } from './__fixtures__/build-blocks.js';
import { createBlockValidator } from './create-block-validator.js';
import { validateBlocks } from './validate-blocks.js';

function summary(report: ReturnType<typeof validateBlocks>) {
  return report.errors.map((e) => [e.details.path, e.code, e.details.field]);
}

describe('validateBlocks', () => {
  it('accepts valid blocks of several traces in any order, children before parents', () => {
    const blocks = [...smallTrace('tr_1', 'a_'), ...smallTrace('tr_2', 'b_')].reverse();
    expect(validateBlocks(blocks)).toEqual({ ok: true, errors: [] });
  });

  it('checks the blocks in place: neither changes nor freezes them, valid or not', () => {
    const blocks: unknown[] = [
      ...smallTrace('tr_1', 'a_'),
      { ...think('tb_t', 'a_missing', 'tr_1'), payload: { text: '' } },
      { ...message('tb_x'), created_at: undefined, extra: { note: 1 } },
    ];
    const before = structuredClone(blocks);
    const keys = blocks.map((block) => Object.keys(block as object));
    expect(validateBlocks(blocks).ok).toBe(false);
    expect(blocks).toEqual(before);
    expect(blocks.map((block) => Object.keys(block as object))).toEqual(keys);
    for (const block of blocks as Record<string, unknown>[]) {
      expect(Object.isFrozen(block)).toBe(false);
      expect(Object.isFrozen(block.payload)).toBe(false);
    }
  });

  it('lists every problem with its block index, never stopping at the first', () => {
    const report = validateBlocks([
      message('tb_m'),
      think('tb_t', 'tb_missing'),
      {
        ...toolCall('tb_c', 'tb_m', 'c1'),
        payload: { call_id: 'c1', name: '', arguments: 'nope' },
      },
      toolCall('tb_c2', 'tb_m', 'c1'),
      'not a block',
      toolResult('tb_r', 'tb_t', 'c1'),
    ]);
    expect(report.ok).toBe(false);
    expect(summary(report)).toEqual([
      ['1', 'VALIDATION', 'parent_block_id'],
      ['2', 'VALIDATION', 'name'],
      ['2', 'VALIDATION', 'arguments'],
      ['3', 'DUPLICATE_CALL_ID', 'call_id'],
      ['4', 'VALIDATION', undefined],
      ['5', 'PARENT_SUBTYPE_MISMATCH', 'parent_block_id'],
    ]);
    expect(report.errors[0]?.toJSON()).toEqual({
      error: {
        code: 'VALIDATION',
        http_status: 422,
        message:
          'block 1 (tb_t): parent_block_id tb_missing is not the id of any block; every THINK needs an existing MESSAGE parent',
        details: {
          path: '1',
          sub_type: 'THINK',
          trace_id: 'tr_1',
          parent_block_id: 'tb_missing',
          block_id: 'tb_t',
          field: 'parent_block_id',
        },
      },
    });
  });

  it('rejects a parent in another trace', () => {
    const report = validateBlocks([message('tb_m', 'tr_1'), think('tb_t', 'tb_m', 'tr_2')]);
    expect(report.errors.map((e) => e.toJSON().error)).toEqual([
      expect.objectContaining({
        code: 'VALIDATION',
        details: expect.objectContaining({ path: '1', trace_id: 'tr_2', parent_block_id: 'tb_m' }),
      }),
    ]);
    expect(report.errors[0]?.message).toContain('tr_1');
  });

  it('keeps the first of clashing blocks by created_at then id, whatever the input order', () => {
    const early = { ...toolCall('tb_b', 'tb_m', 'c1'), created_at: '2025-01-31T12:00:00Z' };
    const late = { ...toolCall('tb_a', 'tb_m', 'c1'), created_at: '2025-01-31T12:00:05Z' };
    for (const order of [
      [early, late],
      [late, early],
    ]) {
      const report = validateBlocks([message('tb_m'), ...order]);
      expect(report.errors.map((e) => [e.code, e.details.block_id])).toEqual([
        ['DUPLICATE_CALL_ID', 'tb_a'],
      ]);
    }
  });

  it('reports duplicate ids, duplicate seqs and call id mismatches', () => {
    const report = validateBlocks([
      message('tb_m'),
      toolCall('tb_c', 'tb_m', 'c1'),
      { ...toolResult('tb_r1', 'tb_c', 'c1'), payload: { call_id: 'c1', delta: 'a', seq: 0 } },
      { ...toolResult('tb_r2', 'tb_c', 'c1'), payload: { call_id: 'c1', delta: 'b', seq: 0 } },
      toolResult('tb_r3', 'tb_c', 'c1'),
      toolResult('tb_r4', 'tb_c', 'c1'),
      toolResult('tb_r5', 'tb_c', 'c2'),
      message('tb_m'),
    ]);
    expect(summary(report)).toEqual([
      ['3', 'DUPLICATE_RESULT_SEQ', 'seq'],
      ['6', 'VALIDATION', 'call_id'],
      ['7', 'VALIDATION', 'id'],
    ]);
    expect(report.errors[0]?.toJSON().error).toMatchObject({
      http_status: 409,
      details: { call_id: 'c1', seq: 0 },
    });
  });

  it('terminates on parent cycles and self parents, reporting each block', () => {
    const report = validateBlocks([
      toolCall('tb_a', 'tb_b', 'c1'),
      toolCall('tb_b', 'tb_a', 'c2'),
      think('tb_t', 'tb_t'),
    ]);
    expect(summary(report)).toEqual([
      ['0', 'PARENT_SUBTYPE_MISMATCH', 'parent_block_id'],
      ['1', 'PARENT_SUBTYPE_MISMATCH', 'parent_block_id'],
      ['2', 'VALIDATION', 'parent_block_id'],
    ]);
  });

  it('does not report children of a block whose own payload is invalid as orphans', () => {
    const report = validateBlocks([
      { ...message('tb_m'), payload: { role: 'user', content: '' } },
      think('tb_t', 'tb_m'),
    ]);
    expect(summary(report)).toEqual([['0', 'VALIDATION', 'content']]);
  });

  it('bounds every payload field by its sub type limit, not only the one it measures', () => {
    const limits = { messageBytes: 100, thinkBytes: 50 };
    const big = 'x'.repeat(101);
    const blocks = [
      { ...message('tb_m'), payload: { role: 'user', content: 'hi', name: big } },
      { ...message('tb_a'), payload: { role: 'assistant', content: 'ok', notes: [big] } },
      { ...think('tb_t', 'tb_a'), payload: { text: 'hmm', signature: 'y'.repeat(51) } },
      // within the limits: accepted
      { ...message('tb_s'), payload: { role: 'user', content: 'hi', name: 'x'.repeat(30) } },
    ];
    for (const validate of [
      () => validateBlocks(blocks, { limits }).errors.map((error) => error.toJSON().error),
      // the same blocks as JSON lines: the text-trusting path measures them too
      () => {
        const validator = createBlockValidator({ traceId: 'tr_1', limits });
        const found: unknown[] = [];
        for (const block of blocks)
          try {
            validator.acceptLine(JSON.stringify(block));
          } catch (error) {
            found.push((error as { toJSON(): { error: unknown } }).toJSON().error);
          }
        return found;
      },
    ])
      expect(validate()).toMatchObject([
        {
          code: 'PAYLOAD_TOO_LARGE',
          details: { sub_type: 'MESSAGE', field: 'name', limit_bytes: 100, actual_bytes: 101 },
        },
        { code: 'PAYLOAD_TOO_LARGE', details: { sub_type: 'MESSAGE', field: 'notes' } },
        {
          code: 'PAYLOAD_TOO_LARGE',
          details: { sub_type: 'THINK', field: 'signature', actual_bytes: 51 },
        },
      ]);
  });

  it('applies limit options', () => {
    const report = validateBlocks(
      [{ ...message('tb_m'), payload: { role: 'user', content: 'héllo' } }],
      { limits: { messageBytes: 5 } },
    );
    expect(report.errors[0]?.toJSON().error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      http_status: 413,
      details: { field: 'content', limit_bytes: 5, actual_bytes: 6, path: '0' },
    });
  });
});

describe('blocks as a client submits them', () => {
  it("accepts seed 002's example blocks without created_at, setting the insertion time", () => {
    const blocks = [
      {
        id: 'tb_msg123',
        trace_id: 'tr_1',
        block_type: 'MESSAGE',
        sub_type: 'MESSAGE',
        payload: { role: 'user', content: "what's the weather?" },
      },
      {
        id: 'tb_call123',
        trace_id: 'tr_1',
        block_type: 'ACT',
        sub_type: 'TOOL_CALL',
        parent_block_id: 'tb_msg123',
        payload: { call_id: 'call_1', name: 'get_weather', arguments: { city: 'bogotá' } },
      },
      {
        id: 'tb_res123',
        trace_id: 'tr_1',
        block_type: 'OBSERVE',
        sub_type: 'TOOL_RESULT',
        parent_block_id: 'tb_call123',
        payload: { call_id: 'call_1', output: { forecast: '22°C cloudy' } },
      },
      {
        id: 'tb_think123',
        trace_id: 'tr_1',
        block_type: 'ACT',
        sub_type: 'THINK',
        parent_block_id: 'tb_msg123',
        payload: { text: 'decide to show forecast in celsius' },
      },
    ];
    expect(validateBlocks(blocks)).toEqual({ ok: true, errors: [] });
    const validator = createBlockValidator();
    const accepted = blocks.map((block) => validator.accept(block));
    expect(accepted[0]?.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(accepted[0]?.updated_at).toBe(accepted[0]?.created_at);
  });
});
