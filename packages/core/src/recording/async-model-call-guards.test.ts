import { describe, expect, it } from 'vitest';
import { BudgetExceededError } from '../guards/budget-exceeded-error.js';
import { createMemoryCircuitBreakerStore } from '../guards/circuit-breaker-store.js';
import { CircuitOpenError } from '../guards/circuit-open-error.js';
import { type CostLedger, createMemoryCostLedger } from '../guards/cost-ledger.js';
import { createBudget } from '../guards/create-budget.js';
import { GuardTimeoutError } from '../guards/guard-timeout-error.js';
import { createMemoryRateLimitStore } from '../guards/rate-limit-store.js';
import { RateLimitedError } from '../guards/rate-limited-error.js';
import { delayedStore } from '../testing/delayed-store.js';
import { createTracer } from '../tracing/index.js';
import { createModelCallGuards } from './create-model-call-guards.js';
import { createModelCallRecorder } from './create-model-call-recorder.js';
import type { NeutralMessage } from './types.js';

// Stores shared between processes (Redis) answer with promises: delayedStore wraps the
// in-memory stores so each answer arrives a little later, as over a network.
const asyncRateLimitStore = () => delayedStore(createMemoryRateLimitStore());
const asyncBreakerStore = () => delayedStore(createMemoryCircuitBreakerStore());
const asyncLedger = () => delayedStore(createMemoryCostLedger());

const user = (content: string): NeutralMessage => ({ role: 'user', content });
/** The default session's account shows no spend, nothing held and no call counted. */
const expectUntouched = async (ledger: CostLedger) =>
  expect(await ledger.spent('default')).toEqual({
    spentMicroUsd: 0,
    reservedMicroUsd: 0,
    calls: 0,
  });
const pricer = (_model: string, usage: { inputTokens: number; outputTokens: number }) => {
  const micro = (usage.inputTokens + usage.outputTokens) * 10;
  return { cost_usd: micro / 1e6, cost_micro_usd: micro };
};

