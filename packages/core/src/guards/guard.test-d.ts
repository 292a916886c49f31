import { describe, expectTypeOf, it } from 'vitest';
import { guard } from './guard.js';
import type { GuardedFunction, GuardInvokeOptions } from './guard-options.js';
import { guardTools } from './guard-tools.js';
import type { GuardCallContext } from './types.js';

describe('guard types', () => {
  it('keeps the parameters of an async tool and returns a promise of its result', () => {
    const search = guard(async (query: string, limit: number) => ({ hits: [query], limit }));
    expectTypeOf(search).parameters.toEqualTypeOf<[query: string, limit: number]>();
    expectTypeOf(search).returns.toEqualTypeOf<Promise<{ hits: string[]; limit: number }>>();
    expectTypeOf(search).toEqualTypeOf<
      GuardedFunction<[query: string, limit: number], { hits: string[]; limit: number }>
    >();
  });

  it('makes a sync tool async', () => {
    const add = guard((a: number, b: number) => a + b);
    expectTypeOf(add).parameters.toEqualTypeOf<[a: number, b: number]>();
    expectTypeOf(add).returns.toEqualTypeOf<Promise<number>>();
  });

  it('returns a promise of the awaited result, not a nested promise', () => {
    const nested = guard(async () => Promise.resolve('deep'));
    expectTypeOf(nested).returns.toEqualTypeOf<Promise<string>>();
    const thenable = guard((): PromiseLike<number> => Promise.resolve(1));
    expectTypeOf(thenable).returns.toEqualTypeOf<Promise<number>>();
  });

  it('drops a trailing context parameter, required or optional', () => {
    const optional = guard(async (query: string, context?: GuardCallContext) => {
      expectTypeOf(context).toEqualTypeOf<GuardCallContext | undefined>();
      return query.length;
    });
    expectTypeOf(optional).parameters.toEqualTypeOf<[query: string]>();
    expectTypeOf(optional).returns.toEqualTypeOf<Promise<number>>();

    const required = guard(async (id: number, flag: boolean, context: GuardCallContext) =>
      context.attempt > 1 ? id : Number(flag),
    );
    expectTypeOf(required).parameters.toEqualTypeOf<[id: number, flag: boolean]>();

    const onlyContext = guard((context: GuardCallContext) => context.callId);
    expectTypeOf(onlyContext).parameters.toEqualTypeOf<[]>();
    expectTypeOf(onlyContext).returns.toEqualTypeOf<Promise<string>>();
  });

  it('keeps a last parameter that is not a context', () => {
    const withOptions = guard(async (query: string, _options?: { limit: number }) => query);
    expectTypeOf(withOptions).parameters.toEqualTypeOf<
      [query: string, _options?: { limit: number }]
    >();
  });

  it('rejects wrong arguments', () => {
    const search = guard(async (query: string) => query);
    // @ts-expect-error a number is not a string
    void search(1);
    // @ts-expect-error the context is supplied by the guard, not the caller
    void guard(async (q: string, _context?: GuardCallContext) => q)('x', {} as GuardCallContext);
  });

  it('invoke takes per-call options, then the same parameters', () => {
    const search = guard(async (query: string, limit: number) => [query, limit] as const);
    expectTypeOf(search.invoke).parameters.toEqualTypeOf<
      [options: GuardInvokeOptions, query: string, limit: number]
    >();
    expectTypeOf(search.invoke).returns.toEqualTypeOf<Promise<readonly [string, number]>>();
    expectTypeOf(search.toolName).toEqualTypeOf<string>();
  });

  it('types options by the result (cost and output validators see the result)', () => {
    guard(async () => ({ tokens: 3 }), {
      budget: {
        cost: (result) => {
          expectTypeOf(result).toEqualTypeOf<{ tokens: number }>();
          return result.tokens / 1e6;
        },
      },
    });
  });
});

describe('guardTools types', () => {
  it('keeps the keys, each tool typed as its own guarded function', () => {
    const tools = guardTools({
      search: async (query: string) => [query],
      count: (items: string[], _context?: GuardCallContext) => items.length,
    });
    expectTypeOf(tools).toHaveProperty('search');
    expectTypeOf(tools).toHaveProperty('count');
    expectTypeOf<keyof typeof tools>().toEqualTypeOf<'search' | 'count'>();
    expectTypeOf(tools.search).parameters.toEqualTypeOf<[query: string]>();
    expectTypeOf(tools.search).returns.toEqualTypeOf<Promise<string[]>>();
    expectTypeOf(tools.count).parameters.toEqualTypeOf<[items: string[]]>();
    expectTypeOf(tools.count).returns.toEqualTypeOf<Promise<number>>();
  });

  it('per-tool options accept only known tool names', () => {
    guardTools(
      { search: async (query: string) => query },
      { tools: { search: { retry: { maxRetries: 1 } } } },
    );
    guardTools(
      { search: async (query: string) => query },
      // @ts-expect-error no tool named "other"
      { tools: { other: { retry: { maxRetries: 1 } } } },
    );
  });
});

describe('ToolArgs edge cases', () => {
  it('never takes an `any` or `unknown` last parameter for a context', () => {
    // biome-ignore lint/suspicious/noExplicitAny: the case under test
    const anyLast = guard((value: any) => value as unknown);
    // biome-ignore lint/suspicious/noExplicitAny: the case under test
    expectTypeOf(anyLast).parameters.toEqualTypeOf<[value: any]>();
    const unknownLast = guard((value: unknown) => value);
    expectTypeOf(unknownLast).parameters.toEqualTypeOf<[value: unknown]>();
  });
});
