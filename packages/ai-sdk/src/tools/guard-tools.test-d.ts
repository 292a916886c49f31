import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import { type LanguageModelMiddleware, type Telemetry, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { guardTools, tracewardenMiddleware, tracewardenTelemetry } from '../index.js';

describe('AI SDK adapter types', () => {
  it('guardTools keeps every tool exactly as typed', () => {
    const tools = {
      weather: tool({
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => ({ city, tempC: 21 }),
      }),
      search: tool({
        inputSchema: z.object({ query: z.string(), limit: z.number() }),
        execute: async ({ query }) => [query],
      }),
    };
    const guarded = guardTools(tools, { tools: { weather: { retry: { maxRetries: 1 } } } });
    expectTypeOf(guarded).toEqualTypeOf<typeof tools>();
    expectTypeOf(guarded.weather.execute).toEqualTypeOf(tools.weather.execute);
    // per-tool options only for tools of the set
    // @ts-expect-error: no tool named wether
    guardTools(tools, { tools: { wether: {} } });
  });

  it('the middleware fits wrapLanguageModel; the integration is a Telemetry', () => {
    expectTypeOf(tracewardenMiddleware()).toEqualTypeOf<LanguageModelV4Middleware>();
    expectTypeOf(tracewardenMiddleware()).toExtend<LanguageModelMiddleware>();
    wrapLanguageModel({ model: new MockLanguageModelV4(), middleware: tracewardenMiddleware() });
    expectTypeOf(tracewardenTelemetry()).toEqualTypeOf<Telemetry>();
  });
});
