import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Block, Trace } from '../model/index.js';
import {
  BlockSchema,
  blockTypeOf,
  createSequentialIds,
  messageRoles,
  parseTrace,
} from '../model/index.js';
import { stitchBlocks } from '../stitching/index.js';
import { validateBlocks } from '../validation/index.js';
import { blocksToEvents } from './blocks-to-events.js';
import { eventsToBlocks } from './events-to-blocks.js';

const options = () => ({
  traceId: 'tr_test',
  ids: createSequentialIds(),
  startTime: Date.UTC(2025, 0, 1),
});

/** The seed 002 invariants a block set must hold: parents, sub types, roles, one trace. */
function expectValidBlocks(blocks: readonly Block[]): void {
  const byId = new Map(blocks.map((block) => [block.id, block]));
  expect(byId.size).toBe(blocks.length);
  let previous = '';
  for (const block of blocks) {
    expect(BlockSchema.safeParse(block).success).toBe(true);
    expect(block.block_type).toBe(blockTypeOf[block.sub_type]);
    expect(block.trace_id).toBe('tr_test');
    expect(block.created_at > previous).toBe(true);
    previous = block.created_at;
    const parent = block.parent_block_id === null ? undefined : byId.get(block.parent_block_id);
    switch (block.sub_type) {
      case 'MESSAGE':
        expect(block.parent_block_id).toBeNull();
        expect(messageRoles).toContain(block.payload.role);
        break;
      case 'TOOL_CALL':
      case 'THINK':
        expect(parent?.sub_type).toBe('MESSAGE');
        break;
      case 'TOOL_RESULT':
        expect(parent?.sub_type).toBe('TOOL_CALL');
        expect(block.payload.call_id).toBe(parent?.payload.call_id as string);
        break;
    }
  }
}

const seedTrace = parseTrace([
  { role: 'developer', content: 'Answer briefly.' },
  { role: 'user', content: "What's in my inbox?" },
  {
    role: 'assistant',
    content: 'Here are the latest emails.',
    tool_calls: [
      { id: '1', type: 'function', function: { name: 'get_inbox', arguments: { n: 2 } } },
    ],
  },
  { role: 'tool', tool_call_id: '1', content: '1. Subject: Hello, From: Alice' },
  { role: 'tool', tool_call_id: 'unknown', content: 'an answer to nothing' },
  { role: 'assistant', content: 'You have 2 new emails.' },
]);

