import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Block } from '../model/index.js';
import { createTracer } from '../tracing/create-tracer.js';
import { guard } from './guard.js';

/**
 * A guard whose only listener is a tracer notes a fast-path call's budget decisions and attempt
 * as numbers and builds the objects when the tracer builds the blocks (later, for a tracer with
 * no sink). A guard that also has an `onEntry` hook builds them at once, through the entry. The
 * two traces must be the same, decision for decision, for every mix of outcomes and limits.
 */
type Step = 'ok' | 'fail' | 'wait';

const steps = fc.array(
  fc.tuple(fc.constantFrom<Step>('ok', 'ok', 'fail', 'wait'), fc.constantFrom(undefined, 's')),
  { minLength: 1, maxLength: 25 },
);

const options = fc.record({
  maxCostPerSession: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
  maxCallsPerSession: fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
  costPerCall: fc.integer({ min: 0, max: 3 }),
  alertThreshold: fc.constantFrom(0.5, 1),
  onExceed: fc.constantFrom('block' as const, 'warn' as const),
  sideEffect: fc.constantFrom(undefined, 'read' as const),
  failureThreshold: fc.integer({ min: 1, max: 3 }),
  budget: fc.boolean(),
});

/** Block ids, call ids and timings replaced: comparable across tracers. */
function normalise(blocks: readonly Block[]): unknown {
  const ids = new Map<string, number>();
  const idOf = (id: string | null) => {
    if (id === null) return null;
    if (!ids.has(id)) ids.set(id, ids.size);
    return ids.get(id);
  };
  return JSON.parse(
    JSON.stringify(
      blocks.map((block) => ({
        ...block,
        id: idOf(block.id),
        trace_id: 'trace',
        parent_block_id: idOf(block.parent_block_id),
      })),
      (key, value) =>
        key === 'call_id' ||
        key === 'duration_ms' ||
        key === 'execution_time_ms' ||
        key === 'created_at' ||
        key === 'updated_at' ||
        key === 'timestamp' ||
        key === 'at'
          ? 'x'
          : value,
    ),
  );
}

type Options = typeof options extends fc.Arbitrary<infer T> ? T : never;

function traced(o: Options, withHook: boolean, time: { now: number }) {
  const tracer = createTracer();
  tracer.logMessage({ role: 'user', content: 'go' });
  let fail = false;
  const usd = (micro: number | undefined) => (micro === undefined ? undefined : micro / 1e6);
  const fn = guard(async (_q: string) => (fail ? Promise.reject(new Error('down')) : 'ok'), {
    name: 'tool',
    tracer,
    clock: () => time.now,
    logger: { warn: () => {} },
    sideEffect: o.sideEffect,
    circuitBreaker: { failureThreshold: o.failureThreshold, recoveryTimeout: 10 },
    ...(o.budget
      ? {
          budget: {
            maxCostPerSession: usd(o.maxCostPerSession),
            maxCallsPerSession: o.maxCallsPerSession,
            costPerCall: usd(o.costPerCall),
            alertThreshold: o.alertThreshold,
            onExceed: o.onExceed,
          },
        }
      : {}),
    ...(withHook ? { onEntry: () => {} } : {}),
  });
  return {
    tracer,
    call: (step: Step, sessionId: string | undefined) => {
      fail = step === 'fail';
      const pending = sessionId === undefined ? fn('q') : fn.invoke({ sessionId }, 'q');
      return pending.catch(() => undefined);
    },
  };
}

describe('guard: decisions kept as numbers until the blocks are built', () => {
  it('make the same trace as decisions built at once', async () => {
    await fc.assert(
      fc.asyncProperty(steps, options, async (sequence, o) => {
        const time = { now: Date.UTC(2026, 0, 1) };
        const direct = traced(o, false, time);
        const viaEntry = traced(o, true, time);
        for (const [step, sessionId] of sequence) {
          if (step === 'wait') {
            time.now += 10_000;
            continue;
          }
          await direct.call(step, sessionId);
          await viaEntry.call(step, sessionId);
        }
        const blocks = direct.tracer.blocks();
        expect(blocks.length).toBe(1 + 2 * sequence.filter(([s]) => s !== 'wait').length);
        expect(normalise(blocks)).toEqual(normalise(viaEntry.tracer.blocks()));
      }),
      { numRuns: 200 },
    );
  });
});
