import { beforeEach, describe, expect, it, vi } from 'vitest';

/*
 * The price table (~40-55 ms to load) is loaded in the background when a model call starts, so
 * the first call of a cold process does not wait for it when its response is priced. Each test
 * imports fresh module instances: the table's "loaded" state is per instance.
 */

async function freshModules() {
  vi.resetModules();
  const pricing = await import('../pricing/price-usage.js');
  const { createModelCallPricer } = await import('./create-model-call-pricer.js');
  const { createModelCallRecorder } = await import('./create-model-call-recorder.js');
  const { createTracer } = await import('../tracing/create-tracer.js');
  return { pricing, createModelCallPricer, createModelCallRecorder, createTracer };
}

const nextTimers = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

describe('price table warm-up', () => {
  beforeEach(() => {
    vi.useRealTimers();
  });

  it('loads the table on a timer, never in the caller', async () => {
    const { pricing } = await freshModules();
    expect(pricing.isPriceTableLoaded()).toBe(false);
    pricing.warmPriceTable();
    expect(pricing.isPriceTableLoaded()).toBe(false);
    await nextTimers();
    expect(pricing.isPriceTableLoaded()).toBe(true);
  });

  it('starts when a model call starts, and the response is priced from the loaded table', async () => {
    const { pricing, createModelCallPricer, createModelCallRecorder, createTracer } =
      await freshModules();
    const tracer = createTracer();
    const recorder = createModelCallRecorder({
      tracer,
      pricer: createModelCallPricer({ provider: 'openai' }),
    });
    const call = recorder.start({
      provider: 'openai',
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    // starting the call (before the request is sent) did not load it...
    expect(pricing.isPriceTableLoaded()).toBe(false);
    // ...the wait for the model did
    await nextTimers();
    expect(pricing.isPriceTableLoaded()).toBe(true);
    call.finish({ text: 'hello', usage: { inputTokens: 1000, outputTokens: 100 } });
    const message = tracer.blocks().at(-1);
    expect(message?.metadata.cost).toMatchObject({
      pricing_source: 'genai-prices',
      priced_model: 'gpt-4o-mini',
    });
  });

  it('a call answered before the timer fires is still priced (the table loads on demand)', async () => {
    const { createModelCallPricer, createModelCallRecorder, createTracer } = await freshModules();
    const tracer = createTracer();
    const recorder = createModelCallRecorder({
      tracer,
      pricer: createModelCallPricer({ provider: 'openai' }),
    });
    recorder
      .start({
        provider: 'openai',
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
      })
      .finish({ text: 'hello', usage: { inputTokens: 10, outputTokens: 1 } });
    expect(tracer.blocks().at(-1)?.metadata.cost).toMatchObject({ pricing_source: 'genai-prices' });
  });

  it('a pricer without prepare (a user function) is called as before', async () => {
    const { createModelCallRecorder, createTracer, pricing } = await freshModules();
    const tracer = createTracer();
    const pricer = vi.fn(() => ({ cost_usd: 0.5, cost_micro_usd: 500_000 }) as never);
    createModelCallRecorder({ tracer, pricer })
      .start({ provider: 'acme', model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .finish({ text: 'ok', usage: { inputTokens: 1, outputTokens: 1 } });
    expect(pricer).toHaveBeenCalledTimes(1);
    await nextTimers();
    // nothing asked for the bundled table
    expect(pricing.isPriceTableLoaded()).toBe(false);
  });
});
