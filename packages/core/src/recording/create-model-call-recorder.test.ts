import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../policy/index.js';
import { PolicyViolationError } from '../policy/policy-violation-error.js';
import { createTracer } from '../tracing/index.js';
import { createModelCallGuards } from './create-model-call-guards.js';
import { createModelCallRecorder } from './create-model-call-recorder.js';
import { scrubRaw } from './scrub-raw.js';
import type { NeutralMessage } from './types.js';

const system: NeutralMessage = { role: 'system', content: 'sys' };
const user = (content: string): NeutralMessage => ({ role: 'user', content });

describe('createModelCallRecorder', () => {
  it('records a conversation re-sent on every turn once, and the same text later as a new message', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    const messages: NeutralMessage[] = [system, user('yes')];
    for (let turn = 0; turn < 3; turn++) {
      recorder
        .start({ provider: 'p', model: 'm', messages: [...messages] })
        .finish({ text: `answer ${turn}` });
      messages.push({ role: 'assistant', content: `answer ${turn}` }, user('yes'));
    }
    expect(
      tracer.blocks().map((block) => (block.payload as { content?: unknown }).content),
    ).toEqual(['sys', 'yes', 'answer 0', 'yes', 'answer 1', 'yes', 'answer 2']);
  });

  it('records a response whose tool calls lack an id or a name instead of failing the call', () => {
    const tracer = createTracer();
    const errors: unknown[] = [];
    const recorder = createModelCallRecorder({ tracer, onRecordingError: (e) => errors.push(e) });
    const calls = [
      { id: undefined as unknown as string, name: 'f', arguments: '{}' },
      { id: 'c1', name: undefined as unknown as string, arguments: '{}' },
    ];
    for (const call of calls) {
      const handle = recorder.start({ provider: 'p', model: 'm', messages: [user('go')] });
      expect(() => handle.finish({ text: null, toolCalls: [call] })).not.toThrow();
    }
    // the answers are recorded; the invalid calls are reported, not thrown at the caller
    expect(tracer.blocks().filter((block) => block.sub_type === 'MESSAGE')).toHaveLength(3);
    expect(errors.length).toBeGreaterThan(0);
  });

  it('matches a re-sent response in another shape (text parts, arguments as text)', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    recorder
      .start({ provider: 'p', model: 'm', messages: [user('go')] })
      .finish({ text: 'ok', toolCalls: [{ id: 'c1', name: 'f', arguments: { a: 1 } }] });
    const resent: NeutralMessage = {
      role: 'assistant',
      content: [{ type: 'output_text', text: 'ok' }],
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
    };
    recorder
      .start({
        provider: 'p',
        model: 'm',
        messages: [user('go'), resent, { role: 'tool', tool_call_id: 'c1', content: 'done' }],
      })
      .finish({ text: 'fin' });
    expect(tracer.blocks().map((block) => block.sub_type)).toEqual([
      'MESSAGE',
      'MESSAGE',
      'TOOL_CALL',
      'TOOL_RESULT',
      'MESSAGE',
    ]);
    expect(tracer.stitched().orphans).toEqual({ tool_calls: [], tool_results: [] });
  });

  it('records the same blocks from chunks as from the whole response (any split)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 10 }),
        (text, cuts) => {
          const args = JSON.stringify({ q: text });
          const whole = createTracer();
          createModelCallRecorder({ tracer: whole })
            .start({ provider: 'p', model: 'm', messages: [user('q')] })
            .finish({ text, reasoning: 'r', toolCalls: [{ id: 'c', name: 'f', arguments: args }] });
          const streamed = createTracer();
          const call = createModelCallRecorder({ tracer: streamed }).start({
            provider: 'p',
            model: 'm',
            messages: [user('q')],
            stream: true,
          });
          let at = 0;
          let i = 0;
          while (at < Math.max(text.length, args.length)) {
            const size = cuts[i++ % cuts.length] ?? 1;
            call.chunk({
              text: text.slice(at, at + size) || undefined,
              toolCalls: [
                {
                  index: 0,
                  ...(at === 0 ? { id: 'c', name: 'f' } : {}),
                  arguments: args.slice(at, at + size),
                },
              ],
              reasoning: at === 0 ? 'r' : undefined,
            });
            at += size;
          }
          call.finish();
          const payloads = (tracer: ReturnType<typeof createTracer>) =>
            tracer.blocks().map((block) => [block.sub_type, block.payload]);
          expect(payloads(streamed)).toEqual(payloads(whole));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('records partial output with status cancelled or failed, and partial tool arguments as such', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({ tracer });
    const cancelled = recorder.start({
      provider: 'p',
      model: 'm',
      messages: [user('a')],
      stream: true,
    });
    cancelled.chunk({ text: 'hal' });
    cancelled.cancel();
    const failed = recorder.start({
      provider: 'p',
      model: 'm',
      messages: [user('b')],
      stream: true,
    });
    failed.chunk({ toolCalls: [{ index: 0, id: 'c9', name: 'f', arguments: '{"x":' }] });
    const error = new Error('socket hang up');
    expect(failed.fail(error)).toBe(error);
    const responses = tracer
      .blocks()
      .filter((block) => block.sub_type === 'MESSAGE' && block.payload.role === 'assistant');
    expect(responses.map((block) => block.metadata.status)).toEqual(['cancelled', 'failure']);
    expect(responses[0]?.payload.content).toBe('hal');
    const call = tracer.findToolCall('c9');
    expect(call?.metadata.partial).toBe(true);
    expect(call?.payload).toMatchObject({ arguments: {}, invalid_arguments: '{"x":' });
  });

  it('checks proposed calls against the policy: throw by default, refuse on request', () => {
    const policy = parsePolicy(
      'raise "no deletes" if:\n    (call: ToolCall)\n    call is tool:delete_all',
    );
    const thrower = createModelCallRecorder({ tracer: createTracer(), policy });
    expect(() =>
      thrower
        .start({ provider: 'p', model: 'm', messages: [user('x')] })
        .finish({ toolCalls: [{ id: 'd', name: 'delete_all', arguments: {} }] }),
    ).toThrow(PolicyViolationError);
    const tracer = createTracer();
    const refuser = createModelCallRecorder({ tracer, policy, onPolicyViolation: 'refuse' });
    const outcome = refuser.start({ provider: 'p', model: 'm', messages: [user('x')] }).finish({
      toolCalls: [
        { id: 'd', name: 'delete_all', arguments: {} },
        { id: 'k', name: 'keep', arguments: {} },
      ],
    });
    expect(outcome.refused).toBe(true);
    expect(outcome.toolCalls.map((review) => review.decision)).toEqual(['block', 'allow']);
    expect(outcome.refusalText).toContain('no deletes');
    expect(tracer.stitched().messages[1]?.tool_calls[0]?.output).toContain('blocked by policy');
  });

  it('applies guards once per call and records a refusal', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({
      tracer,
      guards: createModelCallGuards({ rateLimit: { callsPerMinute: 1, burst: 1, sharedKey: '' } }),
    });
    recorder.start({ provider: 'p', model: 'm', messages: [user('1')] }).finish({ text: 'ok' });
    expect(() => recorder.start({ provider: 'p', model: 'm', messages: [user('2')] })).toThrow(
      expect.objectContaining({ code: 'RATE_LIMITED' }),
    );
    expect(tracer.blocks().at(-1)?.metadata.status).toBe('rate_limited');
    expect(tracer.blocks().at(-2)?.payload).toMatchObject({ role: 'user', content: '2' });
  });
});

