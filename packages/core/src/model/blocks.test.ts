import { describe, expect, it } from 'vitest';
import { BlockSchema, createBlockSchema } from './blocks.js';

const at = '2026-01-01T00:00:00.000Z';
const base = { trace_id: 'tr_1', created_at: at };
// seed 002's four example blocks, with the ids a server assigns
const message = {
  ...base,
  id: 'tb_msg123',
  block_type: 'MESSAGE',
  sub_type: 'MESSAGE',
  payload: { role: 'user', content: "what's the weather?" },
};
const call = {
  ...base,
  id: 'tb_call123',
  block_type: 'ACT',
  sub_type: 'TOOL_CALL',
  parent_block_id: 'tb_msg123',
  payload: { call_id: 'call_1', name: 'get_weather', arguments: { city: 'bogotá' } },
};
const result = {
  ...base,
  id: 'tb_res123',
  block_type: 'OBSERVE',
  sub_type: 'TOOL_RESULT',
  parent_block_id: 'tb_call123',
  payload: { call_id: 'call_1', output: { forecast: '22°C cloudy' } },
};
const think = {
  ...base,
  id: 'tb_think123',
  block_type: 'ACT',
  sub_type: 'THINK',
  parent_block_id: 'tb_msg123',
  payload: { text: 'decide to show forecast in celsius' },
};

const problems = (block: unknown, schema = BlockSchema) =>
  (schema.safeParse(block).error?.issues ?? []).map((issue) => issue.path.join('.'));

describe('BlockSchema', () => {
  it("accepts the seed's example blocks", () => {
    for (const block of [message, call, result, think]) expect(problems(block)).toEqual([]);
  });

  it.each([
    [
      'a block_type that does not follow from sub_type',
      { ...call, block_type: 'OBSERVE' },
      'block_type',
    ],
    ['a MESSAGE with a parent', { ...message, parent_block_id: 'tb_x' }, 'parent_block_id'],
    ['a TOOL_CALL without a parent', { ...call, parent_block_id: null }, 'parent_block_id'],
    ['a THINK without a parent', { ...think, parent_block_id: undefined }, 'parent_block_id'],
    [
      'a user message with empty content',
      { ...message, payload: { role: 'user', content: '' } },
      'payload.content',
    ],
    [
      'a role outside system/user/assistant',
      { ...message, payload: { role: 'tool', content: 'x' } },
      'payload.role',
    ],
    [
      'arguments that are not an object',
      { ...call, payload: { ...call.payload, arguments: [1] } },
      'payload.arguments',
    ],
    [
      'arguments that are invalid JSON',
      { ...call, payload: { ...call.payload, arguments: '{"a":' } },
      'payload.arguments',
    ],
    [
      'a result with both output and delta',
      { ...result, payload: { call_id: 'call_1', output: 1, delta: 2 } },
      'payload',
    ],
    [
      'a result with neither output nor delta',
      { ...result, payload: { call_id: 'call_1' } },
      'payload',
    ],
    [
      'a negative seq',
      { ...result, payload: { call_id: 'call_1', delta: 'x', seq: -1 } },
      'payload.seq',
    ],
    ['empty think text', { ...think, payload: { text: '' } }, 'payload.text'],
    ['a created_at that is not ISO 8601', { ...message, created_at: 'yesterday' }, 'created_at'],
    [
      'a lone surrogate in content',
      { ...message, payload: { role: 'user', content: 'a\ud800' } },
      'payload.content',
    ],
  ])('rejects %s', (_name, block, path) => {
    expect(problems(block)).toContain(path);
  });

  it('lets an assistant message carry no content (decision 001)', () => {
    expect(problems({ ...message, payload: { role: 'assistant', content: null } })).toEqual([]);
  });

  it('enforces byte limits on UTF-8 bytes, exactly at the limit', () => {
    const schema = createBlockSchema({ messageBytes: 4 });
    const withContent = (content: string) => ({ ...message, payload: { role: 'user', content } });
    expect(problems(withContent('éé'), schema)).toEqual([]);
    expect(problems(withContent('ééa'), schema)).toEqual(['payload.content']);
    expect(problems(withContent('x'.repeat(65_537)))).toEqual(['payload.content']);
  });
});
