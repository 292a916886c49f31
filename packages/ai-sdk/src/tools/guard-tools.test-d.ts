import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import {
  type LanguageModelMiddleware,
  type Telemetry,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
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

  it("per-tool callbacks get that tool's output type", () => {
    const weather = tool({
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, tempC: 21 }),
    });
    const search = tool({
      inputSchema: z.object({ query: z.string() }),
      execute: ({ query }) => [query],
    });
    const ticker = tool({
      inputSchema: z.object({ symbol: z.string() }),
      async *execute({ symbol }) {
        yield { symbol, price: 1 };
      },
    });
    const tools = { weather, search, ticker };
    const guarded = guardTools(tools, {
      tools: {
        weather: {
          budget: {
            maxCostPerSession: 1,
            cost: (result) => {
              expectTypeOf(result).toEqualTypeOf<{ city: string; tempC: number }>();
              return result.tempC / 1000;
            },
          },
          validators: {
            output: (result) => {
              expectTypeOf(result).toEqualTypeOf<{ city: string; tempC: number }>();
              return result.tempC > -100;
            },
          },
        },
        search: { budget: { cost: (result) => result.length } },
        // a streaming tool's output is its last value
        ticker: { budget: { cost: (result) => result.price } },
      },
    });
    expectTypeOf(guarded).toEqualTypeOf<typeof tools>();
    guardTools(tools, {
      // @ts-expect-error: weather's output has no `temp`
      tools: { weather: { budget: { cost: (result) => result.temp } } },
    });
    guardTools(tools, {
      // @ts-expect-error: search's output is a string[]
      tools: { search: { budget: { cost: (result) => result.tempC } } },
    });
  });

  it('per-tool options only for tools with an execute', () => {
    const weather = tool({
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, tempC: 21 }),
    });
    // no execute: the AI SDK never runs it (a client-side tool), guardTools throws INVALID_OPTIONS
    const confirm = tool({
      inputSchema: z.object({ question: z.string() }),
      outputSchema: z.boolean(),
    });
    const tools = { weather, confirm };
    // a tool without execute may be in the set, left as it is
    expectTypeOf(guardTools(tools, { tools: { weather: { sideEffect: 'read' } } })).toEqualTypeOf<
      typeof tools
    >();
    // @ts-expect-error: confirm has no execute, nothing to guard
    guardTools(tools, { tools: { confirm: { sideEffect: 'read' } } });
    // a set typed as ToolSet may name any tool (whether it has an execute is known at run time)
    const loose: ToolSet = tools;
    guardTools(loose, { tools: { confirm: { sideEffect: 'read' } } });
  });

  it('the middleware fits wrapLanguageModel; the integration is a Telemetry', () => {
    expectTypeOf(tracewardenMiddleware()).toEqualTypeOf<LanguageModelV4Middleware>();
    expectTypeOf(tracewardenMiddleware()).toExtend<LanguageModelMiddleware>();
    wrapLanguageModel({ model: new MockLanguageModelV4(), middleware: tracewardenMiddleware() });
    expectTypeOf(tracewardenTelemetry()).toExtend<Telemetry>();
    expectTypeOf(tracewardenTelemetry().flush).toEqualTypeOf<() => Promise<void>>();
  });
});
