import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createTracer } from './create-tracer.js';
import { currentTracer, withTrace } from './with-trace.js';

describe('withTrace / currentTracer', () => {
  it('has no tracer outside any scope', () => {
    expect(currentTracer()).toBeUndefined();
  });

  it('returns the synchronous result and exposes the tracer inside', () => {
    const tracer = createTracer();
    const result = withTrace(tracer, () => {
      expect(currentTracer()).toBe(tracer);
      return 42;
    });
    expect(result).toBe(42);
    expect(currentTracer()).toBeUndefined();
  });

  it('propagates across await, timers and promise callbacks', async () => {
    const tracer = createTracer();
    const seen = await withTrace(tracer, async () => {
      const found: unknown[] = [];
      await Promise.resolve();
      found.push(currentTracer());
      await nextTurn();
      found.push(currentTracer());
      await new Promise<void>((resolve) => {
        setImmediate(() => {
          found.push(currentTracer());
          resolve();
        });
      });
      found.push(await Promise.resolve().then(() => currentTracer()));
      return found;
    });
    expect(seen).toEqual([tracer, tracer, tracer, tracer]);
  });

  it('nests: the inner scope shadows the outer until it returns', async () => {
    const outer = createTracer();
    const inner = createTracer();
    await withTrace(outer, async () => {
      expect(currentTracer()).toBe(outer);
      await withTrace(inner, async () => {
        await nextTurn();
        expect(currentTracer()).toBe(inner);
      });
      expect(currentTracer()).toBe(outer);
    });
  });

  it('keeps concurrent scopes apart', async () => {
    const a = createTracer();
    const b = createTracer();
    const run = (tracer: typeof a, turns: number) =>
      withTrace(tracer, async () => {
        for (let i = 0; i < turns; i++) await nextTurn();
        tracer.logMessage({ role: 'user', content: `from ${tracer.traceId}` });
        return currentTracer();
      });
    const [first, second] = await Promise.all([run(a, 3), run(b, 1)]);
    expect(first).toBe(a);
    expect(second).toBe(b);
    expect(a.blocks()).toHaveLength(1);
    expect(b.blocks()).toHaveLength(1);
  });

  it('lets adapters log into the active trace', () => {
    const tracer = createTracer();
    withTrace(tracer, () => {
      currentTracer()?.logMessage({ role: 'user', content: 'hi' });
    });
    expect(tracer.blocks()).toHaveLength(1);
  });

  it('restores the outer scope when fn throws', () => {
    const tracer = createTracer();
    expect(() =>
      withTrace(tracer, () => {
        throw new TypeError('boom');
      }),
    ).toThrow('boom');
    expect(currentTracer()).toBeUndefined();
  });
});
