import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors/index.js';
import { createTracer } from '../tracing/create-tracer.js';
import { guard } from './guard.js';

describe("invoke's per-call options", () => {
  it.each([
    ['null', null, 'invoke'],
    ['a string signal', { signal: 'x' }, 'signal'],
    ['a typo', { sesionId: 's' }, 'sesionId'],
    ['a number session', { sessionId: 5 }, 'sessionId'],
    ['text metadata', { metadata: 'x' }, 'metadata'],
    ['a tracer that is not one', { tracer: {} }, 'tracer'],
    ['a callId that is not text', { callId: 7 }, 'callId'],
  ])(
    'are checked where given: %s is a ConfigurationError naming it',
    async (_label, options, path) => {
      const ran: unknown[] = [];
      const fn = guard(async (x: number) => ran.push(x), { name: 'tool' });
      const error = await (fn.invoke as (options: unknown, x: number) => Promise<unknown>)(
        options,
        1,
      ).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'INVALID_OPTIONS' });
      expect((error as Error).message).toContain(path);
      expect(ran).toEqual([]);
    },
  );

  it('the usual options pass, and the call runs with them', async () => {
    const tracer = createTracer();
    tracer.logMessage({ role: 'user', content: 'go' });
    const fn = guard(async (x: number) => x * 2, { name: 'tool' });
    const entries: unknown[] = [];
    await expect(
      fn.invoke(
        {
          signal: new AbortController().signal,
          sessionId: 's',
          metadata: { who: 'me' },
          callId: 'call_1',
          tracer,
          onEntry: (entry) => entries.push(entry),
          errorOutput: String,
        },
        2,
      ),
    ).resolves.toBe(4);
    expect(entries).toHaveLength(1);
    expect(tracer.findToolCall('call_1')).toBeDefined();
    await expect(fn.invoke({ tracer: null }, 3)).resolves.toBe(6);
    // no options at all (a caller forwarding its optional options) is no options
    await expect(fn.invoke(undefined as never, 4)).resolves.toBe(8);
  });
});

describe("the guard's signal", () => {
  it('aborts a call that passes a signal of its own too (a shutdown stops every call)', async () => {
    const shutdown = new AbortController();
    shutdown.abort(new Error('shutting down'));
    const ran: string[] = [];
    const search = guard(
      async (q: string) => {
        ran.push(q);
        return q;
      },
      { name: 'search', signal: shutdown.signal },
    );
    await expect(search.invoke({ signal: new AbortController().signal }, 'x')).rejects.toThrow(
      'shutting down',
    );
    expect(ran).toEqual([]);
  });

  it('aborts a running call that passed its own signal', async () => {
    const shutdown = new AbortController();
    const search = guard(
      (_q: string, ...rest: unknown[]) =>
        new Promise((_resolve, reject) => {
          const signal = (rest.at(-1) as { signal?: AbortSignal } | undefined)?.signal;
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
      { name: 'search', signal: shutdown.signal },
    );
    const call = search.invoke({ signal: new AbortController().signal }, 'x');
    shutdown.abort(new Error('shutting down'));
    await expect(call).rejects.toThrow('shutting down');
  });
});
