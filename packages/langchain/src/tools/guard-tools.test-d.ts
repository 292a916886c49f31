import type { DynamicStructuredTool } from '@langchain/core/tools';
import { StructuredTool, tool } from '@langchain/core/tools';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { guardTool, guardTools } from './guard-tools.js';

const weather = tool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
  name: 'weather',
  description: 'Weather',
  schema: z.object({ city: z.string() }),
});

class Calculator extends StructuredTool {
  name = 'calculator';
  description = 'Adds';
  schema = z.object({ a: z.number(), b: z.number() });
  async _call({ a, b }: { a: number; b: number }): Promise<string> {
    return String(a + b);
  }
  extra(): number {
    return 1;
  }
}

describe('guarded tool types', () => {
  it('keeps the exact type of a tool() tool', () => {
    const guarded = guardTool(weather);
    expectTypeOf(guarded).toEqualTypeOf(weather);
    expectTypeOf(guarded).toExtend<DynamicStructuredTool>();
    expectTypeOf(guarded.invoke).parameter(0).toExtend<unknown>();
  });

  it('keeps a StructuredTool subclass with its own members', () => {
    const guarded = guardTool(new Calculator());
    expectTypeOf(guarded).toEqualTypeOf<Calculator>();
    expectTypeOf(guarded.extra).returns.toEqualTypeOf<number>();
  });

  it('keeps each tool of a list at its position', () => {
    const [a, b] = guardTools([weather, new Calculator()]);
    expectTypeOf(a).toEqualTypeOf(weather);
    expectTypeOf(b).toEqualTypeOf<Calculator>();
  });

  it('returns a mutable list for a mutable list (createAgent takes one) and keeps readonly ones', () => {
    expectTypeOf(guardTools([weather])).toEqualTypeOf<[typeof weather]>();
    const listed = [weather] as const;
    expectTypeOf(guardTools(listed)).toEqualTypeOf<readonly [typeof weather]>();
  });

  it('rejects what is not a tool and unknown guard options', () => {
    // @ts-expect-error not a tool
    guardTool({ name: 'x' });
    // @ts-expect-error not a guard option
    guardTool(weather, { retri: {} });
  });
});
