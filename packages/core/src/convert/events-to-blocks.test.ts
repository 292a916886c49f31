import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Block, ChatEvent, Trace } from '../model/index.js';
import {
  BlockSchema,
  blockTypeOf,
  createSequentialIds,
  messageRoles,
  parseTrace,
} from '../model/index.js';
import { type StitchedToolCall, type StitchedTrace, stitchBlocks } from '../stitching/index.js';
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
    // the seed's "non-empty content" rule is the only one a faithful conversion may break
    const issues = BlockSchema.safeParse(block).error?.issues ?? [];
    expect(issues.filter((issue) => issue.path.join('.') !== 'payload.content')).toEqual([]);
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

/** Blocks as a tracer writes them: a think, a JSON-string argument, an object output, deltas, an orphan call. */
function tracerBlocks(): Block[] {
  const base = { trace_id: 'tr_test', raw: null, extra: {}, metadata: {} };
  const at = (ms: number) => new Date(ms).toISOString();
  return [
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
}

/** A stitched tree without what conversion regenerates (ids, parents, times). */
function shapeOf(tree: StitchedTrace): { messages: unknown[]; orphans: unknown } {
  const strip = (block: Block) => {
    const { id, parent_block_id, created_at, updated_at, trace_id, ...rest } = block;
    return rest;
  };
  const call = (node: StitchedToolCall) => ({
    ...node,
    block: strip(node.block),
    results: node.results.map(strip),
  });
  return {
    messages: tree.messages.map((message) => ({
      block: strip(message.block),
      thinks: message.thinks.map(strip),
      tool_calls: message.tool_calls.map(call),
    })),
    orphans: tree.orphans,
  };
}

function byId(blocks: readonly Block[]): Map<string, Block> {
  return new Map(blocks.map((block) => [block.id, block]));
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

  it('turns reasoning_content into a THINK under its message, before its tool calls', () => {
    const trace = parseTrace([
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'check the inbox first',
        tool_calls: [{ id: 'c', function: { name: 'get_inbox', arguments: {} } }],
      },
      { role: 'user', content: 'hi', reasoning_content: '' },
    ]);
    const blocks = eventsToBlocks(trace, options());
    expectValidBlocks(blocks);
    expect(blocks.map((block) => block.sub_type)).toEqual([
      'MESSAGE',
      'THINK',
      'TOOL_CALL',
      'MESSAGE',
    ]);
    expect(blocks[0]?.payload).toEqual({ role: 'assistant', content: null });
    expect(blocks[1]).toMatchObject({
      payload: { text: 'check the inbox first' },
      parent_block_id: blocks[0]?.id,
    });
    expect(blocks[3]?.payload).toEqual({ role: 'user', content: 'hi', reasoning_content: '' });
    expect(blocksToEvents(blocks)).toStrictEqual(trace);
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
    const blocks = tracerBlocks();
    expect(blocksToEvents(blocks, { fidelity: 'chat' })).toStrictEqual([
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
  it('keeps thinks as reasoning_content and the rest under tracewarden, and comes back to the same tree', () => {
    const blocks = tracerBlocks();
    const events = blocksToEvents(blocks);
    expect(parseTrace(events)).toStrictEqual(events);
    expect(events[1]).toMatchObject({ role: 'assistant', reasoning_content: 'use celsius' });
    expect(events[1]).not.toHaveProperty('tracewarden');
    expect((events[1] as { tool_calls?: unknown[] }).tool_calls?.[0]).toMatchObject({
      tracewarden: { payload: { arguments: '{"city":"Bogotá"}' } },
    });
    expect(events[2]).toMatchObject({
      content: '{"forecast":"22°C"}',
      tracewarden: { payload: { call_id: 'c1', output: { forecast: '22°C' } } },
    });
    expect(events[3]).toMatchObject({
      content: 'hello',
      tracewarden: {
        pieces: [
          { length: 3, payload: { call_id: 'c2', seq: 0 } },
          { length: 2, payload: { call_id: 'c2', seq: 1 } },
        ],
      },
    });
    const back = eventsToBlocks(parseTrace(events), options());
    // tb_9's parent is missing: it comes back under an assistant message of its own.
    const valid = blocks.filter((block) => block.id !== 'tb_9');
    const messages = shapeOf(stitchBlocks(back)).messages;
    expect(messages.slice(0, 2)).toStrictEqual(shapeOf(stitchBlocks(valid)).messages);
    expect(messages[2]).toMatchObject({
      block: { payload: { role: 'assistant', content: null } },
      tool_calls: [{ block: { payload: { call_id: 'c3', name: 'lost' } } }],
    });
    expect(validateBlocks(back).errors.filter((e) => e.details.field !== 'content')).toEqual([]);
  });

  it('gives back the very blocks with fidelity exact', () => {
    const blocks = tracerBlocks().filter((block) => block.id !== 'tb_9');
    const events = blocksToEvents(blocks, { fidelity: 'exact' });
    expect(parseTrace(events)).toStrictEqual(events);
    const back = eventsToBlocks(parseTrace(events), { ids: createSequentialIds() });
    expect(byId(back)).toStrictEqual(byId(blocks));
  });

  it('splits several thinks back in order with their fields, and falls back to one when edited', () => {
    const at = (ms: number) => new Date(ms).toISOString();
    const base = { trace_id: 'tr_test', raw: null, extra: {}, metadata: {} };
    const blocks: Block[] = [
      {
        ...base,
        id: 'tb_1',
        block_type: 'MESSAGE',
        sub_type: 'MESSAGE',
        payload: { role: 'assistant', content: 'done' },
        parent_block_id: null,
        created_at: at(1),
        updated_at: at(1),
      },
      ...['first\n\nthought', 'second'].map(
        (text, k): Block => ({
          ...base,
          id: `tb_t${k}`,
          block_type: 'ACT',
          sub_type: 'THINK',
          payload: { text },
          parent_block_id: 'tb_1',
          metadata: { step: k },
          created_at: at(2 + k),
          updated_at: at(2 + k),
        }),
      ),
    ];
    const [event] = blocksToEvents(blocks);
    expect(event).toMatchObject({
      reasoning_content: 'first\n\nthought\n\nsecond',
      tracewarden: { thinks: [{ length: 14, metadata: { step: 0 } }, { length: 6 }] },
    });
    const thinks = (trace: Trace) =>
      eventsToBlocks(trace, options())
        .filter((block) => block.sub_type === 'THINK')
        .map((block) => [block.payload, block.metadata]);
    expect(thinks([event as ChatEvent])).toEqual([
      [{ text: 'first\n\nthought' }, { step: 0 }],
      [{ text: 'second' }, { step: 1 }],
    ]);
    expect(thinks([{ ...(event as ChatEvent), reasoning_content: 'rewritten' }])).toEqual([
      [{ text: 'rewritten' }, {}],
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
      reasoning_content: fc.oneof(text, fc.constant(null)),
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

// Valid block sets as a tracer writes them: messages with thinks and tool calls, each call with
// one output (text, object, null) or delta pieces with seq; block metadata, raw, extra; few
// distinct timestamps so that ties are common.
const blockExtras = fc.record(
  {
    metadata: fc.dictionary(
      fc.constantFrom('model', 'step', 'tags'),
      fc.jsonValue({ maxDepth: 1 }),
      { noNullPrototype: true },
    ),
    raw: fc.jsonValue({ maxDepth: 1 }),
    extra: fc.dictionary(fc.constantFrom('ui', 'x'), fc.jsonValue({ maxDepth: 1 }), {
      noNullPrototype: true,
    }),
  },
  { requiredKeys: [] },
);
const nonEmpty = fc.string({ minLength: 1, maxLength: 5 });
const validBlockSet = fc
  .array(
    fc.record({
      role: fc.constantFrom('system', 'user', 'assistant'),
      content: fc.oneof(nonEmpty, fc.constant(null)),
      extras: blockExtras,
      thinks: fc.array(fc.record({ text: nonEmpty, extras: blockExtras, own: fc.boolean() }), {
        maxLength: 2,
      }),
      calls: fc.array(
        fc.record({
          args: fc.oneof(
            fc.dictionary(text, fc.jsonValue({ maxDepth: 1 }), {
              maxKeys: 2,
              noNullPrototype: true,
            }),
            fc.constant('{"a":1}'),
          ),
          seq: fc.option(fc.nat(2), { nil: undefined }),
          extras: blockExtras,
          results: fc.oneof(
            fc.record({
              output: fc.oneof(text, fc.jsonValue({ maxDepth: 1 })),
              extras: blockExtras,
            }),
            fc.array(fc.oneof(nonEmpty, fc.jsonValue({ maxDepth: 1 })), {
              minLength: 1,
              maxLength: 3,
            }),
          ),
        }),
        { maxLength: 2 },
      ),
    }),
    { maxLength: 4 },
  )
  .chain((messages) =>
    fc.array(fc.nat(3), { minLength: 64, maxLength: 64 }).map((seconds) => {
      const blocks: Block[] = [];
      let n = 0;
      const add = (
        sub_type: Block['sub_type'],
        parent: string | null,
        payload: Record<string, unknown>,
        extras: {
          metadata?: Record<string, unknown>;
          raw?: unknown;
          extra?: Record<string, unknown>;
        },
      ) => {
        const id = `tb_${String(n).padStart(3, '0')}`;
        const created_at = new Date(
          Date.UTC(2025, 0, 1) + 1000 * (seconds[n++ % 64] ?? 0),
        ).toISOString();
        blocks.push({
          id,
          trace_id: 'tr_1',
          block_type: blockTypeOf[sub_type],
          sub_type,
          payload,
          parent_block_id: parent,
          metadata: extras.metadata ?? {},
          raw: extras.raw ?? null,
          extra: extras.extra ?? {},
          created_at,
          updated_at: created_at,
        } as Block);
        return id;
      };
      messages.forEach((spec, m) => {
        const message = add(
          'MESSAGE',
          null,
          { role: spec.role, content: spec.content },
          spec.extras,
        );
        for (const think of spec.thinks) {
          add(
            'THINK',
            message,
            think.own ? { text: think.text, step: 1 } : { text: think.text },
            think.extras,
          );
        }
        spec.calls.forEach((callSpec, c) => {
          const callId = `call_${m}_${c}`;
          const payload: Record<string, unknown> = {
            call_id: callId,
            name: 'f',
            arguments: callSpec.args,
          };
          if (callSpec.seq !== undefined) payload.seq = callSpec.seq;
          const call = add('TOOL_CALL', message, payload, callSpec.extras);
          const results = callSpec.results;
          if (Array.isArray(results)) {
            results.forEach((delta, seq) => {
              add('TOOL_RESULT', call, { call_id: callId, delta, seq }, {});
            });
          } else {
            add('TOOL_RESULT', call, { call_id: callId, output: results.output }, results.extras);
          }
        });
      });
      return blocks;
    }),
  );

describe('blocks → events → blocks (property)', () => {
  it('gives the same tree, with fresh ids and times (lossless) or the very blocks (exact)', () => {
    fc.assert(
      fc.property(validBlockSet, fc.integer(), (blocks, seed) => {
        const shuffled = [...blocks].sort((a, b) =>
          hashOf(a.id, seed) < hashOf(b.id, seed) ? -1 : 1,
        );
        expect(validateBlocks(blocks).errors.filter((e) => e.details.field !== 'content')).toEqual(
          [],
        );
        const tree = stitchBlocks(blocks);

        const events = blocksToEvents(shuffled);
        expect(parseTrace(events)).toStrictEqual(events);
        const back = eventsToBlocks(parseTrace(events), options());
        expect(shapeOf(stitchBlocks(back))).toStrictEqual(shapeOf(tree));
        expect(validateBlocks(back).errors.filter((e) => e.details.field !== 'content')).toEqual(
          [],
        );

        const exact = blocksToEvents(shuffled, { fidelity: 'exact' });
        expect(parseTrace(exact)).toStrictEqual(exact);
        const same = eventsToBlocks(parseTrace(exact), { ids: createSequentialIds() });
        expect(byId(same)).toStrictEqual(byId(blocks));
        expect(stitchBlocks(same)).toStrictEqual(tree);
      }),
      { numRuns: 300 },
    );
  });
});

function hashOf(id: string, seed: number): number {
  let hash = seed >>> 0;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

describe('a tool message with an empty tool_calls list', () => {
  it('is the tool output of its call, and converts back with the list', () => {
    const trace = parseTrace([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'q', type: 'function', function: { name: 'f', arguments: {} } }],
      },
      { role: 'tool', tool_call_id: 'q', content: 'r', tool_calls: [] },
    ]);
    const blocks = eventsToBlocks(trace);
    expect(validateBlocks(blocks).errors).toEqual([]);
    const result = blocks.find((block) => block.sub_type === 'TOOL_RESULT');
    expect(result?.payload).toEqual({ call_id: 'q', output: 'r' });
    expect(blocks.filter((block) => block.sub_type === 'MESSAGE')).toHaveLength(2);
    expect(parseTrace(blocksToEvents(blocks))).toStrictEqual(trace);
  });
});
