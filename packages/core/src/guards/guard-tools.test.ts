import { beforeEach, describe, expect, it } from 'vitest';
import type { TraceEntry } from '../model/tool-records.js';
import { fakeTime } from './__fixtures__/fake-time.js';
import { BudgetExceededError } from './budget-exceeded-error.js';
import { guardTools } from './guard-tools.js';
import { resetRateLimits } from './rate-limit-store.js';
import { RateLimitedError } from './rate-limited-error.js';

beforeEach(() => resetRateLimits());

describe('guardTools', () => {
  it('guards every tool by name with shared and per-tool options and one shared budget', async () => {
    const time = fakeTime();
    const entries: TraceEntry[] = [];
    let sendFailures = 1;
    const tools = {
      async search(query: string) {
        return `r:${query}`;
      },
      async sendEmail(input: { to: string }) {
        if (sendFailures-- > 0) throw new Error('smtp');
        return { sent: input.to };
      },
    };
    const guarded = guardTools(tools, {
      clock: time.clock,
      sleep: time.sleep,
      retry: { maxRetries: 2 },
      budget: { maxCallsPerSession: 4 },
      onEntry: (e) => entries.push(e),
      tools: { sendEmail: { sideEffect: 'write', rateLimit: { callsPerMinute: 1 } } },
    });
    expect(Object.keys(guarded)).toEqual(['search', 'sendEmail']);
    expect(guarded.sendEmail.toolName).toBe('sendEmail');
    await expect(guarded.search('q')).resolves.toBe('r:q');
    // write tool: not retried
    await expect(guarded.sendEmail({ to: 'a@b.c' })).rejects.toThrow('smtp');
    await expect(guarded.sendEmail({ to: 'a@b.c' })).rejects.toBeInstanceOf(RateLimitedError);
    await guarded.search('q2');
    await guarded.search('q3');
    await expect(guarded.search('q4')).rejects.toBeInstanceOf(BudgetExceededError);
    expect(guarded.search.budget).toBe(guarded.sendEmail.budget);
    expect(entries.map((e) => [e.call.tool_name, e.result.status])).toEqual([
      ['search', 'success'],
      ['sendEmail', 'failure'],
      ['sendEmail', 'rate_limited'],
      ['search', 'success'],
      ['search', 'success'],
      ['search', 'budget_exceeded'],
    ]);
  });

  it('one detector knows every tool name', async () => {
    const entries: TraceEntry[] = [];
    const guarded = guardTools(
      { a: async () => 1, b: async () => 2 },
      {
        onEntry: (e) => entries.push(e),
        hallucination: { threshold: 0.5 },
        tools: { b: { hallucination: { threshold: 0.99 } } },
      },
    );
    await expect(guarded.a()).resolves.toBe(1);
    await expect(guarded.b()).resolves.toBe(2);
    expect(
      entries.map((e) => [
        e.result.hallucination?.signals.unknown_tool,
        e.result.hallucination?.signals.threshold,
      ]),
    ).toEqual([
      [false, 0.5],
      [false, 0.99],
    ]);
  });
});
