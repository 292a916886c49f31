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
