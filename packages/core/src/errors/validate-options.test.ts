import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError } from './configuration-error.js';
import { TracewardenError } from './tracewarden-error.js';
import {
  configurationError,
  describeValue,
  lazySchema,
  optionSchemas,
  validateOptions,
} from './validate-options.js';

const schema = lazySchema(() =>
  z.strictObject({
    retries: optionSchemas.integer(0).optional(),
    mode: z.enum(['fast', 'slow']).optional(),
    nested: z.strictObject({ seconds: optionSchemas.finite(0).optional() }).optional(),
    hook: optionSchemas.function().optional(),
    target: z
      .union([
        optionSchemas.withMethods('a Target (send)', ['send']),
        z.strictObject({ url: z.string() }),
      ])
      .optional(),
  }),
);

function rejection(value: unknown, path?: string): ConfigurationError {
  try {
    validateOptions(schema, value, { entryPoint: 'connect', path });
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

describe('validateOptions', () => {
  it('returns the very options object given when it is valid', () => {
    const target = { send: () => {} };
    const options = { retries: 2, target };
    const checked = validateOptions(schema, options, { entryPoint: 'connect' });
    expect(checked).toBe(options);
    expect((checked as typeof options).target).toBe(target);
  });

  it('rejects an unknown key and suggests the option it was probably meant to be', () => {
    const error = rejection({ retrys: 2 });
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.entryPoint).toBe('connect');
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatchObject({ path: 'retrys', received: '2' });
    expect(error.message).toContain('retrys');
    expect(error.message).toContain('did you mean "retries"?');
    expect(error.message).toContain('connect()');
  });

  it('suggests the camelCase option for a seed 004 (snake_case) name, and seed names of ours', async () => {
    const { guard } = await import('../guards/guard.js');
    const message = (options: Record<string, unknown>) => {
      try {
        guard(async () => 1, options as never);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(message({ rate_limit: { calls_per_second: 1 } })).toContain('did you mean "rateLimit"?');
    expect(message({ rateLimit: { calls_per_second: 1 } })).toContain(
      'did you mean "callsPerSecond"?',
    );
    expect(message({ budget: { max_cost_per_session: 1 } })).toContain(
      'did you mean "maxCostPerSession"?',
    );
    expect(message({ retry: { retryable_exceptions: [TypeError] } })).toContain(
      'did you mean "retryOn"?',
    );
  });

  it('names the nested path, what was expected and what was given', () => {
    expect(rejection({ nested: { seconds: Number.NaN } }).message).toBe(
      'Invalid option given to connect(): nested.seconds: expected a finite number >= 0, got NaN. Fix it where connect() is called.',
    );
    expect(rejection({ mode: 'medium' }).issues[0]).toEqual({
      path: 'mode',
      expected: 'one of "fast", "slow"',
      received: '"medium"',
    });
    expect(rejection({ retries: '5' }).issues[0]?.received).toBe('"5"');
    expect(rejection({ hook: 'onDone' }).issues[0]?.expected).toBe('a function');
  });

  it('reports every rejected option at once', () => {
    const error = rejection({ retries: -1, mode: 1, extra: true });
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(['extra', 'mode', 'retries']);
    expect(error.message.split('\n').length).toBe(5);
  });

  it('reports the union branch the value came closest to', () => {
    expect(rejection({ target: { ur: 'x' } }).issues.map((issue) => issue.path)).toContain(
      'target.ur',
    );
    expect(rejection({ target: 5 }).issues[0]).toEqual({
      path: 'target',
      expected: 'a Target (send) or an object',
      received: '5',
    });
  });

  it('prefixes paths with the context path', () => {
    expect(rejection({ retries: 1.5 }, 'guards').issues[0]?.path).toBe('guards.retries');
  });

  it('rejects options that are not an object', () => {
    expect(rejection(null).issues[0]).toMatchObject({ path: '', received: 'null' });
    expect(rejection(() => {}).message).toContain('the options: expected an object');
  });

  it('is a tracewarden error recognised by both isInstance checks', () => {
    const error = rejection({ retrys: 1 });
    expect(TracewardenError.isInstance(error)).toBe(true);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(ConfigurationError.isInstance(new TracewardenError('OTHER', { message: 'x' }))).toBe(
      false,
    );
  });

  it('builds the same error shape for checks outside a schema', () => {
    const error = configurationError('guard', 'fn', 'a function', 5);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.path).toBe('fn');
    expect(error.message).toBe(
      'Invalid option given to guard(): fn: expected a function, got 5. Fix it where guard() is called.',
    );
  });

  it('builds a lazy schema once, on first use', () => {
    let builds = 0;
    const lazy = lazySchema(() => {
      builds++;
      return z.strictObject({});
    });
    expect(builds).toBe(0);
    validateOptions(lazy, {}, { entryPoint: 'x' });
    validateOptions(lazy, {}, { entryPoint: 'x' });
    expect(builds).toBe(1);
  });

  it('rejects options whose reads throw with a ConfigurationError', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    const error = rejection(hostile);
    expect(error.issues[0]?.received).toBe('a value whose reads throw');
  });

  it('never throws anything but a ConfigurationError, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withNullPrototype: true }), (value) => {
        try {
          validateOptions(schema, value, { entryPoint: 'connect' });
        } catch (error) {
          expect(ConfigurationError.isInstance(error)).toBe(true);
          const issues = (error as ConfigurationError).issues;
          expect(issues.length).toBeGreaterThan(0);
          for (const issue of issues) {
            expect(issue.expected).not.toBe('');
            expect(issue.received).not.toBe('');
          }
        }
      }),
    );
  });
});

describe('describeValue', () => {
  it('renders values short and never throws', () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    expect(describeValue(hostile)).toBe('a value that cannot be inspected');
    expect(describeValue('x'.repeat(100))).toBe(`"${'x'.repeat(40)}…"`);
    expect(describeValue(Number.POSITIVE_INFINITY)).toBe('Infinity');
    expect(describeValue(10n)).toBe('10n');
    expect(describeValue(new Map())).toBe('a Map');
    expect(describeValue([1, 2])).toBe('an array of 2');
  });
});
