import { describe, expect, it } from 'vitest';
import { stitchBlocks } from '../stitching/stitch-blocks.js';
import { checkBlock } from './check-block.js';
import { createBlockValidator } from './create-block-validator.js';
import { validateBlocks } from './validate-blocks.js';

// seed 002's example blocks, as posted: no trace_id (the request path names the trace); ids
// added so that the parents are real
const posted = () => [
  {
    id: 'tb_msg123',
    block_type: 'MESSAGE',
    sub_type: 'MESSAGE',
    payload: { role: 'user', content: "what's the weather?" },
  },
  {
    id: 'tb_call123',
    block_type: 'ACT',
    sub_type: 'TOOL_CALL',
    parent_block_id: 'tb_msg123',
    payload: { call_id: 'call_1', name: 'get_weather', arguments: { city: 'bogotá' } },
  },
  {
    id: 'tb_result123',
    block_type: 'OBSERVE',
    sub_type: 'TOOL_RESULT',
    parent_block_id: 'tb_call123',
    payload: { call_id: 'call_1', output: { forecast: '22°C cloudy' } },
  },
  {
    id: 'tb_think123',
    block_type: 'ACT',
    sub_type: 'THINK',
    parent_block_id: 'tb_msg123',
    payload: { text: 'decide to show forecast in celsius' },
  },
];

describe('blocks as posted, without trace_id (seed 002)', () => {
  it('validateBlocks and checkBlock take them as of the traceId given, and name the option otherwise', () => {
    expect(validateBlocks(posted(), { traceId: 'tr_1' })).toEqual({ ok: true, errors: [] });
    expect(checkBlock(posted()[0], { traceId: 'tr_1' })).toEqual([]);
    const without = validateBlocks(posted());
    expect(without.ok).toBe(false);
    expect(without.errors[0]?.details).toMatchObject({ field: 'trace_id' });
    // a trace id of its own is kept, and checked against the others as ever
    const mixed = posted();
    (mixed[0] as Record<string, unknown>).trace_id = 'tr_2';
    expect(validateBlocks(mixed, { traceId: 'tr_1' }).ok).toBe(false);
  });

  it("the trace's validator takes them as its own trace's blocks", () => {
    const validator = createBlockValidator({ traceId: 'tr_1' });
    const accepted = posted().map((block) => validator.accept(block));
    expect(accepted.map((block) => block.trace_id)).toEqual(['tr_1', 'tr_1', 'tr_1', 'tr_1']);
    expect(
      validator.acceptLine(
        JSON.stringify({
          id: 'tb_2',
          sub_type: 'MESSAGE',
          payload: { role: 'user', content: 'more' },
        }),
      ).trace_id,
    ).toBe('tr_1');
    // null is not absence: still reported
    expect(() => validator.accept({ ...posted()[0], id: 'tb_3', trace_id: null })).toThrow(
      expect.objectContaining({ code: 'VALIDATION' }),
    );
  });

  it('checks the traceId option where it is given', () => {
    for (const traceId of ['', 7])
      for (const call of [
        () => validateBlocks(posted(), { traceId: traceId as string }),
        () => createBlockValidator({ traceId: traceId as string }),
      ])
        expect(call).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
  });

  it('stitchBlocks puts them in the tree rather than leaving it empty', () => {
    const tree = stitchBlocks(posted() as never);
    expect(tree.messages).toHaveLength(1);
    expect(tree.messages[0]?.thinks).toHaveLength(1);
    expect(tree.messages[0]?.tool_calls[0]?.output).toEqual({ forecast: '22°C cloudy' });
    expect(stitchBlocks(posted() as never, { traceId: 'tr_1' }).messages).toHaveLength(1);
  });
});