describe('createModelCallRecorder: live budget cut-off', () => {
  // 10 micro-USD per token in and out: 2.5 micro-USD per output character
  const pricer = (_model: string, usage: { inputTokens: number; outputTokens: number }) => {
    const micro = (usage.inputTokens + usage.outputTokens) * 10;
    return { cost_usd: micro / 1e6, cost_micro_usd: micro };
  };

  function run(chunkChars: number) {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({
      tracer,
      pricer,
      guards: createModelCallGuards({ budget: { maxCostPerSession: 0.0001 } }),
    });
    const call = recorder.start({ provider: 'p', model: 'm', messages: [user('q')], stream: true });
    let chunks = 0;
    let stop: Error | undefined;
    while (stop === undefined && chunks < 1000) {
      chunks++;
      stop = call.chunk({ text: 'x'.repeat(chunkChars) });
    }
    if (stop !== undefined) call.fail(stop);
    const decisions = tracer.blocks().at(-1)?.metadata.decisions as Record<string, unknown>[];
    return {
      chunks,
      stop,
      cost: tracer.blocks().at(-1)?.metadata.cost as Record<string, unknown> | undefined,
      cutOff: decisions.find((decision) => decision.event === 'cut_off'),
      settled: decisions.find((decision) => decision.event === 'settled'),
    };
  }

  it('stops before one more chunk of the largest size seen would pass the budget', () => {
    // input ~10, then 20 per 8-character chunk: 30, 50, 70, 90 — a fifth chunk would be 110
    const { chunks, stop, cutOff, settled, cost } = run(8);
    expect(stop).toMatchObject({ code: 'BUDGET_EXCEEDED' });
    expect(chunks).toBe(4);
    expect(cutOff).toMatchObject({ estimated_cost_micro_usd: 90, next_chunk_micro_usd: 20 });
    expect(settled).toMatchObject({ charged_micro_usd: 90, remaining_micro_usd: 10 });
    // no usage arrived: the block's cost is the estimate the budget charged
    expect(cost).toEqual({ cost_usd: 0.00009, cost_micro_usd: 90, pricing_source: 'estimate' });
    expect(settled).toMatchObject({ estimated: true });
  });

  it('records no cost and charges nothing for a request refused before any output', () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({
      tracer,
      pricer,
      guards: createModelCallGuards({ budget: { maxCostPerSession: 0.0001 } }),
    });
    for (const stream of [true, false]) {
      const call = recorder.start({ provider: 'p', model: 'm', messages: [user('q')], stream });
      call.fail(Object.assign(new Error('Too Many Requests'), { status: 429 }));
      const answer = tracer.blocks().at(-1);
      expect(answer?.metadata.cost).toBeUndefined();
      const decisions = answer?.metadata.decisions as Record<string, unknown>[];
      expect(decisions.find((decision) => decision.event === 'settled')).toMatchObject({
        spent_micro_usd: 0,
      });
    }
  });

  it('never charges more than the budget when chunks are of one size', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 35 }), (size) => {
        const { stop, settled } = run(size);
        expect(stop).toBeDefined();
        expect(settled?.charged_micro_usd as number).toBeLessThanOrEqual(100);
      }),
    );
  });
});

