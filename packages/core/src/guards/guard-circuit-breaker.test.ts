import { describe, expect, it } from 'vitest';
import type { TraceEntry } from '../model/tool-records.js';
import { fakeTime, memoryLogger } from './__fixtures__/fake-time.js';
import { createMemoryCircuitBreakerStore } from './circuit-breaker-store.js';
import { CircuitOpenError } from './circuit-open-error.js';
import { guard } from './guard.js';
import type { CircuitStateChange } from './guard-options.js';
import { RateLimitedError } from './rate-limited-error.js';

/** A tool whose behaviour is switched from outside; pending calls settle on demand. */
function switchable() {
  let mode: 'ok' | 'fail' | 'hold' = 'ok';
  let runs = 0;
  const held: { resolve: (v: string) => void; reject: (e: unknown) => void }[] = [];
  const fn = async (_q: string) => {
    runs++;
    if (mode === 'fail') throw new Error('down');
    if (mode === 'hold')
      return new Promise<string>((resolve, reject) => held.push({ resolve, reject }));
    return 'up';
  };
  return {
    fn,
    held,
    set: (next: typeof mode) => {
      mode = next;
    },
    runs: () => runs,
  };
}

describe('circuit breaker', () => {
  it('closed → open after failureThreshold consecutive failures → half_open after recoveryTimeout → closed after successThreshold successes', async () => {
    const time = fakeTime();
    const tool = switchable();
    const changes: CircuitStateChange[] = [];
    const entries: TraceEntry[] = [];
    const fn = guard(tool.fn, {
      name: 'svc',
      clock: time.clock,
      circuitBreaker: {
        failureThreshold: 3,
        recoveryTimeout: 30,
        successThreshold: 2,
        onStateChange: (c) => changes.push(c),
      },
      onEntry: (e) => entries.push(e),
    });
    tool.set('fail');
    await expect(fn('a')).rejects.toThrow('down');
    await expect(fn('a')).rejects.toThrow('down');
    expect(fn.breakerState).toBe('closed');
    await expect(fn('a')).rejects.toThrow('down');
    expect(fn.breakerState).toBe('open');
    expect(changes.map((c) => [c.from, c.to, c.reason])).toEqual([
      ['closed', 'open', 'failure_threshold'],
    ]);

    const refused = await fn('a').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CircuitOpenError);
    expect(refused).toMatchObject({ code: 'CIRCUIT_OPEN', status: 'circuit_open' });
    expect(tool.runs()).toBe(3);

    time.advance(30_000);
    tool.set('ok');
    await expect(fn('a')).resolves.toBe('up');
    expect(fn.breakerState).toBe('half_open');
    await expect(fn('a')).resolves.toBe('up');
    expect(fn.breakerState).toBe('closed');
    expect(changes.map((c) => [c.from, c.to, c.reason])).toEqual([
      ['closed', 'open', 'failure_threshold'],
      ['open', 'half_open', 'recovery_timeout'],
      ['half_open', 'closed', 'probes_succeeded'],
    ]);
    expect(changes.every((c) => c.toolName === 'svc')).toBe(true);
    // transitions are recorded in the entry of the call that caused them
    const transitions = entries.flatMap((e) =>
      (e.result.metadata!.guard as { decisions: { event: string; to?: string }[] }).decisions
        .filter((d) => d.event === 'transition')
        .map((d) => d.to),
    );
    expect(transitions).toEqual(['open', 'half_open', 'closed']);
  });

  it('a success resets the consecutive failure count', async () => {
    const tool = switchable();
    const fn = guard(tool.fn, { circuitBreaker: { failureThreshold: 2 } });
    tool.set('fail');
    await fn('a').catch(() => undefined);
    tool.set('ok');
    await fn('a');
    tool.set('fail');
    await fn('a').catch(() => undefined);
    expect(fn.breakerState).toBe('closed');
  });

  it('one failed probe re-opens the circuit', async () => {
    const time = fakeTime();
    const tool = switchable();
    const fn = guard(tool.fn, {
      clock: time.clock,
      circuitBreaker: { failureThreshold: 1, recoveryTimeout: 10, successThreshold: 3 },
    });
    tool.set('fail');
    await fn('a').catch(() => undefined);
    time.advance(10_000);
    await expect(fn('a')).rejects.toThrow('down');
    expect(fn.breakerState).toBe('open');
    await expect(fn('a')).rejects.toBeInstanceOf(CircuitOpenError);
  });

  it('lets through at most successThreshold concurrent half-open probes (1,000 concurrent calls)', async () => {
    const time = fakeTime();
    const tool = switchable();
    const fn = guard(tool.fn, {
      clock: time.clock,
      circuitBreaker: { failureThreshold: 1, recoveryTimeout: 5, successThreshold: 3 },
    });
    tool.set('fail');
    await fn('a').catch(() => undefined);
    time.advance(5000);
    tool.set('hold');
    const runsBefore = tool.runs();
    const calls = Array.from({ length: 1000 }, () =>
      fn('a').then(
        () => 'ok',
        (e: unknown) => e,
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(tool.runs() - runsBefore).toBe(3);
    for (const h of tool.held) h.resolve('up');
    const results = await Promise.all(calls);
    expect(results.filter((r) => r === 'ok')).toHaveLength(3);
    expect(results.filter((r) => r instanceof CircuitOpenError)).toHaveLength(997);
    expect(fn.breakerState).toBe('closed');
  });

  it('a probe refused later (rate limit) frees its slot without counting', async () => {
    const time = fakeTime();
    const tool = switchable();
    const fn = guard(tool.fn, {
      clock: time.clock,
      circuitBreaker: { failureThreshold: 1, recoveryTimeout: 1, successThreshold: 1 },
      rateLimit: { callsPerMinute: 1, sharedKey: '' },
    });
    tool.set('fail');
    await fn('a').catch(() => undefined);
    time.advance(1000);
    tool.set('ok');
    // half-open: admitted as the only probe, then refused by the limiter; the slot is freed
    await expect(fn('a')).rejects.toBeInstanceOf(RateLimitedError);
    await expect(fn('a')).rejects.toBeInstanceOf(RateLimitedError);
    expect(fn.breakerState).toBe('half_open');
    time.advance(60_000);
    await expect(fn('a')).resolves.toBe('up');
    expect(fn.breakerState).toBe('closed');
  });

  it('isFailure decides what counts; caller aborts never count', async () => {
    const tool = switchable();
    const fn = guard(tool.fn, { circuitBreaker: { failureThreshold: 1, isFailure: () => false } });
    tool.set('fail');
    await fn('a').catch(() => undefined);
    expect(fn.breakerState).toBe('closed');

    const controller = new AbortController();
    const held = switchable();
    held.set('hold');
    const fn2 = guard(held.fn, { circuitBreaker: { failureThreshold: 1 } });
    const pending = fn2.invoke({ signal: controller.signal }, 'a').catch(() => undefined);
    controller.abort();
    await pending;
    expect(fn2.breakerState).toBe('closed');
  });

  it('onOpen warn and log let the call run (not as a probe)', async () => {
    for (const onOpen of ['warn', 'log'] as const) {
      const logger = memoryLogger();
      const tool = switchable();
      const fn = guard(tool.fn, {
        logger,
        circuitBreaker: { failureThreshold: 1, recoveryTimeout: 60, onOpen },
      });
      tool.set('fail');
      await fn('a').catch(() => undefined);
      tool.set('ok');
      await expect(fn('a')).resolves.toBe('up');
      expect(fn.breakerState).toBe('open');
      expect(logger.warnings).toHaveLength(onOpen === 'warn' ? 1 : 0);
      // the warning says the call runs, not that it was refused
      for (const warning of logger.warnings) {
        expect(JSON.stringify(warning)).toContain("the call runs (onOpen: 'warn')");
        expect(JSON.stringify(warning)).not.toContain('not run');
      }
    }
  });

  it('a shared store and key share one breaker; reset closes it', async () => {
    const store = createMemoryCircuitBreakerStore();
    const tool = switchable();
    const a = guard(tool.fn, {
      name: 'a',
      circuitBreaker: { failureThreshold: 1, store, key: 'svc' },
    });
    const b = guard(tool.fn, {
      name: 'b',
      circuitBreaker: { failureThreshold: 1, store, key: 'svc' },
    });
    tool.set('fail');
    await a('x').catch(() => undefined);
    await expect(b('x')).rejects.toBeInstanceOf(CircuitOpenError);
    await store.reset('svc');
    tool.set('ok');
    await expect(b('x')).resolves.toBe('up');
    expect(
      store.state('svc', { failureThreshold: 1, recoveryTimeoutMs: 1, successThreshold: 1 }, 0),
    ).toBe('closed');
  });
});