describe('eventsToBlocks', () => {
  it('maps messages, tool calls and tool outputs to valid blocks', () => {
    const blocks = eventsToBlocks(seedTrace, options());
    expectValidBlocks(blocks);
    expect(blocks.map((block) => block.sub_type)).toEqual([
      'MESSAGE',
      'MESSAGE',
      'MESSAGE',
      'TOOL_CALL',
      'TOOL_RESULT',
      'MESSAGE',
      'MESSAGE',
    ]);
    const [developer, , assistant, call, result, unanswered] = blocks;
    expect(developer?.payload).toEqual({ role: 'system', content: 'Answer briefly.' });
    expect(developer?.metadata).toEqual({ chat_event: { role: 'developer' } });
    expect(call?.payload).toEqual({ call_id: '1', name: 'get_inbox', arguments: { n: 2 } });
    expect(call?.parent_block_id).toBe(assistant?.id);
    expect(result?.payload).toEqual({ call_id: '1', output: '1. Subject: Hello, From: Alice' });
    expect(result?.parent_block_id).toBe(call?.id);
    expect(unanswered?.payload).toEqual({
      role: 'user',
      content: 'an answer to nothing',
      tool_call_id: 'unknown',
    });
    expect(unanswered?.metadata).toEqual({ chat_event: { role: 'tool' } });
    expect(blocks[0]?.created_at).toBe('2025-01-01T00:00:00.000Z');
    expect(blocks[6]?.created_at).toBe('2025-01-01T00:00:00.006Z');
  });

  it('stitches into the same conversation', () => {
    const tree = stitchBlocks(eventsToBlocks(seedTrace, options()));
    expect(tree.messages).toHaveLength(5);
    expect(tree.messages[2]?.tool_calls[0]?.output).toBe('1. Subject: Hello, From: Alice');
    expect(tree.orphans).toEqual({ tool_calls: [], tool_results: [] });
  });

  it('links an output to the call it names even when that call comes later, and renames repeated call ids', () => {
    const trace = parseTrace([
      { role: 'tool', tool_call_id: 'late', content: 'early answer' },
      { role: 'assistant', tool_calls: [{ id: 'dup', function: { name: 'f', arguments: {} } }] },
      { role: 'assistant', tool_calls: [{ id: 'dup', function: { name: 'g', arguments: {} } }] },
      { role: 'tool', tool_call_id: 'dup', content: 'answer' },
      { role: 'assistant', tool_calls: [{ id: 'late', function: { name: 'h', arguments: {} } }] },
    ]);
    const blocks = eventsToBlocks(trace, options());
    const byId = new Map(blocks.map((block) => [block.id, block]));
    const results = blocks.filter((block) => block.sub_type === 'TOOL_RESULT');
    expect(results.map((r) => byId.get(r.parent_block_id ?? '')?.payload)).toMatchObject([
      { name: 'h' },
      { name: 'g' },
    ]);
    const calls = blocks.filter((block) => block.sub_type === 'TOOL_CALL');
    expect(calls.map((call) => call.payload.call_id)).toEqual(['dup', 'dup_2', 'late']);
    expect(calls[1]?.metadata).toEqual({ chat_event: { id: 'dup' } });
    expect(results.map((r) => r.payload.call_id)).toEqual(['late', 'dup_2']);
    expect(validateBlocks(blocks).ok).toBe(true);
    expect(parseTrace(blocksToEvents(blocks))).toStrictEqual(trace);
  });

  it('defaults ids and start time', () => {
    const blocks = eventsToBlocks(seedTrace);
    expect(blocks[0]?.id).toMatch(/^tb_/);
    expect(blocks[0]?.trace_id).toMatch(/^tr_/);
  });
});

describe('blocksToEvents', () => {
  it('gives back the seed trace', () => {
    expect(blocksToEvents(eventsToBlocks(seedTrace, options()))).toStrictEqual(seedTrace);
  });

  it('restores order from created_at, whatever the block order', () => {
    const blocks = eventsToBlocks(seedTrace, options());
    expect(blocksToEvents([...blocks].reverse())).toStrictEqual(seedTrace);
  });

  it('exports blocks written by a tracer: deltas assembled, object outputs as JSON text, orphan calls and thinks', () => {
    const base = { trace_id: 'tr_test', raw: null, extra: {}, metadata: {} };
    const at = (ms: number) => new Date(ms).toISOString();
    const blocks: Block[] = [
      {
        ...base,
        id: 'tb_1',
        block_type: 'MESSAGE',
        sub_type: 'MESSAGE',
        payload: { role: 'user', content: 'weather?' },
        parent_block_id: null,
        created_at: at(1),
        updated_at: at(1),
      },
      {
        ...base,
        id: 'tb_2',
        block_type: 'MESSAGE',
        sub_type: 'MESSAGE',
        payload: { role: 'assistant', content: null },
        parent_block_id: null,
        created_at: at(2),
        updated_at: at(2),
      },
      {
        ...base,
        id: 'tb_3',
        block_type: 'ACT',
        sub_type: 'THINK',
        payload: { text: 'use celsius' },
        parent_block_id: 'tb_2',
        created_at: at(3),
        updated_at: at(3),
      },
      {
        ...base,
        id: 'tb_4',
        block_type: 'ACT',
        sub_type: 'TOOL_CALL',
        payload: { call_id: 'c1', name: 'weather', arguments: '{"city":"Bogotá"}' },
        parent_block_id: 'tb_2',
        created_at: at(4),
        updated_at: at(4),
      },
      {
        ...base,
        id: 'tb_5',
        block_type: 'OBSERVE',
        sub_type: 'TOOL_RESULT',
        payload: { call_id: 'c1', output: { forecast: '22°C' } },
        parent_block_id: 'tb_4',
        created_at: at(5),
        updated_at: at(5),
      },
      {
        ...base,
        id: 'tb_6',
        block_type: 'ACT',
        sub_type: 'TOOL_CALL',
        payload: { call_id: 'c2', name: 'stream', arguments: {} },
        parent_block_id: 'tb_2',
        created_at: at(6),
        updated_at: at(6),
      },
      {
        ...base,
        id: 'tb_8',
        block_type: 'OBSERVE',
        sub_type: 'TOOL_RESULT',
        payload: { call_id: 'c2', delta: 'lo', seq: 1 },
        parent_block_id: 'tb_6',
        created_at: at(7),
        updated_at: at(7),
      },
      {
        ...base,
        id: 'tb_7',
        block_type: 'OBSERVE',
        sub_type: 'TOOL_RESULT',
        payload: { call_id: 'c2', delta: 'hel', seq: 0 },
        parent_block_id: 'tb_6',
        created_at: at(8),
        updated_at: at(8),
      },
      {
        ...base,
        id: 'tb_9',
        block_type: 'ACT',
        sub_type: 'TOOL_CALL',
        payload: { call_id: 'c3', name: 'lost', arguments: {} },
        parent_block_id: 'tb_gone',
        created_at: at(9),
        updated_at: at(9),
      },
    ];
    expect(blocksToEvents(blocks)).toStrictEqual([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'weather', arguments: { city: 'Bogotá' } },
          },
          { id: 'c2', type: 'function', function: { name: 'stream', arguments: {} } },
        ],
      },
      { role: 'tool', content: '{"forecast":"22°C"}', tool_call_id: 'c1' },
      { role: 'tool', content: 'hello', tool_call_id: 'c2' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c3', type: 'function', function: { name: 'lost', arguments: {} } }],
      },
    ]);
  });
});

