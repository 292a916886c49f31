import { describe, expect, it } from 'vitest';
import { eventsToBlocks } from '../convert/index.js';
import { createSequentialIds, parseTrace, type TraceEntry } from '../model/index.js';
import { stitchBlocks } from '../stitching/index.js';
import { createTracer } from '../tracing/create-tracer.js';
import { renderTree } from './render-tree.js';

/** The most recent MESSAGE block's id: the parent `logAct` / `logThink` name in these tests. */
function lastMessageOf(tracer: { blocks(): readonly { id: string; sub_type: string }[] }): string {
  return tracer.blocks().findLast((block) => block.sub_type === 'MESSAGE')?.id as string;
}

const clock = () => Date.parse('2025-01-31T12:00:00.000Z');

function seedTrace() {
  const tracer = createTracer({ ids: createSequentialIds(), clock });
  const message = tracer.logMessage({ role: 'user', content: "what's the weather?" });
  const call = tracer.logAct({
    parent_block_id: message.id,
    payload: { call_id: 'call_1', name: 'get_weather', arguments: { city: 'bogotá' } },
  });
  tracer.logObserve({
    parent_block_id: call.id,
    payload: { call_id: 'call_1', output: { forecast: '22°C cloudy' } },
  });
  tracer.logThink({
    parent_block_id: message.id,
    payload: { text: 'decide to show forecast in celsius' },
  });
  return tracer;
}

const failedEntry: TraceEntry = {
  call: {
    call_id: 'c4',
    tool_name: 'send_email',
    args: [],
    kwargs: { to: 'mom@mail.com' },
    timestamp: '2025-01-31T12:00:01Z',
    session_id: null,
    metadata: {},
  },
  result: {
    call_id: 'c4',
    tool_name: 'send_email',
    status: 'failure',
    return_value: null,
    exception: 'SMTP down',
    exception_type: 'ConnectionError',
    execution_time_ms: 3000,
    retry_count: 2,
    validations: [],
    hallucination: null,
    cost: null,
    timestamp: '2025-01-31T12:00:04Z',
  },
};

