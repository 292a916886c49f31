import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import type { ChatEvent, Message } from './chat-events.js';
import { type LoneSurrogatesFound, parseTrace, safeParseTrace } from './parse-trace.js';
import { hasLoneSurrogate } from './replace-lone-surrogates.js';

// The shapes real exports have beyond the seeds' own: OpenAI's legacy function calling,
// Invariant Explorer's metadata element, numbered call ids, tool outputs kept as data.

function failure(input: unknown): TraceError {
  const result = safeParseTrace(input);
  if (result.success) throw new Error('expected parseTrace to fail');
  expect(result.error).toBeInstanceOf(TraceError);
  expect(result.error.code).toBe('VALIDATION');
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

const text = fc.string({ maxLength: 8 });
const legacyTurns = fc.array(
  fc.record({
    name: fc.constantFrom('get_weather', 'send_email'),
    args: fc
      .dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
      .map((a) => JSON.stringify(a)),
    output: text,
    say: fc.oneof(text, fc.constant(null)),
  }),
  { maxLength: 4 },
);

const numberedTurns = fc.array(
  fc.record({
    calls: fc.array(fc.record({ id: fc.nat(5), name: fc.constantFrom('a', 'b') }), {
      minLength: 1,
      maxLength: 3,
    }),
    answered: fc.array(fc.nat(5), { maxLength: 3 }),
  }),
  { maxLength: 4 },
);

describe('parseTrace on real exports', () => {
  it("reads OpenAI's legacy function calling (function_call, role: function) as tool calls", () => {
    const trace = parseTrace([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
      { role: 'function', name: 'get_weather', content: '{"temp":20}' },
      { role: 'assistant', content: 'It is 20.' },
    ]);
    expect(trace[1]).toStrictEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1_0',
          type: 'function',
          function: { name: 'get_weather', arguments: { city: 'Paris' } },
        },
      ],
    });
    expect(trace[2]).toStrictEqual({
      role: 'tool',
      name: 'get_weather',
      content: '{"temp":20}',
      tool_call_id: 'call_1_0',
    });
    expect(parseTrace(trace)).toStrictEqual(trace);
    // a function message with no call before it is not a tool output; tool_calls win over function_call
    expect(parseTrace([{ role: 'function', content: 'x' }])).toStrictEqual([
      { role: 'function', content: 'x' },
    ]);
    const both = parseTrace([
      {
        role: 'assistant',
        function_call: { name: 'a', arguments: '{}' },
        tool_calls: [{ id: 't', function: { name: 'b', arguments: {} } }],
      },
    ]);
    expect(both[0]).toMatchObject({ function_call: { name: 'a' }, tool_calls: [{ id: 't' }] });
    expect(
      failure([{ role: 'assistant', function_call: { name: 'a', arguments: '{x' } }]).details.path,
    ).toBe('0.tool_calls.0.function.arguments');
  });

  it('a trace written with legacy function calling reads as the same trace with tool calls (property)', () => {
    fc.assert(
      fc.property(legacyTurns, (turns) => {
        const modern: Record<string, unknown>[] = [{ role: 'user', content: 'go' }];
        const legacy: Record<string, unknown>[] = [{ role: 'user', content: 'go' }];
        for (const { name, args, output, say } of turns) {
          modern.push({
            role: 'assistant',
            content: say,
            tool_calls: [{ type: 'function', function: { name, arguments: args } }],
          });
          legacy.push({
            role: 'assistant',
            content: say,
            function_call: { name, arguments: args },
          });
          modern.push({ role: 'tool', name, content: output });
          legacy.push({ role: 'function', name, content: output });
        }
        const expected = parseTrace(modern);
        expect(parseTrace(legacy)).toStrictEqual(expected);
        // every call is answered by its own output
        const calls = expected.flatMap((event) => callsOf(event) ?? []).map((call) => call.id);
        const outputs = expected.filter((event) => event.role === 'tool');
        expect(outputs.map((event) => event.tool_call_id)).toEqual(calls);
      }),
    );
  });

  it("leaves out the { metadata } first event of Invariant Explorer's raw event lists", () => {
    expect(parseTrace([{ metadata: { user_task: 't1' } }, ...seedTrace])).toStrictEqual(seedTrace);
    const trace = parseTrace([
      { metadata: {} },
      { role: 'assistant', tool_calls: [{ function: { name: 'a', arguments: {} } }] },
      { role: 'tool', content: 'A' },
    ]);
    expect(callsOf(trace[0])?.[0]?.id).toBe('call_0_0');
    expect(trace[1]).toMatchObject({ tool_call_id: 'call_0_0' });
    // a problem is named by the event's position in the input
    expect(failure([{ metadata: {} }, { role: 'user' }, { content: 'x' }]).details.path).toBe(
      '2.role',
    );
    // an element with more than metadata is an event, and needs a role
    const noRole = failure([{ metadata: {}, content: 'x' }]);
    expect(noRole.details.path).toBe('0.role');
    expect(noRole.message).toBe(
      'Event 0 needs a string "role" (e.g. "user", "assistant", "tool"); got nothing.',
    );
    expect(failure([{ role: 'user', content: { text: 'x' } }]).message).toContain('got an object.');
  });

  it('reads integer call ids and tool_call_ids as their decimal text', () => {
    const trace = parseTrace([
      { role: 'assistant', tool_calls: [{ id: 0, function: { name: 'a', arguments: {} } }] },
      { role: 'tool', tool_call_id: 0, content: 'A' },
      {
        role: 'assistant',
        tool_calls: [{ id: 'call_0_0', function: { name: 'b', arguments: {} } }],
      },
      { role: 'tool', content: 'B' },
    ]);
    expect(callsOf(trace[0])?.[0]?.id).toBe('0');
    expect(trace[1]?.tool_call_id).toBe('0');
    expect(trace[3]?.tool_call_id).toBe('call_0_0');
    expect(
      failure([{ role: 'assistant', tool_calls: [{ id: 1.5, function: { name: 'a' } }] }]).details
        .path,
    ).toBe('0.tool_calls.0.id');
    expect(failure([{ role: 'tool', tool_call_id: true }]).details.path).toBe('0.tool_call_id');
  });

  it('a trace numbering its calls reads as the same trace with string ids (property)', () => {
    fc.assert(
      fc.property(numberedTurns, (turns) => {
        const numbered: Record<string, unknown>[] = [];
        const named: Record<string, unknown>[] = [];
        for (const { calls, answered } of turns) {
          const call = (id: unknown, name: string) => ({
            id,
            type: 'function',
            function: { name, arguments: {} },
          });
          numbered.push({
            role: 'assistant',
            content: null,
            tool_calls: calls.map(({ id, name }) => call(id, name)),
          });
          named.push({
            role: 'assistant',
            content: null,
            tool_calls: calls.map(({ id, name }) => call(String(id), name)),
          });
          for (const id of answered) {
            numbered.push({ role: 'tool', tool_call_id: id, content: 'out' });
            named.push({ role: 'tool', tool_call_id: String(id), content: 'out' });
          }
        }
        expect(parseTrace(numbered)).toStrictEqual(parseTrace(named));
      }),
    );
  });

  it("reads a tool's data kept as data (an object, a number, a list of records) as its JSON text", () => {
    const call = {
      role: 'assistant',
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'weather', arguments: {} } }],
    };
    for (const data of [{ temp: 20 }, 42, true, [{ city: 'Paris' }], [1, 2]]) {
      const trace = parseTrace([call, { role: 'tool', tool_call_id: 'c', content: data }]);
      expect(trace[1]).toStrictEqual({
        role: 'tool',
        tool_call_id: 'c',
        content: JSON.stringify(data),
      });
    }
    // content parts stay parts, and only a tool's output is read this way
    const parts = [{ type: 'text', text: 'ok' }];
    expect(
      parseTrace([call, { role: 'tool', tool_call_id: 'c', content: parts }])[1]?.content,
    ).toEqual(parts);
    expect(failure([{ role: 'tool', content: [{ type: 'text' }] }]).details.path).toBe(
      '0.content.0.text',
    );
    expect(failure([{ role: 'user', content: { temp: 20 } }]).details.path).toBe('0.content');
  });

  it("a tool output holding data reads as the same trace with the data's JSON text (property)", () => {
    const data = fc
      .jsonValue({ maxDepth: 2 })
      .filter((value) => typeof value !== 'string' && value !== null)
      // a list whose items all have a string `type` is content parts
      .filter(
        (value) =>
          !(
            Array.isArray(value) &&
            value.every((item) => typeof (item as { type?: unknown } | null)?.type === 'string')
          ),
      );
    fc.assert(
      fc.property(data, (value) => {
        const call = {
          role: 'assistant',
          tool_calls: [{ id: 'c', function: { name: 'f', arguments: {} } }],
        };
        const asData = parseTrace([call, { role: 'tool', content: value }]);
        const asText = parseTrace([call, { role: 'tool', content: JSON.stringify(value) }]);
        expect(asData).toStrictEqual(asText);
      }),
    );
  });

  it('reads a call without arguments (missing, null, "", "null", AgentDojo\'s args: null) as {}', () => {
    const spellings: Record<string, unknown>[] = [
      { name: 'now' },
      { name: 'now', arguments: null },
      { name: 'now', arguments: '' },
      { name: 'now', arguments: ' \n' },
      { name: 'now', arguments: 'null' },
      { name: 'now', arguments: {} },
    ];
    for (const fn of spellings) {
      const trace = parseTrace([
        { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: fn }] },
        { role: 'tool', tool_call_id: 'c', content: '12:00' },
      ]);
      expect(callsOf(trace[0])?.[0]?.function).toStrictEqual({ name: 'now', arguments: {} });
    }
    const agentDojo = parseTrace([
      { role: 'assistant', tool_calls: [{ function: 'get_balance', args: null, id: 'b' }] },
    ]);
    expect(callsOf(agentDojo[0])?.[0]).toStrictEqual({
      id: 'b',
      type: 'function',
      function: { name: 'get_balance', arguments: {} },
    });
  });

  it('replaces lone surrogates (text cut mid-character) by U+FFFD everywhere, reporting each event', () => {
    const cut = 'caf\u00e9 \ud83d'; // an emoji's first half, where a truncated export ends
    const input = [
      { role: 'user', content: `hi ${cut}` },
      {
        role: 'assistant',
        content: [{ type: 'text', text: '\ude00 ok \ud83d\ude00' }],
        tool_calls: [
          { id: 'c', function: { name: 'send', arguments: '{"body":"\\ud83d x","\\udc00":1}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c', content: { sent: cut } },
      { role: 'assistant', content: 'a whole pair \ud83d\ude00 stays' },
    ];
    const before = structuredClone(input);
    const found: LoneSurrogatesFound[] = [];
    const trace = parseTrace(input, { onLoneSurrogates: (event) => found.push(event) });
    expect(input).toStrictEqual(before);
    expect(trace[0]?.content).toBe('hi caf\u00e9 \ufffd');
    expect(trace[1]?.content).toStrictEqual([{ type: 'text', text: '\ufffd ok \ud83d\ude00' }]);
    expect(callsOf(trace[1])?.[0]?.function.arguments).toStrictEqual({
      body: '\ufffd x',
      '\ufffd': 1,
    });
    expect(trace[2]?.content).toBe('{"sent":"caf\u00e9 \ufffd"}');
    expect(trace[3]?.content).toBe('a whole pair \ud83d\ude00 stays');
    expect(hasLoneSurrogate(trace)).toBe(false);
    // the JSON-string arguments' surrogates are escapes, found when the arguments are parsed
    expect(found).toStrictEqual([
      { path: '0', count: 1 },
      { path: '1', count: 3 },
      { path: '2', count: 1 },
    ]);
    expect(parseTrace(trace)).toStrictEqual(trace);
  });

  it('leaves no lone surrogate in any trace, changing nothing else (property)', () => {
    const piece = fc.constantFrom('a', ' ', '\u00e9', '\ud83d', '\ude00', '\ud83d\ude00', '\udbff');
    const messy = fc.array(piece, { maxLength: 6 }).map((pieces) => pieces.join(''));
    const event = fc.oneof(
      fc.record({ role: fc.constantFrom('user', 'system'), content: messy }),
      fc.record({
        role: fc.constant('assistant'),
        content: fc.oneof(messy, fc.array(fc.record({ type: fc.constant('text'), text: messy }))),
        tool_calls: fc.array(
          fc.record({
            id: messy,
            function: fc.record({
              name: messy,
              arguments: fc.dictionary(messy, messy, { maxKeys: 2 }),
            }),
          }),
          { maxLength: 2 },
        ),
      }),
      fc.record({ role: fc.constant('tool'), content: messy, note: messy }),
    );
    const wellFormed = (value: unknown): unknown =>
      JSON.parse(
        JSON.stringify(value).replace(
          /\\u(d[89ab][0-9a-f]{2})(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})/g,
          '\\ufffd',
        ),
      );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 5 }), (events) => {
        let count = 0;
        const trace = parseTrace(events, { onLoneSurrogates: (found) => (count += found.count) });
        expect(hasLoneSurrogate(trace)).toBe(false);
        expect(trace).toStrictEqual(parseTrace(wellFormed(events)));
        expect(count).toBe(hasLoneSurrogate(events) ? count : 0);
        expect(count > 0).toBe(hasLoneSurrogate(events));
      }),
    );
  });

  it('names the key of a wrapper it does not read ({ trace: [...] }), in a typed error', () => {
    const error = failure({ trace: seedTrace, id: 'run-1' });
    expect(error.details.path).toBe('');
    expect(error.message).toBe(
      'A trace must be an array of events, or an object with a "messages", "events" or "traj" array; got an object whose events look to be under "trace"; pass them as an array, or under "messages".',
    );
    expect(failure({ id: 'x' }).message).toMatch(/got an object\.$/);
  });
});
