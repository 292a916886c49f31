import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMonitor } from './create-monitor.js';
import { parsePolicy } from './parse-policy.js';

const policy = parsePolicy(`
  raise "output then call" if:
      (out: ToolOutput) -> (c: ToolCall)
      out is tool:fetch
      c is tool:send
  raise "call right after user" if:
      (u: Message) ~> (c: ToolCall)
      u.role == "user"
  raise "same args twice" if:
      (a: ToolCall) -> (b: ToolCall)
      a.function.arguments == b.function.arguments
  raise "three sends" if:
      count(min=3):
          (c: ToolCall)
          c is tool:send
`);

const eventArbitrary = fc.oneof(
  fc.constant({ role: 'user', content: 'hi' }),
  fc
    .array(
      fc.record({
        name: fc.constantFrom('fetch', 'send', 'other'),
        x: fc.integer({ min: 0, max: 2 }),
      }),
      { minLength: 0, maxLength: 2 },
    )
    .map((calls) => ({
      role: 'assistant',
      content: calls.length === 0 ? 'thinking' : null,
      tool_calls: calls.map((c) => ({
        type: 'function',
        function: { name: c.name, arguments: { x: c.x } },
      })),
    })),
  fc.constant({ role: 'tool', content: 'result' }),
);

describe('incremental checking', () => {
  it('a monitor reports each key of the full check exactly once, whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.array(eventArbitrary, { maxLength: 14 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 14 }),
        (trace, sizes) => {
          const monitor = createMonitor(policy);
          const reported: string[] = [];
          let at = 0;
          for (const size of sizes) {
            reported.push(...monitor.append(trace.slice(at, at + size)).errors.map((e) => e.key));
            at += size;
          }
          reported.push(...monitor.sync(trace).errors.map((e) => e.key));
          expect(new Set(reported).size).toBe(reported.length);
          const expected = new Set(policy.check(trace).errors.map((e) => e.key));
          expect(new Set(reported)).toEqual(expected);
          expect(monitor.length).toBe(trace.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('checkPending reports only violations involving new events (or new whole-trace keys)', () => {
    fc.assert(
      fc.property(fc.array(eventArbitrary, { maxLength: 12 }), fc.nat(), (trace, cut) => {
        const split = trace.length === 0 ? 0 : cut % (trace.length + 1);
        const past = trace.slice(0, split);
        const pending = trace.slice(split);
        const fresh = policy.checkPending(past, pending).errors.map((e) => e.key);
        const before = new Set(policy.check(past).errors.map((e) => e.key));
        const after = policy.check(trace).errors;
        const expected = new Set(
          after
            .filter((e) =>
              e.rule.index === 3
                ? !before.has(e.key)
                : Object.values(e.bindings).some((b) => b.index >= split),
            )
            .map((e) => e.key),
        );
        expect(new Set(fresh)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('monitor.checkToolCall does not change the monitor state', () => {
    const monitor = policy.monitor();
    monitor.append([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'f', type: 'function', function: { name: 'fetch', arguments: {} } }],
      },
    ]);
    monitor.append([{ role: 'tool', tool_call_id: 'f', content: 'page' }]);
    const verdict = monitor.checkToolCall({ name: 'send', arguments: { x: 1 } });
    expect(verdict.allowed).toBe(false);
    expect(verdict.violations.map((v) => v.message)).toEqual(['output then call']);
    expect(monitor.length).toBe(2);
    // the real call arrives later and is reported once
    const appended = monitor.append([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 's', type: 'function', function: { name: 'send', arguments: { x: 1 } } },
        ],
      },
    ]);
    expect(appended.errors.map((e) => [e.message, e.key])).toEqual([
      ['output then call', '0:[1,2]'],
    ]);
    expect(monitor.violations).toHaveLength(1);
    expect(monitor.append([]).errors).toEqual([]);
  });
});

/**
 * Rules whose quantifier blocks read an outer variable: the block's value for an event changes as
 * the trace grows, so incremental checks must not keep it from when the event arrived (they kept
 * it as the variable's cached filter: a monitor, checkPending and checkToolCall missed `count`
 * violations and reported `not exists` ones that check() no longer had).
 */
const wholeTracePolicy = parsePolicy(`
  raise "three sends after a user message" if:
      (u: Message)
      u.role == "user"
      count(min=3):
          (c: ToolCall)
          c is tool:send
          u -> c
  raise "a send, and no fetch since the user message" if:
      (u: Message)
      u.role == "user"
      (c: ToolCall)
      c is tool:send
      not exists:
          (k: ToolCall)
          k is tool:fetch
          u -> k
  raise "send without a fetch before it" if:
      (call: ToolCall)
      call is tool:send
      not exists:
          (f: ToolCall)
          f is tool:fetch
          f -> call
  raise "a tool the user named was called after" if:
      (u: Message)
      u.role == "user"
      (w: str) in u.content.split(" ")
      exists:
          (c: ToolCall)
          c.function.name == w
          u -> c
`);

const wholeTraceEvents = fc.oneof(
  fc.constantFrom('hi', 'send', 'fetch send').map((content) => ({ role: 'user', content })),
  eventArbitrary,
);

/** The trace as a proposed call extends it: added to a last assistant message, else a new one. */
function withProposedCall(trace: Record<string, unknown>[], name: string) {
  const call = { type: 'function', function: { name, arguments: { x: 0 } } };
  const last = trace.at(-1);
  if (last?.role === 'assistant') {
    const calls = (last.tool_calls as unknown[] | undefined) ?? [];
    return {
      extended: [...trace.slice(0, -1), { ...last, tool_calls: [...calls, call] }],
      address: `${trace.length - 1}.tool_calls.${calls.length}`,
    };
  }
  return {
    extended: [...trace, { role: 'assistant', content: null, tool_calls: [call] }],
    address: `${trace.length}.tool_calls.0`,
  };
}

const keysOf = (errors: readonly { key: string }[]) => new Set(errors.map((e) => e.key));

describe('incremental checking agrees with check() on every prefix', () => {
  for (const [name, checked] of [
    ['flow rules and a count', policy],
    ['quantifier blocks that read outer variables', wholeTracePolicy],
  ] as const) {
    it(`${name}: each append reports the keys check() has on the prefix, not reported before`, () => {
      fc.assert(
        fc.property(
          fc.array(wholeTraceEvents, { maxLength: 12 }),
          fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 12 }),
          (trace, sizes) => {
            const monitor = checked.monitor();
            const reported = new Set<string>();
            let at = 0;
            for (const size of [...sizes, trace.length]) {
              if (at >= trace.length) break;
              at = Math.min(trace.length, at + size);
              const fresh = keysOf(monitor.sync(trace.slice(0, at)).errors);
              const expected = keysOf(checked.check(trace.slice(0, at)).errors);
              for (const key of reported) expected.delete(key);
              expect(fresh).toEqual(expected);
              for (const key of fresh) reported.add(key);
            }
          },
        ),
        { numRuns: 300 },
      );
    });

    it(`${name}: checkPending reports the keys check() has on past + pending and not on past`, () => {
      fc.assert(
        fc.property(fc.array(wholeTraceEvents, { maxLength: 12 }), fc.nat(), (trace, cut) => {
          const split = cut % (trace.length + 1);
          const past = trace.slice(0, split);
          const fresh = keysOf(checked.checkPending(past, trace.slice(split)).errors);
          const expected = keysOf(checked.check(trace).errors);
          for (const key of keysOf(checked.check(past).errors)) expected.delete(key);
          expect(fresh).toEqual(expected);
        }),
        { numRuns: 300 },
      );
    });

    it(`${name}: checkToolCall (and a monitor's) blocks exactly when check() finds the call's violations`, () => {
      fc.assert(
        fc.property(
          fc.array(wholeTraceEvents, { maxLength: 12 }),
          fc.constantFrom('send', 'fetch', 'other'),
          (trace, tool) => {
            const { extended, address } = withProposedCall(trace, tool);
            const before = keysOf(checked.check(trace).errors);
            // the call's own violations (its key may equal one of the baseline's: a call shares
            // its message's index), and whole-trace keys the call newly causes
            const expected = new Set(
              checked
                .check(extended)
                .errors.filter(
                  (e) =>
                    Object.values(e.bindings).some((b) => b.address === address) ||
                    !before.has(e.key),
                )
                .map((e) => e.key),
            );
            const proposed = { name: tool, arguments: { x: 0 } };
            const verdict = checked.checkToolCall(trace, proposed);
            expect(keysOf(verdict.violations)).toEqual(expected);
            expect(verdict.allowed).toBe(expected.size === 0);
            const monitor = checked.monitor();
            monitor.append(trace);
            const fromMonitor = monitor.checkToolCall(proposed);
            expect(keysOf(fromMonitor.violations)).toEqual(expected);
            expect(fromMonitor.allowed).toBe(expected.size === 0);
          },
        ),
        { numRuns: 300 },
      );
    });
  }
});