describe('history de-duplication by message identity', () => {
  type Op =
    | { kind: 'user' | 'assistant' | 'tool'; text: string }
    | { kind: 'call'; answer: string }
    | { kind: 'edit'; at: number; text: string }
    | { kind: 'role'; at: number }
    | { kind: 'parts'; at: number }
    | { kind: 'calls'; at: number }
    | { kind: 'fork'; at: number };

  const text = fc.constantFrom('yes', 'no', 'why?', '');
  const at = fc.nat({ max: 8 });
  const op: fc.Arbitrary<Op> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constantFrom('user' as const, 'assistant' as const, 'tool' as const),
        text,
      }),
    },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('call' as const), answer: text }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('edit' as const), at, text }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('role' as const), at }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('parts' as const), at }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('calls' as const), at }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('fork' as const), at }) },
  );

  /** Runs the ops; `copy` sends fresh copies of every message, so nothing matches by identity. */
  function run(ops: Op[], copy: boolean): unknown[] {
    let now = Date.parse('2025-01-31T12:00:00.000Z');
    const tracer = createTracer({ clock: () => now++ });
    let recorderNow = 0;
    const recorder = createModelCallRecorder({
      tracer,
      clock: () => (recorderNow += 1),
      onRecordingError: () => {},
    });
    const conversation: NeutralMessage[] = [];
    let turn = 0;
    for (const o of ops) {
      const target = 'at' in o ? conversation[o.at % Math.max(conversation.length, 1)] : undefined;
      if (o.kind === 'user') conversation.push({ role: 'user', content: o.text || 'hi' });
      else if (o.kind === 'assistant') conversation.push({ role: 'assistant', content: o.text });
      else if (o.kind === 'tool')
        conversation.push({ role: 'tool', content: o.text, tool_call_id: `c${turn}` });
      else if (o.kind === 'edit' && target) target.content = o.text;
      else if (o.kind === 'role' && target)
        target.role = target.role === 'user' ? 'system' : 'user';
      else if (o.kind === 'parts' && target)
        target.content = [{ type: 'text', text: String(target.content ?? '') }];
      else if (o.kind === 'calls' && target)
        target.tool_calls = [
          { id: `c${turn}`, type: 'function', function: { name: 'f', arguments: '{}' } },
        ];
      else if (o.kind === 'fork') conversation.length = Math.min(conversation.length, o.at);
      else if (o.kind === 'call') {
        turn++;
        const messages = copy ? structuredClone(conversation) : conversation;
        recorder.start({ provider: 'p', model: 'm', messages }).finish({
          text: o.answer || null,
          toolCalls: [{ id: `c${turn}`, name: 'f', arguments: '{}' }],
        });
        conversation.push({
          role: 'assistant',
          content: o.answer || null,
          tool_calls: [
            { id: `c${turn}`, type: 'function', function: { name: 'f', arguments: '{}' } },
          ],
        });
      }
    }
    const ids = new Map<string, number>();
    const idOf = (id: string | null) => {
      if (id === null) return null;
      if (!ids.has(id)) ids.set(id, ids.size);
      return ids.get(id);
    };
    return tracer.blocks().map((block) => ({
      ...block,
      id: idOf(block.id),
      trace_id: 'trace',
      parent_block_id: idOf(block.parent_block_id),
    }));
  }

  it('records the same blocks whether a history is re-sent as the same objects (edited in place) or as copies (property)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 24 }), (ops) => {
        expect(run(ops, false)).toStrictEqual(run(ops, true));
      }),
      { numRuns: 300 },
    );
  });
});

