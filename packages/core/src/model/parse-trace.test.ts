import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventsToBlocks } from '../convert/events-to-blocks.js';
import { TraceError } from '../errors/index.js';
import { type ChatEvent, type Message, TraceSchema } from './chat-events.js';
import { parseTrace, safeParseTrace } from './parse-trace.js';

function failure(input: unknown): TraceError {
  const result = safeParseTrace(input);
  if (result.success) throw new Error('expected parseTrace to fail');
  expect(result.error).toBeInstanceOf(TraceError);
  expect(result.error.code).toBe('VALIDATION');
  expect(result.error.httpStatus).toBe(422);
  return result.error;
}

function callsOf(event: ChatEvent | undefined): Message['tool_calls'] {
  return (event as Message | undefined)?.tool_calls;
}

const seedTrace = [
  { role: 'user', content: "What's in my inbox?" },
  {
    role: 'assistant',
    content: 'Here are the latest emails.',
    tool_calls: [{ id: '1', type: 'function', function: { name: 'get_inbox', arguments: {} } }],
  },
  { role: 'tool', tool_call_id: '1', content: '1. Subject: Hello, From: Alice' },
  { role: 'assistant', content: 'You have 2 new emails.' },
];

describe('parseTrace', () => {
  it('accepts the seed trace unchanged and satisfies the Trace schema', () => {
    const trace = parseTrace(seedTrace);
    expect(trace).toStrictEqual(seedTrace);
    expect(TraceSchema.safeParse(trace).success).toBe(true);
  });

  it('accepts { messages } and { events } wrappers', () => {
    expect(parseTrace({ messages: seedTrace, metadata: { x: 1 } })).toStrictEqual(seedTrace);
    expect(parseTrace({ events: seedTrace })).toStrictEqual(seedTrace);
  });

  it("reads Inspect AI's tool calls { id, function: 'name', arguments: {...} }", () => {
    const trace = parseTrace([
      { role: 'user', content: 'order a pizza' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'toolu_1', function: 'order_food', arguments: { item: 'pizza' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_1', function: 'order_food', content: 'ordered' },
    ]);
    expect(trace[1]?.tool_calls).toEqual([
      {
        id: 'toolu_1',
        type: 'function',
        function: { name: 'order_food', arguments: { item: 'pizza' } },
      },
    ]);
  });

  it('reads flat tool calls { id, name, arguments } (tau2-bench) as function calls', () => {
    const trace = parseTrace([
      { role: 'user', content: 'cancel order #W1' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', name: 'cancel_pending_order', arguments: { order_id: '#W1' } }],
      },
      { role: 'tool', id: 'c1', content: 'cancelled' },
    ]);
    expect(trace[1]?.tool_calls).toEqual([
      {
        id: 'c1',
        type: 'function',
        function: { name: 'cancel_pending_order', arguments: { order_id: '#W1' } },
      },
    ]);
  });

  it("reads LangChain's { name, args } and Anthropic's { name, input } calls with their values", () => {
    const [, langchain] = parseTrace([
      { role: 'user', content: 'pay' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ name: 'send_money', args: { to: 'X' }, id: 'c1', type: 'tool_call' }],
      },
    ]);
    expect(langchain?.tool_calls).toEqual([
      { id: 'c1', type: 'tool_call', function: { name: 'send_money', arguments: { to: 'X' } } },
    ]);
    const [, anthropic] = parseTrace([
      { role: 'user', content: 'pay' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ name: 'send_money', input: { to: 'Y' }, id: 'c2' }],
      },
    ]);
    expect((anthropic?.tool_calls as { function?: unknown }[] | undefined)?.[0]?.function).toEqual({
      name: 'send_money',
      arguments: { to: 'Y' },
    });
    // AgentDojo's `args: null` beside Inspect's `arguments`: the arguments
    const [, both] = parseTrace([
      { role: 'user', content: 'pay' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c3', function: 'f', args: null, arguments: { a: 1 } }],
      },
    ]);
    expect((both?.tool_calls as { function?: unknown }[] | undefined)?.[0]?.function).toEqual({
      name: 'f',
      arguments: { a: 1 },
    });
  });

  it("links tau2-bench's tool messages by their own id (no tool_call_id), out of order too", () => {
    const trace = parseTrace([
      { role: 'user', content: 'a and b' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 't0', name: 'get_a', arguments: {} },
          { id: 't1', name: 'get_b', arguments: {} },
        ],
      },
      { role: 'tool', id: 't1', content: 'B', requestor: 'assistant', error: false },
      { role: 'tool', id: 't0', content: 'A', requestor: 'assistant', error: false },
    ]);
    expect(trace.slice(2).map((event) => [event.tool_call_id, event.content])).toEqual([
      ['t1', 'B'],
      ['t0', 'A'],
    ]);
  });

  it("accepts tau-bench's { task_id, reward, info, traj } run", () => {
    expect(parseTrace({ task_id: 3, reward: 0, info: {}, traj: seedTrace })).toStrictEqual(
      seedTrace,
    );
    expect(() => parseTrace({ traj: 'none' })).toThrow(/"traj" must be an array of events/);
  });

  it('parses JSON string arguments, defaults type and fills missing ids (seed 001)', () => {
    const trace = parseTrace([
      {
        role: 'assistant',
        content: 'Sending an email to your mom now.',
        tool_calls: [{ function: { name: 'send_email', arguments: '{"to":"mom@mail.com"}' } }],
      },
      { role: 'tool', content: 'Email sent successfully.' },
    ]);
    expect(callsOf(trace[0])).toStrictEqual([
      {
        id: 'call_0_0',
        type: 'function',
        function: { name: 'send_email', arguments: { to: 'mom@mail.com' } },
      },
    ]);
    expect(trace[1]).toStrictEqual({
      role: 'tool',
      content: 'Email sent successfully.',
      tool_call_id: 'call_0_0',
    });
  });

  it('never gives a generated id that collides with an existing one', () => {
    const trace = parseTrace([
      {
        role: 'assistant',
        tool_calls: [
          { function: { name: 'a', arguments: {} } },
          { id: 'call_0_0', function: { name: 'b', arguments: {} } },
          { id: 'call_0_0_1', function: { name: 'c', arguments: {} } },
        ],
      },
    ]);
    expect(callsOf(trace[0])?.map((call) => call.id)).toEqual([
      'call_0_0_2',
      'call_0_0',
      'call_0_0_1',
    ]);
  });

  it('treats empty-string arguments as no arguments', () => {
    const trace = parseTrace([
      { role: 'assistant', tool_calls: [{ id: 'x', function: { name: 'now', arguments: '' } }] },
    ]);
    expect(callsOf(trace[0])?.[0]?.function.arguments).toEqual({});
  });

  it('links tool outputs to the first unanswered call of the latest message, then the most recent call', () => {
    const trace = parseTrace([
      {
        role: 'assistant',
        tool_calls: [
          { id: 'a', function: { name: 'f', arguments: {} } },
          { id: 'b', function: { name: 'g', arguments: {} } },
        ],
      },
      { role: 'tool', content: 'to a' },
      { role: 'tool', content: 'to b' },
      { role: 'tool', content: 'all answered: most recent call' },
      { role: 'assistant', tool_calls: [{ id: 'c', function: { name: 'h', arguments: {} } }] },
      { role: 'tool', tool_call_id: 'c', content: 'explicit' },
      { role: 'tool', tool_call_id: null, content: 'after explicit answer' },
    ]);
    expect(
      trace.slice(1).map((event) => (event as { tool_call_id?: string }).tool_call_id),
    ).toEqual(['a', 'b', 'b', undefined, 'c', 'c']);
  });

  it("answers a later message's calls before an earlier message's unanswered one, and parallel calls in order", () => {
    const call = (id: string) => ({ id, function: { name: id, arguments: {} } });
    const trace = parseTrace([
      { role: 'assistant', tool_calls: [call('stale')] },
      { role: 'assistant', tool_calls: [call('x'), call('y'), call('z')] },
      { role: 'tool', tool_call_id: 'y', content: 'named' },
      { role: 'tool', content: 'first unnamed' },
      { role: 'tool', tool_call_id: '', content: 'second unnamed' },
      { role: 'tool', content: 'back to the earlier message' },
    ]);
    expect(
      trace.slice(2).map((event) => (event as { tool_call_id?: string }).tool_call_id),
    ).toEqual(['y', 'x', 'z', 'stale']);
  });

  it('leaves tool_call_id unset when there is no call to link to, and fills missing content with null', () => {
    const trace = parseTrace([
      { role: 'tool' },
      { role: 'tool', tool_call_id: null, content: 'x' },
    ]);
    expect(trace).toStrictEqual([
      { role: 'tool', content: null },
      { role: 'tool', content: 'x' },
    ]);
  });

  it('normalises the three image forms to { type: "image", image_url: string }', () => {
    const trace = parseTrace([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', image_url: 'https://x/a.png' },
          { type: 'image', image_url: { url: 'https://x/b.png' } },
          {
            type: 'image_url',
            image_url: { url: 'data:image/png;base64,AA', detail: 'low' },
            id: 7,
          },
          { type: 'input_audio', input_audio: { data: 'x' } },
        ],
      },
    ]);
    expect(trace[0]?.content).toStrictEqual([
      { type: 'text', text: 'look' },
      { type: 'image', image_url: 'https://x/a.png' },
      { type: 'image', image_url: 'https://x/b.png' },
      { type: 'image', image_url: 'data:image/png;base64,AA', detail: 'low', id: 7 },
      { type: 'input_audio', input_audio: { data: 'x' } },
    ]);
  });

  it('keeps any role and unknown fields, including __proto__ keys, without mutating the input', () => {
    const input = JSON.parse(
      '[{"role":"developer","content":"be brief","name":"ops","__proto__":{"polluted":true},"metadata":{"server":"mail"}},' +
        '{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"{\\"q\\":1}","strict":true},"index":0}]}]',
    );
    const snapshot = structuredClone(input);
    const trace = parseTrace(input);
    expect(input).toStrictEqual(snapshot);
    expect(trace[0]?.role).toBe('developer');
    expect(Object.hasOwn(trace[0] as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((trace[0] as Record<string, unknown>).metadata).toEqual({ server: 'mail' });
    expect(callsOf(trace[1])?.[0]).toStrictEqual({
      id: 'call_1_0',
      type: 'function',
      index: 0,
      function: { name: 'f', arguments: { q: 1 }, strict: true },
    });
  });

  it.each([
    ['not an array', 'hello', ''],
    ['a non-array messages field', { messages: 'x' }, 'messages'],
    ['an event that is not an object', [{ role: 'user', content: 'hi' }, 3], '1'],
    ['a missing role', [{ content: 'hi' }], '0.role'],
    ['a numeric role', [{ role: 1, content: 'hi' }], '0.role'],
    ['content of a wrong type', [{ role: 'user', content: 5 }], '0.content'],
    ['a content part that is not an object', [{ role: 'user', content: ['x'] }], '0.content.0'],
    [
      'a content part without type',
      [{ role: 'user', content: [{ text: 'x' }] }],
      '0.content.0.type',
    ],
    [
      'a text part without text',
      [{ role: 'user', content: [{ type: 'text' }] }],
      '0.content.0.text',
    ],
    [
      'an image_url without url',
      [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }],
      '0.content.0.image_url',
    ],
    ['tool_calls not an array', [{ role: 'assistant', tool_calls: {} }], '0.tool_calls'],
    [
      'a tool call that is not an object',
      [{ role: 'assistant', tool_calls: [1] }],
      '0.tool_calls.0',
    ],
    [
      'a tool call without function',
      [{ role: 'assistant', tool_calls: [{ id: 'x' }] }],
      '0.tool_calls.0.function',
    ],
    [
      'a function name that is not a string',
      [{ role: 'assistant', tool_calls: [{ function: { name: 3 } }] }],
      '0.tool_calls.0.function.name',
    ],
    [
      'a tool call id that is not a string or an integer',
      [{ role: 'assistant', tool_calls: [{ id: 3.5, function: { name: 'f' } }] }],
      '0.tool_calls.0.id',
    ],
    [
      'a numeric tool call type',
      [{ role: 'assistant', tool_calls: [{ type: 3, function: { name: 'f' } }] }],
      '0.tool_calls.0.type',
    ],
    [
      'a tool_call_id that is not a string or an integer',
      [{ role: 'tool', tool_call_id: { id: 3 }, content: 'x' }],
      '0.tool_call_id',
    ],
  ])('rejects %s with VALIDATION at %j', (_name, input, path) => {
    expect(failure(input).details.path).toBe(path);
  });

  it('says how to write an id too large for a safe integer', () => {
    const error = failure([
      { role: 'assistant', tool_calls: [{ id: 2 ** 64, function: { name: 'f' } }] },
    ]);
    expect(error.details.path).toBe('0.tool_calls.0.id');
    expect(error.message).toMatch(/safe integer .*as a string/);
  });

  it('keeps tool-call types other than function (real traces carry custom and mcp calls)', () => {
    const trace = parseTrace([
      {
        role: 'assistant',
        tool_calls: [{ id: 'a', type: 'custom', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'assistant', tool_calls: [{ id: 'b', function: { name: 'g', arguments: {} } }] },
    ]);
    const types = trace.map((event) => (event as Message).tool_calls?.[0]?.type);
    expect(types).toEqual(['custom', 'function']);
  });

  it("reads OpenAI's custom tool calls ({ custom: { name, input } }) as the OpenAI adapter records them", () => {
    const trace = parseTrace([
      { role: 'user', content: 'patch it' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'custom',
            custom: { name: 'apply_patch', input: '*** Begin Patch' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'done' },
    ]);
    const call = (trace[1] as Message).tool_calls?.[0];
    expect(call).toEqual({
      id: 'call_1',
      type: 'custom',
      custom: { name: 'apply_patch', input: '*** Begin Patch' },
      function: { name: 'apply_patch', arguments: { input: '*** Begin Patch' } },
    });
    const blocks = eventsToBlocks(trace, { traceId: 'tr_custom' });
    expect(blocks.filter((block) => block.sub_type === 'TOOL_RESULT')).toHaveLength(1);
    const error = failure([
      { role: 'assistant', tool_calls: [{ id: 'c', custom: { name: 'f', input: { a: 1 } } }] },
    ]);
    expect(error.details.path).toBe('0.tool_calls.0.custom.input');
    expect(error.message).toMatch(/"input" that is an object; OpenAI sends it as a string/);
  });

  it('rejects invalid JSON arguments and JSON that is not an object, naming the path', () => {
    const bad = (args: unknown) => [
      { role: 'user', content: 'x' },
      { role: 'assistant', tool_calls: [{ id: 'c', function: { name: 'f', arguments: args } }] },
    ];
    for (const args of ['{"a":', '[1,2]', '42', '"text"', 7, ['a']]) {
      const error = failure(bad(args));
      expect(error.details.path).toBe('1.tool_calls.0.function.arguments');
      expect(error.message).toContain('1.tool_calls.0.function.arguments');
    }
    expect(() => parseTrace(bad('{"a":'))).toThrow(TraceError);
  });

  it('survives deep nesting and large inputs', () => {
    const depth = 100_000;
    const deepJson = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const deepArgs = `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const result = safeParseTrace([
      {
        role: 'assistant',
        tool_calls: [{ id: 'c', function: { name: 'f', arguments: deepArgs } }],
      },
      { role: 'user', content: 'x', extra: deepJson },
    ]);
    if (!result.success) expect(result.error.code).toBe('VALIDATION');
    let nested: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) nested = { nested };
    expect(parseTrace([{ role: 'user', content: 'x', nested }])).toHaveLength(1);
    const big = 'x'.repeat(20_000_000);
    expect(parseTrace([{ role: 'user', content: big }])[0]?.content).toBe(big);
  });

  it("reads AgentDojo's run shape: calls as { function, args, id }, text parts as { type, content }", () => {
    // as AgentDojo (v0.1.35) writes a run: a run object whose `messages` is the trace
    const run = {
      suite_name: 'banking',
      user_task_id: 'user_task_0',
      injection_task_id: 'injection_task_0',
      messages: [
        { role: 'system', content: [{ type: 'text', content: 'You are a banking agent.' }] },
        { role: 'user', content: [{ type: 'text', content: 'Pay the bill, please.' }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              function: 'read_file',
              args: { file_path: 'bill.txt' },
              id: '',
              placeholder_args: null,
            },
          ],
        },
        {
          role: 'tool',
          content: [{ type: 'text', content: 'IBAN: UK12345678901234567890' }],
          tool_call_id: '',
          tool_call: { function: 'read_file', args: { file_path: 'bill.txt' }, id: '' },
          error: null,
        },
        {
          role: 'assistant',
          content: [{ type: 'text', content: 'Done.' }],
          tool_calls: null,
        },
      ],
      utility: true,
      security: true,
    };
    const trace = parseTrace(run);
    expect(trace[0]?.content).toEqual([{ type: 'text', text: 'You are a banking agent.' }]);
    expect(callsOf(trace[2])).toEqual([
      {
        id: 'call_2_0',
        type: 'function',
        function: { name: 'read_file', arguments: { file_path: 'bill.txt' } },
        placeholder_args: null,
      },
    ]);
    // the "" id of the output links to its call (Gemini's empty ids), and the output's text reads
    expect(trace[3]).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_2_0',
      content: [{ type: 'text', text: 'IBAN: UK12345678901234567890' }],
    });
    expect(TraceSchema.safeParse(trace).success).toBe(true);
    expect(parseTrace(trace)).toStrictEqual(trace);
  });

  it('an AgentDojo-shaped trace reads as the same trace in the seed shape (property)', () => {
    fc.assert(
      fc.property(rawTrace, (raw) => {
        const seed = safeParseTrace(raw);
        if (!seed.success) return;
        // the same trace written as AgentDojo writes it
        const agentDojo = seed.trace.map((event) => {
          const out: Record<string, unknown> = { ...event };
          if (Array.isArray(event.content)) {
            out.content = event.content.map((part) =>
              part.type === 'text'
                ? { type: 'text', content: (part as { text: string }).text }
                : part,
            );
          }
          const calls = (event as Message).tool_calls;
          if (calls?.every((call) => call.type === 'function')) {
            out.tool_calls = calls.map(({ function: fn, type: _type, ...rest }) => ({
              ...rest,
              function: fn.name,
              args: fn.arguments,
            }));
          }
          return out;
        });
        expect(parseTrace(agentDojo)).toStrictEqual(seed.trace);
      }),
    );
  });

  it('is idempotent and always yields a schema-valid trace (property)', () => {
    fc.assert(
      fc.property(rawTrace, (raw) => {
        const result = safeParseTrace(raw);
        if (!result.success) {
          expect(result.error.code).toBe('VALIDATION');
          return;
        }
        expect(TraceSchema.safeParse(result.trace).success).toBe(true);
        expect(parseTrace(result.trace)).toStrictEqual(result.trace);
      }),
    );
  });
});

const text = fc.string({ maxLength: 8 });
const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('image'), image_url: text }),
  fc.record({
    type: fc.constant('image_url'),
    image_url: fc.record({ url: text, detail: fc.constantFrom('low', 'high') }),
  }),
  fc.record({ type: fc.constant('file'), file: fc.jsonValue({ maxDepth: 1 }) }),
);
const content = fc.oneof(text, fc.constant(null), fc.array(part, { maxLength: 3 }), fc.constant(7));
const args = fc.oneof(
  fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }).map((a) => JSON.stringify(a)),
  fc.constantFrom('', '{bad', '[1]'),
);
const toolCall = fc.record(
  {
    id: fc.constantFrom('1', '2', 'call_0_0', 'x'),
    type: fc.constantFrom('function', 'custom'),
    function: fc.record({ name: fc.constantFrom('get_inbox', 'send'), arguments: args }),
    index: fc.nat(3),
  },
  { requiredKeys: ['function'] },
);
const event = fc.oneof(
  fc.record(
    {
      role: fc.constantFrom('user', 'assistant', 'system', 'developer', 'ipython'),
      content,
      tool_calls: fc.array(toolCall, { maxLength: 3 }),
      name: text,
    },
    { requiredKeys: ['role'] },
  ),
  fc.record(
    { role: fc.constant('tool'), content, tool_call_id: fc.constantFrom('1', '2', 'nope', null) },
    { requiredKeys: ['role'] },
  ),
);
/** Raw traces in the seeds' format, some of them invalid. */
export const rawTrace = fc.array(event, { maxLength: 8 });