describe('model-call guards with shared (asynchronous) stores', () => {
  it('admit asynchronously: the handle says so, and an admitted call records as usual', async () => {
    const tracer = createTracer();
    const costLedger = asyncLedger();
    const budget = createBudget({ maxCostPerSession: 0.01, costLedger });
    const recorder = createModelCallRecorder({
      tracer,
      pricer,
      guards: createModelCallGuards({
        rateLimit: { callsPerMinute: 60, burst: 5, store: asyncRateLimitStore() },
        circuitBreaker: { store: asyncBreakerStore() },
        budget,
      }),
    });
    const call = recorder.start({ provider: 'p', model: 'm', messages: [user('q')] });
    expect(call.admission).toBeInstanceOf(Promise);
    await call.admission;
    call.finish({ text: 'a', usage: { inputTokens: 10, outputTokens: 5 } });
    const decisions = tracer.blocks().at(-1)?.metadata.decisions as Record<string, unknown>[];
    expect(decisions.map((d) => `${d.guard}:${d.event}`)).toEqual([
      'budget:reserved',
      'budget:settled',
    ]);
    expect(decisions[1]).toMatchObject({ charged_micro_usd: 150 });
    // the settlement reaches the shared ledger after the call is recorded
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await costLedger.spent('default')).toEqual({
      spentMicroUsd: 150,
      reservedMicroUsd: 0,
      calls: 1,
    });
  });

  it('a streamed call is cut off before it passes a shared session budget', async () => {
    const tracer = createTracer();
    const budget = createBudget({ maxCostPerSession: 0.0001, costLedger: asyncLedger() });
    const recorder = createModelCallRecorder({
      tracer,
      pricer,
      guards: createModelCallGuards({ budget }),
    });
    const call = recorder.start({ provider: 'p', model: 'm', messages: [user('q')], stream: true });
    await call.admission;
    let chunks = 0;
    let stop: Error | undefined;
    while (stop === undefined && chunks < 1000) {
      chunks++;
      stop = call.chunk({ text: 'x'.repeat(8) });
    }
    if (stop !== undefined) call.fail(stop);
    // as with an in-memory ledger: ~10 for the input, then 20 per chunk; a fifth would be 110
    expect(stop).toBeInstanceOf(BudgetExceededError);
    expect(chunks).toBe(4);
    const decisions = tracer.blocks().at(-1)?.metadata.decisions as Record<string, unknown>[];
    expect(decisions.find((d) => d.event === 'settled')).toMatchObject({ charged_micro_usd: 90 });
  });

  it('a refusal rejects the admission with the typed error, records it, and aborts the signal', async () => {
    const tracer = createTracer();
    const budget = createBudget({ maxCallsPerSession: 1, costLedger: asyncLedger() });
    const recorder = createModelCallRecorder({
      tracer,
      pricer,
      guards: createModelCallGuards({ budget }),
    });
    const first = recorder.start({ provider: 'p', model: 'm', messages: [user('one')] });
    await first.admission;
    first.finish({ text: 'ok' });
    const second = recorder.start({ provider: 'p', model: 'm', messages: [user('two')] });
    const error = await second.admission?.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(second.signal.aborted).toBe(true);
    expect(second.signal.reason).toBe(error);
    // an adapter whose request then fails on the aborted signal gets the guard's error back,
    // and the refusal is recorded once
    expect(second.end(new DOMException('aborted', 'AbortError'))).toBe(error);
    const answers = tracer
      .blocks()
      .filter((b) => b.sub_type === 'MESSAGE' && b.payload.role === 'assistant');
    expect(answers.map((b) => b.metadata.status)).toEqual(['success', 'budget_exceeded']);
  });

  it('rate limit and circuit breaker refuse through the admission too', async () => {
    const recorder = createModelCallRecorder({
      tracer: createTracer(),
      guards: createModelCallGuards({
        rateLimit: { callsPerMinute: 1, burst: 1, store: asyncRateLimitStore() },
      }),
    });
    await recorder.start({ provider: 'p', model: 'm', messages: [user('a')] }).admission;
    await expect(
      recorder.start({ provider: 'p', model: 'm', messages: [user('b')] }).admission,
    ).rejects.toBeInstanceOf(RateLimitedError);

    const changes: string[] = [];
    const breaker = createModelCallRecorder({
      tracer: createTracer(),
      guards: createModelCallGuards({
        circuitBreaker: {
          failureThreshold: 1,
          store: asyncBreakerStore(),
          onStateChange: (change) => changes.push(`${change.from}->${change.to}`),
        },
      }),
    });
    const failing = breaker.start({ provider: 'p', model: 'm', messages: [user('a')] });
    await failing.admission;
    failing.fail(new Error('HTTP 500'));
    // the store's answer (the circuit opened) arrives after the call was recorded
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(changes).toEqual(['closed->open']);
    await expect(
      breaker.start({ provider: 'p', model: 'm', messages: [user('b')] }).admission,
    ).rejects.toBeInstanceOf(CircuitOpenError);
  });

  it('an unawaited refusal is no unhandled rejection; synchronous stores set no admission', async () => {
    const recorder = createModelCallRecorder({
      tracer: createTracer(),
      guards: createModelCallGuards({
        rateLimit: { callsPerMinute: 1, burst: 1, store: asyncRateLimitStore() },
      }),
    });
    recorder.start({ provider: 'p', model: 'm', messages: [user('a')] });
    const refused = recorder.start({ provider: 'p', model: 'm', messages: [user('b')] });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(refused.signal.aborted).toBe(true);
    const sync = createModelCallRecorder({
      tracer: createTracer(),
      guards: createModelCallGuards({ rateLimit: { callsPerMinute: 60, sharedKey: '' } }),
    });
    expect(sync.start({ provider: 'p', model: 'm', messages: [user('a')] }).admission).toBe(
      undefined,
    );
  });

  it('a call ended before its admission answers holds nothing and is recorded once', async () => {
    const tracer = createTracer();
    const costLedger = asyncLedger();
    const budget = createBudget({ maxCostPerSession: 0.01, costLedger });
    const recorder = createModelCallRecorder({
      tracer,
      pricer,
      guards: createModelCallGuards({ budget }),
    });
    // the caller gives up (its signal aborts) while the shared ledger has not answered yet
    const call = recorder.start({ provider: 'p', model: 'm', messages: [user('q')] });
    call.cancel();
    await call.admission;
    await new Promise((resolve) => setTimeout(resolve, 10));
    // the reservation the ledger made for it is given back: the session's budget is whole
    await expectUntouched(costLedger);
    expect(tracer.blocks().filter((block) => block.sub_type === 'MESSAGE')).toHaveLength(2);

    // refused after it ended: no second record of the call
    const limitedTracer = createTracer();
    const limited = createModelCallRecorder({
      tracer: limitedTracer,
      guards: createModelCallGuards({
        rateLimit: { callsPerMinute: 1, burst: 1, store: asyncRateLimitStore() },
      }),
    });
    await limited.start({ provider: 'p', model: 'm', messages: [user('a')] }).admission;
    const refused = limited.start({ provider: 'p', model: 'm', messages: [user('b')] });
    refused.cancel();
    await expect(refused.admission).rejects.toBeInstanceOf(RateLimitedError);
    const trace = limitedTracer.blocks();
    expect(trace.filter((block) => block.metadata.status === 'cancelled')).toHaveLength(1);
    expect(trace.filter((block) => block.metadata.status === 'rate_limited')).toHaveLength(0);
  });

  it('a call refused after the budget admitted it is neither charged nor counted', async () => {
    const costLedger = createMemoryCostLedger();
    const budget = createBudget({ maxCostPerSession: 0.01, maxCallsPerSession: 1, costLedger });
    const recorder = createModelCallRecorder({
      tracer: createTracer(),
      pricer: () => {
        throw new Error('no price for this model');
      },
      guards: createModelCallGuards({ budget }),
    });
    for (let i = 0; i < 3; i++)
      expect(() => recorder.start({ provider: 'p', model: 'm', messages: [user('q')] })).toThrow(
        'no price for this model',
      );
    await expectUntouched(costLedger);
  });

  it("a stalled store never holds a call past its timeout or its caller's abort", async () => {
    // the store answers 1 s late; the call ends at its 30 ms timeout, before any answer (timers
    // fire in the order they expire, however loaded the machine: no wall-clock bound needed)
    const memory = createMemoryCostLedger();
    let storeAnswers = 0;
    const counted = new Proxy(memory, {
      get(target, name, receiver) {
        const value: unknown = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          storeAnswers++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const costLedger = delayedStore(counted, { delayMs: 1_000 });
    const budget = createBudget({ maxCostPerSession: 0.01, costLedger });
    const tracer = createTracer();
    const recorder = createModelCallRecorder({
      tracer,
      pricer,
      timeoutSeconds: 0.03,
      guards: createModelCallGuards({ budget }),
    });
    const timed = recorder.start({ provider: 'p', model: 'm', messages: [user('q')] });
    await expect(timed.admission).rejects.toBeInstanceOf(GuardTimeoutError);
    // ended at the timeout, not at the store's late answer
    expect(storeAnswers).toBe(0);
    // recorded as timed out, once, whether or not the adapter ends it too
    expect(timed.end(new Error('not sent'))).toBeInstanceOf(GuardTimeoutError);

    const caller = new AbortController();
    const aborted = recorder.start({
      provider: 'p',
      model: 'm',
      messages: [user('q')],
      signal: caller.signal,
    });
    caller.abort(new Error('the user left'));
    await expect(aborted.admission).rejects.toThrow('the user left');
    const answers = () =>
      tracer.blocks().filter((block) => (block.payload as { role?: string }).role === 'assistant');
    expect(answers().map((block) => block.metadata.status)).toEqual(['timeout', 'cancelled']);
    aborted.end(new Error('not sent'), caller.signal);
    expect(answers()).toHaveLength(2);
    // the ledger's late answers are given back: nothing held, nothing counted
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await expectUntouched(costLedger);
  });

  it('an onStateChange that throws is reported, late (shared store) or not', async () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const store of [asyncBreakerStore(), createMemoryCircuitBreakerStore()]) {
        const recorder = createModelCallRecorder({
          tracer: createTracer(),
          guards: createModelCallGuards({
            logger,
            circuitBreaker: {
              failureThreshold: 1,
              store,
              onStateChange: () => {
                throw new Error('metrics sink down');
              },
            },
          }),
        });
        const call = recorder.start({ provider: 'p', model: 'm', messages: [user('q')] });
        await call.admission;
        call.fail(new Error('HTTP 500'));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    expect(warnings).toEqual([
      'onStateChange of model calls to p:m threw: metrics sink down',
      'onStateChange of model calls to p:m threw: metrics sink down',
    ]);
  });

  it('a caller signal aborted before the call starts: refused at once, recorded in order', async () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({
      tracer,
      guards: createModelCallGuards({
        rateLimit: { callsPerSecond: 10, store: asyncRateLimitStore() },
      }),
    });
    const reason = new Error('gone before it began');
    const call = recorder.start({
      provider: 'p',
      model: 'm',
      messages: [user('q')],
      signal: AbortSignal.abort(reason),
    });
    await expect(call.admission).rejects.toBe(reason);
    expect(
      tracer
        .blocks()
        .map((block) => [(block.payload as { role?: string }).role, block.metadata.status]),
    ).toEqual([
      ['user', undefined],
      ['assistant', 'cancelled'],
    ]);
  });

  it("a caller's own deadline while the store decides is a timeout, as after admission", async () => {
    const tracer = createTracer();
    const recorder = createModelCallRecorder({
      tracer,
      guards: createModelCallGuards({
        rateLimit: {
          callsPerSecond: 10,
          store: delayedStore(createMemoryRateLimitStore(), { delayMs: 200 }),
        },
      }),
    });
    const call = recorder.start({
      provider: 'p',
      model: 'm',
      messages: [user('q')],
      signal: AbortSignal.timeout(20),
    });
    await expect(call.admission).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(tracer.blocks().at(-1)?.metadata.status).toBe('timeout');
  });

  it('a call that ended while one guard decided asks no later guard (a token is not taken)', async () => {
    const recorder = createModelCallRecorder({
      tracer: createTracer(),
      guards: createModelCallGuards({
        circuitBreaker: {
          store: delayedStore(createMemoryCircuitBreakerStore(), { delayMs: 40 }),
        },
        rateLimit: { callsPerMinute: 1, burst: 1, sharedKey: '' },
      }),
    });
    const caller = new AbortController();
    const first = recorder.start({
      provider: 'p',
      model: 'm',
      messages: [user('a')],
      signal: caller.signal,
    });
    setTimeout(() => caller.abort(), 5);
    await expect(first.admission).rejects.toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 80));
    // the burst of one is still there for the next call
    const second = recorder.start({ provider: 'p', model: 'm', messages: [user('b')] });
    await expect(second.admission).resolves.toBeUndefined();
  });

  it('a guard whose ticket cannot be given back does not keep the others', async () => {
    const costLedger = delayedStore(createMemoryCostLedger(), { delayMs: 30 });
    const errors: unknown[] = [];
    const recorder = createModelCallRecorder({
      tracer: createTracer(),
      pricer,
      onRecordingError: (error) => errors.push(error),
      guards: [
        {
          name: 'custom',
          admit: () => ({
            release: () => {
              throw new Error('cannot give it back');
            },
          }),
        },
        ...createModelCallGuards({ budget: createBudget({ maxCostPerSession: 1, costLedger }) }),
      ],
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const call = recorder.start({ provider: 'p', model: 'm', messages: [user('q')] });
      call.cancel();
      await call.admission;
      await new Promise((resolve) => setTimeout(resolve, 80));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    expect(errors).toHaveLength(1);
    await expectUntouched(costLedger);
  });
});
