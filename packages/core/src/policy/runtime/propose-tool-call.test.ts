import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../parse-policy.js';

// A proposed call is checked against the rules' assignments that bind it: a condition on the
// rule's call variable alone need not run on every earlier call of the trace (decision 050,
// session 12: `user_requested` was asked of all 29 calls of the bench's trace at each check).
const source = `from invariant.detectors import prompt_injection
raise "a call named after a flagged output" if:
    (out: ToolOutput) -> (call: ToolCall)
    prompt_injection(call.function.name, threshold=0.5)
    "leak" in out.content
`;

const call = (id: string, name: string) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: '{}' } }],
});
const trace = [
  { role: 'user', content: 'Check the files.' },
  ...Array.from({ length: 10 }, (_, i) => [
    call(`c${i}`, `read_${i}`),
    { role: 'tool', tool_call_id: `c${i}`, content: i === 3 ? 'leak: the keys' : 'nothing' },
  ]).flat(),
];

function counted() {
  const seen: string[] = [];
  const policy = parsePolicy(source, {
    detectors: {
      promptInjection: (text) => {
        seen.push(text);
        return text.startsWith('exfil') || text.startsWith('read_') ? 0.9 : 0;
      },
    },
  });
  return { policy, seen };
}

describe('proposeToolCall', () => {
  it('reads the conditions on the call variable for the proposed call only', () => {
    const { policy, seen } = counted();
    const verdict = policy.checkToolCall(trace, { name: 'exfiltrate', arguments: {} });
    expect(verdict.allowed).toBe(false);
    expect(verdict.violations.map((v) => v.bindings.call?.value)).toHaveLength(1);
    // the proposal's name, not the ten earlier calls' names
    expect(seen.filter((text) => text.startsWith('read_'))).toEqual([]);
    expect(seen).toContain('exfiltrate');
  });

  it('gives the same verdicts and violations as a whole-trace check of the trace with the call', () => {
    const { policy } = counted();
    const proposal = { name: 'read_11', arguments: {} };
    const verdict = policy.checkToolCall(trace, proposal);
    const whole = policy.check([...trace, call('c11', 'read_11')]).errors;
    // the whole-trace check also reports the earlier calls after the flagged output
    const onProposal = whole.filter((v) => v.bindings.call?.index === trace.length);
    expect(verdict.violations.map((v) => v.bindings.out?.index)).toEqual(
      onProposal.map((v) => v.bindings.out?.index),
    );
    expect(whole.length).toBeGreaterThan(onProposal.length);
  });

  it("keeps a monitor's later checks complete after proposals skipped earlier calls", () => {
    const { policy } = counted();
    const monitor = policy.monitor();
    monitor.append(trace.slice(0, 5));
    expect(monitor.checkToolCall({ name: 'read_x', arguments: {} }).allowed).toBe(true);
    // the earlier calls are read when an appended output can bind them
    const result = monitor.append(trace.slice(5));
    expect(result.errors.map((v) => v.bindings.call?.index)).toEqual([9, 11, 13, 15, 17, 19]);
    expect(monitor.checkToolCall({ name: 'exfiltrate', arguments: {} }).allowed).toBe(false);
  });
});
