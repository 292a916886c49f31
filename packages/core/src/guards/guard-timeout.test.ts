import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TraceEntry } from '../model/tool-records.js';
import { fakeTime, memoryLogger } from './__fixtures__/fake-time.js';
import { guard } from './guard.js';
import { GuardTimeoutError } from './guard-timeout-error.js';
import type { GuardCallContext } from './types.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A tool that settles only when told to, and records its signal. */
function controllable() {
  const signals: AbortSignal[] = [];
  const resolvers: ((value: string) => void)[] = [];
  const fn = (_q: string, context?: GuardCallContext) => {
    signals.push(context!.signal);
    return new Promise<string>((resolve) => resolvers.push(resolve));
  };
  return { fn, signals, resolvers };
}

describe('timeout', () => {
  it('aborts the attempt signal at the deadline and fails with status timeout', async () => {
    const tool = controllable();
    const entries: TraceEntry[] = [];
    const fn = guard(tool.fn, {
      name: 'slow',
      timeout: { timeoutSeconds: 2 },
      onEntry: (e) => entries.push(e),
    });
    const pending = fn('x').catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1999);
    expect(tool.signals[0]!.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = await pending;
    expect(error).toBeInstanceOf(GuardTimeoutError);
    expect(error).toMatchObject({ code: 'TIMEOUT', status: 'timeout' });
    expect(tool.signals[0]!.aborted).toBe(true);
    expect(tool.signals[0]!.reason).toBeInstanceOf(GuardTimeoutError);
    expect(entries[0]!.result.status).toBe('timeout');
    expect(entries[0]!.result.exception_type).toBe('GuardTimeoutError');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('shares one timer across calls and leaves nothing behind once the deadline has passed', async () => {
    const fn = guard(async (q: string) => q, { timeout: { timeoutSeconds: 30 } });
    for (let i = 0; i < 100; i++) await expect(fn('fast')).resolves.toBe('fast');
    // one (unref'd) timer for every call of this guard, not one per call
    expect(vi.getTimerCount()).toBe(1);
    const failing = guard(
      async () => {
        throw new Error('nope');
      },
      { timeout: { timeoutSeconds: 30 } },
    );
    await expect(failing()).rejects.toThrow('nope');
    expect(vi.getTimerCount()).toBe(2);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('timed-out attempts are retried, each with its own deadline and signal', async () => {
    const time = fakeTime();
    const tool = controllable();
    const entries: TraceEntry[] = [];
    const fn = guard(tool.fn, {
      timeout: { timeoutSeconds: 1 },
      retry: { maxRetries: 1 },
      sleep: time.sleep,
      onEntry: (e) => entries.push(e),
    });
    const pending = fn('x');
    await vi.advanceTimersByTimeAsync(1000);
    expect(tool.signals).toHaveLength(2);
    tool.resolvers[1]!('second');
    await expect(pending).resolves.toBe('second');
    expect(tool.signals[0]!.aborted).toBe(true);
    expect(tool.signals[1]!.aborted).toBe(false);
    expect(entries[0]!.result).toMatchObject({ status: 'success', retry_count: 1 });
  });

  it('onTimeout warn reports the passed deadline and keeps waiting; log only records', async () => {
    for (const action of ['warn', 'log'] as const) {
      const logger = memoryLogger();
      const tool = controllable();
      const entries: TraceEntry[] = [];
      const fn = guard(tool.fn, {
        timeout: { timeoutSeconds: 1, onTimeout: action },
        logger,
        onEntry: (e) => entries.push(e),
      });
      const pending = fn('x');
      await vi.advanceTimersByTimeAsync(5000);
      expect(tool.signals[0]!.aborted).toBe(false);
      tool.resolvers[0]!('late');
      await expect(pending).resolves.toBe('late');
      expect(logger.warnings).toHaveLength(action === 'warn' ? 1 : 0);
      const decisions = (entries[0]!.result.metadata!.guard as { decisions: unknown[] }).decisions;
      expect(decisions).toContainEqual(
        expect.objectContaining({ guard: 'timeout', event: 'deadline', action }),
      );
      expect(entries[0]!.result.status).toBe('success');
    }
  });

  it("the caller's abort aborts the attempt signal and ends the call at once", async () => {
    const tool = controllable();
    const controller = new AbortController();
    const fn = guard(tool.fn, { timeout: { timeoutSeconds: 60 }, retry: {} });
    const pending = fn.invoke({ signal: controller.signal }, 'x').catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    const reason = new Error('stop');
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(tool.signals[0]!.aborted).toBe(true);
    expect(tool.signals[0]!.reason).toBe(reason);
    expect(tool.signals).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('without a timeout the caller signal is the attempt signal', async () => {
    const tool = controllable();
    const controller = new AbortController();
    const fn = guard(tool.fn);
    const pending = fn.invoke({ signal: controller.signal }, 'x').catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    expect(tool.signals[0]).toBe(controller.signal);
    controller.abort('gone');
    expect(await pending).toBe('gone');
  });

  it('a guard-wide signal already aborted refuses at once', async () => {
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    let ran = false;
    const fn = guard(
      async () => {
        ran = true;
      },
      { signal: controller.signal },
    );
    await expect(fn()).rejects.toThrow('shutting down');
    expect(ran).toBe(false);
  });
});