describe('scrubRaw', () => {
  it('drops credential keys and keeps clean payloads as they are', () => {
    const clean = { model: 'm', choices: [{ message: { content: 'x' } }] };
    expect(scrubRaw(clean)).toBe(clean);
    expect(
      scrubRaw({ request: { model: 'm', headers: { authorization: 'Bearer sk' }, api_key: 'sk' } }),
    ).toEqual({ request: { model: 'm' } });
  });

  it('looks four levels deep, arrays included, and no deeper', () => {
    expect(scrubRaw({ a: { b: { c: { headers: 1, keep: 2 } } } })).toEqual({
      a: { b: { c: { keep: 2 } } },
    });
    const tooDeep = { a: { b: { c: { d: { headers: 1 } } } } };
    expect(scrubRaw(tooDeep)).toBe(tooDeep);
    expect(scrubRaw({ a: [{ headers: 1, keep: 2 }] })).toEqual({ a: [{ keep: 2 }] });
    expect(scrubRaw({ a: [[{ cookie: 1, keep: 2 }]] })).toEqual({ a: [[{ keep: 2 }]] });
    const arrayTooDeep = { a: [{ b: [{ headers: 1 }] }] };
    expect(scrubRaw(arrayTooDeep)).toBe(arrayTooDeep);
  });

  it('drops exactly the keys the credential pattern names, in any ASCII case (property)', () => {
    const pattern =
      /^(authorization|proxy-authorization|api[-_]?key|x-api-key|headers|cookie|set-cookie|password|secret|client[-_]?secret|access[-_]?token|bearer)$/i;
    const words = [
      'authorization',
      'proxy-authorization',
      'apikey',
      'api-key',
      'api_key',
      'x-api-key',
      'headers',
      'cookie',
      'set-cookie',
      'password',
      'secret',
      'clientsecret',
      'client_secret',
      'accesstoken',
      'access-token',
      'bearer',
      'content',
      'choices',
      'created',
      'annotations',
      'service_tier',
    ];
    // a word with some characters upper-cased, swapped for look-alikes or cut, or any string
    const key = fc.oneof(
      fc
        .tuple(
          fc.constantFrom(...words),
          fc.array(fc.nat(), { maxLength: 4 }),
          fc.constantFrom('', 'upper', 'ſ', 'K', 'ı', ' ', 'cut'),
        )
        .map(([word, positions, change]) => {
          const chars = [...word];
          for (const position of positions) {
            const at = position % chars.length;
            if (change === 'cut') chars.splice(at, 1);
            else if (change === 'upper' || change === '')
              chars[at] = (chars[at] as string).toUpperCase();
            else chars[at] = change;
          }
          return chars.join('');
        }),
      fc.string({ maxLength: 20 }),
    );
    fc.assert(
      fc.property(key, (name) => {
        const scrubbed = scrubRaw({ keep: 1, nested: { [name]: 'value' } }) as {
          nested: Record<string, unknown>;
        };
        expect(Object.hasOwn(scrubbed.nested, name)).toBe(!pattern.test(name));
      }),
      { numRuns: 2000 },
    );
  });
});