describe('conversion round trip (property)', () => {
  it('parseTrace(blocksToEvents(eventsToBlocks(t))) equals t, and the blocks are valid', () => {
    fc.assert(
      fc.property(validRawTrace, (raw) => {
        const trace: Trace = parseTrace(raw);
        const blocks = eventsToBlocks(trace, options());
        expectValidBlocks(blocks);
        // The seed's "non-empty content" rule is the only one a faithful conversion may break.
        const problems = validateBlocks(blocks).errors.filter(
          (error) => error.details.field !== 'content',
        );
        expect(problems).toEqual([]);
        expect(parseTrace(blocksToEvents(blocks))).toStrictEqual(trace);
        expect(blocksToEvents(blocks)).toStrictEqual(trace);
      }),
      { numRuns: 300 },
    );
  });
});

const text = fc.string({ maxLength: 6 });
const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('image'), image_url: text }),
  fc.record({
    type: fc.constant('image_url'),
    image_url: fc.record({ url: text, detail: fc.constantFrom('low', 'auto') }),
  }),
  fc.record({ type: fc.constant('input_audio'), input_audio: fc.jsonValue({ maxDepth: 1 }) }),
);
const content = fc.oneof(text, fc.constant(null), fc.array(part, { maxLength: 3 }));
const args = fc.oneof(
  fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc
    .dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
    .map((value) => JSON.stringify(value)),
  fc.constant(''),
);
const callId = fc.constantFrom('1', '2', 'call_1_0', 'x');
const toolCall = fc.record(
  {
    id: callId,
    type: fc.constant('function'),
    function: fc.record(
      { name: fc.constantFrom('get_inbox', 'send'), arguments: args, strict: fc.boolean() },
      { requiredKeys: ['name'] },
    ),
    index: fc.nat(3),
  },
  { requiredKeys: ['function'] },
);
const unknownFields = {
  name: text,
  metadata: fc.dictionary(text, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
};
const event = fc.oneof(
  fc.record(
    {
      role: fc.constantFrom('user', 'assistant', 'system', 'developer', 'ipython', 'Model', 'tool'),
      content,
      tool_calls: fc.array(toolCall, { maxLength: 3 }),
      ...unknownFields,
    },
    { requiredKeys: ['role'] },
  ),
  fc.record(
    {
      role: fc.constant('tool'),
      content,
      tool_call_id: fc.oneof(callId, fc.constant('nope'), fc.constant(null)),
      ...unknownFields,
    },
    { requiredKeys: ['role'] },
  ),
);
const validRawTrace = fc.array(event, { maxLength: 8 });