describe('renderTree', () => {
  it("renders the seed's example as an indented tree", () => {
    expect(renderTree(seedTrace().stitched())).toBe(
      [
        'trace tr_000001',
        "└─ user: what's the weather?",
        '   ├─ think: decide to show forecast in celsius',
        '   └─ call get_weather({"city":"bogotá"})',
        '      └─ result: {"forecast":"22°C cloudy"}',
      ].join('\n'),
    );
  });

  it('shows metadata highlights: status, duration, tokens, cost, retries, guard decisions, violations', () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    tracer.logMessage({
      role: 'assistant',
      content: 'Sent.',
      metadata: {
        model: 'gpt-4o',
        latency_ms: 1234,
        usage: { prompt_tokens: 100, completion_tokens: 50 },
        cost: 0.0012,
        violations: [{ rule: 'no-pii', message: 'email address in output' }],
      },
    });
    tracer.logAct({
      parent_block_id: lastMessageOf(tracer),
      payload: { call_id: 'c1', name: 'search', arguments: {} },
      metadata: {
        guard: [
          { guard: 'retry', action: 'retried' },
          { guard: 'budget', decision: 'allow' },
        ],
      },
    });
    tracer.logObserve({
      payload: { call_id: 'c1', output: 'ok' },
      metadata: { status: 'success', execution_time_ms: 12.4 },
    });
    tracer.recordEntry(failedEntry);
    const lines = renderTree(tracer.stitched()).split('\n');
    expect(lines[1]).toBe(
      '└─ assistant: Sent.  [gpt-4o · 1.23 s · 150 tok (100 in / 50 out) · $0.0012 · ⚠ 1 violation: email address in output]',
    );
    expect(lines[2]).toBe('   ├─ call search({})  [guard retry→retried, budget→allow]');
    expect(lines[3]).toBe('   │  └─ result: ok  [success · 12 ms]');
    expect(lines[4]).toBe('   └─ call send_email({"to":"mom@mail.com"})');
    expect(lines[5]).toBe(
      '      └─ result: SMTP down  [failure · ConnectionError · 3.00 s · 2 retries]',
    );
  });

  it('reads the records guards and model calls write: decisions by event, cost records', () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    tracer.logMessage({
      role: 'assistant',
      content: null,
      metadata: {
        cost: { cost_usd: 0.000038, cost_micro_usd: 38, pricing_source: 'genai-prices' },
        decisions: [
          { guard: 'budget', event: 'reserved' },
          { guard: 'budget', event: 'settled' },
        ],
      },
    });
    tracer.logAct({
      parent_block_id: lastMessageOf(tracer),
      payload: { call_id: 'c1', name: 'search', arguments: {} },
      metadata: {
        guard: { attempts: [{ attempt: 1 }], decisions: [{ guard: 'breaker', event: 'closed' }] },
      },
    });
    const lines = renderTree(tracer.stitched()).split('\n');
    expect(lines[1]).toBe(
      '└─ assistant: (no content)  [$0.000038 · guard budget→reserved, budget→settled]',
    );
    expect(lines[2]).toBe('   └─ call search({})  [guard breaker→closed]');
  });

  it('shows streamed deltas and their assembled output', () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    tracer.logMessage({ role: 'user', content: 'stream' });
    tracer.logAct({
      parent_block_id: lastMessageOf(tracer),
      payload: { call_id: 'c1', name: 'tail', arguments: {} },
    });
    tracer.logObserve({ payload: { call_id: 'c1', delta: 'lo', seq: 1 } });
    tracer.logObserve({ payload: { call_id: 'c1', delta: 'hel', seq: 0 } });
    expect(renderTree(tracer.stitched()).split('\n').slice(2)).toEqual([
      '   └─ call tail({})',
      '      ├─ delta#0: hel',
      '      ├─ delta#1: lo',
      '      └─ output (2 deltas): hello',
    ]);
  });

  it("shows a seed-004 entry's positional arguments before its keyword ones", () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    const message = tracer.logMessage({ role: 'assistant', content: null });
    tracer.logAct({
      parent_block_id: message.id,
      payload: {
        call_id: 'c1',
        name: 'send_email',
        arguments: { body: 'x' },
        args: ['eve@evil.example', 2],
      },
    });
    tracer.logAct({
      parent_block_id: message.id,
      payload: { call_id: 'c2', name: 'ping', arguments: {}, args: ['host'] },
    });
    const lines = renderTree(tracer.stitched()).split('\n');
    expect(lines[2]).toContain('call send_email("eve@evil.example", 2, {"body":"x"})');
    expect(lines[3]).toContain('call ping("host")');
  });

  it('marks synthetic messages and empty content', () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    tracer.logMessage({ role: 'assistant', content: null, metadata: { synthetic: true } });
    expect(renderTree(tracer.stitched()).split('\n')[1]).toBe(
      '└─ assistant (synthetic): (no content)',
    );
  });

  it('shows an empty list of parts as no content (a Gemini-backed run ends with content [])', () => {
    const blocks = eventsToBlocks(
      parseTrace([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [], tool_calls: [] },
      ]),
      { traceId: 'tr_empty', ids: createSequentialIds(), startTime: 0 },
    );
    expect(renderTree(stitchBlocks(blocks)).split('\n')[2]).toBe('└─ assistant: (no content)');
  });

  it("shows a converted event's own role (tool, developer), kept in metadata.chat_event", () => {
    const blocks = eventsToBlocks(
      parseTrace([
        { role: 'developer', content: 'be brief' },
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: '1', content: 'out with no call' },
      ]),
      { traceId: 'tr_roles', ids: createSequentialIds(), startTime: 0 },
    );
    expect(renderTree(stitchBlocks(blocks)).split('\n').slice(1)).toEqual([
      '├─ developer: be brief',
      '├─ user: hi',
      '└─ tool: out with no call',
    ]);
  });

  it('renders multi-part content', () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    tracer.logMessage({
      role: 'user',
      content: [
        { type: 'text', text: 'look:' },
        { type: 'image', image_url: 'https://x/y.png' },
      ],
    });
    expect(renderTree(tracer.stitched()).split('\n')[1]).toBe('└─ user: look: [image]');
  });

  it('names a part that is not text by what names it (a search result by its title and URL)', () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    tracer.logMessage({
      role: 'user',
      content: [
        { type: 'text', text: 'found:' },
        {
          type: 'web_search_result',
          title: 'Paris weather',
          url: 'https://weather.example/paris',
        },
        { type: 'document', name: 'report.pdf' },
      ],
    });
    expect(renderTree(tracer.stitched()).split('\n')[1]).toBe(
      '└─ user: found: [web_search_result: Paris weather https://weather.example/paris] [document: report.pdf]',
    );
  });

  it('truncates long values to maxWidth for display only, unless full', () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    const long = `${'word '.repeat(100)}end`;
    tracer.logMessage({ role: 'user', content: long });
    const compact = renderTree(tracer.stitched(), { maxWidth: 60 }).split('\n');
    expect(compact[1]?.length).toBe(60);
    expect(compact[1]?.endsWith('…')).toBe(true);
    const full = renderTree(tracer.stitched(), { full: true });
    expect(full).toContain(long);
    // the block itself is untouched
    expect(tracer.blocks()[0]?.payload).toMatchObject({ content: long });
  });

  it('never splits a surrogate pair when truncating', () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    tracer.logMessage({ role: 'user', content: '🚀'.repeat(100) });
    for (let width = 40; width < 50; width++) {
      const line = renderTree(tracer.stitched(), { maxWidth: width }).split('\n')[1] ?? '';
      expect(line).not.toMatch(
        /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
      );
    }
  });

  it('keeps multi-line values on their own lines when full, escaped otherwise', () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    tracer.logMessage({ role: 'user', content: 'first\nsecond' });
    tracer.logMessage({ role: 'user', content: 'last' });
    expect(renderTree(tracer.stitched()).split('\n')[1]).toBe('├─ user: first\\nsecond');
    expect(renderTree(tracer.stitched(), { full: true }).split('\n').slice(1)).toEqual([
      '├─ user: first',
      '│        second',
      '└─ user: last',
    ]);
  });

  it('escapes control characters so a trace cannot drive the terminal', () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    tracer.logMessage({
      role: 'user',
      content: 'red \u001b[31m alert\u0007',
      metadata: { status: 'bad\u001b[2J' },
    });
    const text = renderTree(tracer.stitched());
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u0007');
    expect(text).toContain('red \\u001b[31m alert\\u0007');
  });

  it('escapes bidirectional controls, so text shows in the order the trace holds it', () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    tracer.logMessage({
      role: 'user',
      content: 'send to \u202emoc.live@eve\u202c now \u2066x\u2069',
    });
    const text = renderTree(tracer.stitched());
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain('send to \\u202emoc.live@eve\\u202c now \\u2066x\\u2069');
  });

  it('colors with ANSI escapes only when asked', () => {
    const stitched = seedTrace().stitched();
    expect(renderTree(stitched)).not.toContain('\u001b[');
    const colored = renderTree(stitched, { color: true });
    expect(colored).toContain('\u001b[');
    // stripping the escapes gives the plain rendering
    expect(colored.replace(/\u001b\[\d+m/g, '')).toBe(renderTree(stitched));
  });

  it('lists orphans and renders an empty trace', () => {
    const [, call, result] = seedTrace().blocks();
    if (call === undefined || result === undefined) throw new Error('seed trace is incomplete');
    // without its message the call is an orphan, its result still under it
    expect(
      renderTree(stitchBlocks([call, result]))
        .split('\n')
        .slice(1),
    ).toEqual([
      '└─ orphans',
      '   └─ call (parent tb_000001) get_weather({"city":"bogotá"})',
      '      └─ result: {"forecast":"22°C cloudy"}',
    ]);
    // without its call the result is an orphan
    expect(
      renderTree(stitchBlocks([result]))
        .split('\n')
        .slice(1),
    ).toEqual(['└─ orphans', '   └─ result (call call_1): {"forecast":"22°C cloudy"}']);
    expect(
      renderTree({ trace_id: 'tr_x', messages: [], orphans: { tool_calls: [], tool_results: [] } }),
    ).toBe('trace tr_x (empty)');
  });

  it('says a call was blocked by the policy, before its violations', () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    tracer.logMessage({ role: 'assistant', content: null });
    tracer.logAct({
      parent_block_id: lastMessageOf(tracer),
      payload: { call_id: 'c1', name: 'send_email', arguments: {} },
      metadata: { policy: 'block', violations: [{ message: 'no mail' }] },
    });
    expect(renderTree(tracer.stitched()).split('\n')[2]).toBe(
      '   └─ call send_email({})  [blocked by policy · ⚠ 1 violation: no mail]',
    );
  });

  it("shows a model's refusal in place of absent content", () => {
    const tracer = createTracer({ ids: createSequentialIds(), clock });
    tracer.logMessage({ role: 'assistant', content: null, refusal: 'I cannot help with that.' });
    expect(renderTree(tracer.stitched()).split('\n')[1]).toBe(
      '└─ assistant: (refused) I cannot help with that.',
    );
  });
});
