import { type ZodType, z } from 'zod';
import {
  configurationError,
  lazySchema,
  optionSchemas,
  validateOptions,
} from '../errors/validate-options.js';
import type { BudgetOptions } from './create-budget.js';
import type { GuardOptions } from './guard-options.js';

/**
 * Longest timeout Node's timers can wait: 2^31 − 1 ms. Past it `setTimeout` fires after 1 ms
 * and prints a `TimeoutOverflowWarning` on every call.
 */
export const maxTimeoutSeconds = 2_147_483.647;

const action = () =>
  z.enum(['block', 'warn', 'log'], { error: 'one of "block", "warn", "log"' }).optional();
const optionalFunction = (expected?: string) => optionSchemas.function(expected).optional();
const plainRecord = () =>
  z.custom<Record<string, unknown>>(
    (value) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
      const proto = Object.getPrototypeOf(value);
      return proto === Object.prototype || proto === null;
    },
    { error: 'a plain object' },
  );
const usd = () => optionSchemas.finite(0, Number.MAX_VALUE, 'USD').optional();
const modelPrice = () =>
  z.tuple([optionSchemas.finite(), optionSchemas.finite()], {
    error: 'a pair [input, output] of USD per 1M tokens',
  });
const validator = () =>
  z.custom<unknown>(
    (value) =>
      typeof value === 'function' ||
      (typeof value === 'object' &&
        value !== null &&
        ('~standard' in value || typeof (value as { validate?: unknown }).validate === 'function')),
    { error: 'a validator: a function, a Standard Schema (zod, valibot, ...) or { validate }' },
  );
const validators = () => z.union([validator(), z.array(validator())]).optional();

/**
 * The schema of {@link BudgetOptions} (USD amounts finite and >= 0, whole-number call limits, no
 * unknown keys).
 * @internal
 */
export const budgetOptionsSchema = lazySchema((): ZodType => z.strictObject(budgetShape()));

function budgetShape() {
  return {
    maxCostPerCall: usd(),
    maxCostPerSession: usd(),
    maxCallsPerSession: optionSchemas.integer(0).optional(),
    alertThreshold: optionSchemas.finite(0).optional(),
    onExceed: action(),
    costPerCall: z
      .union([
        optionSchemas.finite(0, Number.MAX_VALUE, 'USD'),
        optionSchemas.function('a function of the result returning USD'),
      ])
      .optional(),
    cost: optionalFunction('a function of the result returning USD'),
    estimateCost: usd(),
    unestimatedCalls: z
      .enum(['concurrent', 'one-at-a-time'], { error: 'one of "concurrent", "one-at-a-time"' })
      .optional(),
    llmUsage: optionalFunction(),
    useDynamicLlmCosts: z.boolean().optional(),
    modelPricingOverrides: z.record(z.string(), modelPrice()).optional(),
    unknownModel: z
      .union([
        z.enum(['refuse', 'warn'], { error: 'one of "refuse", "warn"' }),
        z.strictObject({ fallback: modelPrice() }),
      ])
      .optional(),
    costLedger: optionSchemas
      .withMethods('a CostLedger (reserve, settle, release, spent, reset)', [
        'reserve',
        'settle',
        'release',
        'spent',
        'reset',
      ])
      .optional(),
    recordLlmSpend: z.boolean().optional(),
    onAlert: optionalFunction(),
  };
}

const budgetObject = () =>
  optionSchemas.withMethods('a Budget (from createBudget())', [
    'reserve',
    'settle',
    'release',
    'costOf',
  ]);

function guardShape() {
  return {
    name: z.string().min(1).optional(),
    sessionId: z.string().optional(),
    metadata: plainRecord().optional(),
    retry: z
      .strictObject({
        maxRetries: optionSchemas.integer(0).optional(),
        initialDelay: optionSchemas.finite(0, Number.MAX_VALUE, 'seconds').optional(),
        maxDelay: optionSchemas.finite(0, Number.MAX_VALUE, 'seconds').optional(),
        backoffFactor: optionSchemas.finite(0).optional(),
        jitter: z.boolean().optional(),
        retryOn: z
          .union([
            optionSchemas.function('a predicate (error, attempt) => boolean'),
            z.array(optionSchemas.function('an error class')),
          ])
          .optional(),
        idempotent: z.boolean().optional(),
      })
      .optional(),
    timeout: z
      .strictObject({
        timeoutSeconds: z.custom<number>(
          (value) =>
            typeof value === 'number' &&
            Number.isFinite(value) &&
            value > 0 &&
            value <= maxTimeoutSeconds,
          {
            error: `a number of seconds > 0 and <= ${maxTimeoutSeconds} (Node's timer maximum, about 24.8 days)`,
          },
        ),
        onTimeout: action(),
      })
      .optional(),
    budget: z.union([budgetObject(), budgetOptionsSchema()]).optional(),
    rateLimit: z
      .strictObject({
        callsPerSecond: optionSchemas.finite(Number.MIN_VALUE).optional(),
        callsPerMinute: optionSchemas.finite(Number.MIN_VALUE).optional(),
        callsPerHour: optionSchemas.finite(Number.MIN_VALUE).optional(),
        burst: optionSchemas.integer(0).optional(),
        onLimit: action(),
        sharedKey: z.string().optional(),
        maxWaitMs: optionSchemas.finite(0, Number.MAX_VALUE, 'milliseconds').optional(),
        store: optionSchemas
          .withMethods('a RateLimitStore (take, reset)', ['take', 'reset'])
          .optional(),
      })
      .optional(),
    circuitBreaker: z
      .strictObject({
        failureThreshold: optionSchemas.integer(0).optional(),
        recoveryTimeout: optionSchemas.finite(0, Number.MAX_VALUE, 'seconds').optional(),
        successThreshold: optionSchemas.integer(0).optional(),
        onOpen: action(),
        isFailure: optionalFunction(),
        onStateChange: optionalFunction(),
        store: optionSchemas
          .withMethods('a CircuitBreakerStore (acquire, record)', ['acquire', 'record'])
          .optional(),
        key: z.string().optional(),
      })
      .optional(),
    validators: z
      .strictObject({ input: validators(), output: validators(), onInvalid: action() })
      .optional(),
    hallucination: z
      .strictObject({
        threshold: optionSchemas.finite(0).optional(),
        onHallucination: action(),
        knownTools: z
          .custom<Iterable<string>>(
            (value) =>
              typeof value === 'object' &&
              value !== null &&
              typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function',
            { error: 'an iterable of tool names' },
          )
          .optional(),
        argumentsSchema: z
          .custom((value) => typeof value === 'object' && value !== null && '~standard' in value, {
            error: 'a Standard Schema (zod, valibot, ...)',
          })
          .optional(),
        idArguments: z
          .union([z.instanceof(RegExp, { error: 'a RegExp' }), z.array(z.string())])
          .optional(),
        profile: z
          .strictObject({
            minLatencyMs: optionSchemas.finite(0).optional(),
            maxLatencyMs: optionSchemas.finite(0).optional(),
            requiredFields: z.array(z.string()).optional(),
            forbiddenFields: z.array(z.string()).optional(),
            patterns: z.record(z.string(), z.instanceof(RegExp, { error: 'a RegExp' })).optional(),
          })
          .optional(),
        weights: z.record(z.string(), optionSchemas.finite(0)).optional(),
        detector: optionSchemas
          .withMethods('a HallucinationDetector (check, observe)', ['check', 'observe'])
          .optional(),
      })
      .optional(),
    sideEffect: z
      .enum(['read', 'write', 'destructive'], { error: 'one of "read", "write", "destructive"' })
      .optional(),
    tracer: optionSchemas.withMethods('a Tracer (from createTracer())', ['recordEntry']).optional(),
    logger: optionSchemas.withMethods('a logger with a warn method', ['warn']).optional(),
    signal: optionSchemas.abortSignal().optional(),
    beforeCall: optionalFunction(),
    afterCall: optionalFunction(),
    onEntry: optionalFunction(),
    clock: optionalFunction('a function returning epoch milliseconds'),
    sleep: optionalFunction(),
    random: optionalFunction('a function returning a number in [0, 1)'),
    createCallId: optionalFunction('a function returning a call id string'),
  };
}

/**
 * The schema of `guard()`'s options ({@link GuardOptions}): every option of every guard, no
 * unknown keys, numbers finite and in range. Adapters that take guard options validate them with
 * it (through `validateOptions`), so a typo such as `budgets` is rejected everywhere.
 * @returns the schema (built on first use, then shared)
 * @example
 * ```ts
 * validateOptions(guardOptionsSchema, options.guards, { entryPoint: 'wrapOpenAI', path: 'guards' });
 * ```
 */
export const guardOptionsSchema = lazySchema((): ZodType => z.strictObject(guardShape()));

/**
 * The schema of `guardTools()`'s options: the shared guard options (without `name`) and `tools`,
 * per-tool guard options by tool name.
 * @internal
 */
export const guardToolsOptionsSchema = lazySchema((): ZodType => {
  const { name: _name, ...shared } = guardShape();
  return z.strictObject({
    ...shared,
    tools: z.record(z.string(), guardOptionsSchema()).optional(),
  });
});

/**
 * Checks `guard()`'s arguments once, when the guard is made: the tool is a function and the
 * options match {@link guardOptionsSchema}.
 * @throws {ConfigurationError} naming the rejected option
 * @internal
 */
export function checkGuardArguments(fn: unknown, options: unknown): void {
  if (typeof fn !== 'function')
    throw configurationError('guard', 'fn', 'a function (the tool to guard)', fn);
  validateOptions(guardOptionsSchema, options, { entryPoint: 'guard' });
}

/**
 * Checks `guardTools()`'s arguments once: every tool is a function, the options match the
 * schema, and every per-tool entry names a tool that was given (a misspelt tool name would
 * otherwise silently drop that tool's guards).
 * @throws {ConfigurationError} naming the rejected option
 * @internal
 */
export function checkGuardToolsArguments(tools: unknown, options: unknown): void {
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools))
    throw configurationError('guardTools', 'tools', 'an object of tool functions by name', tools);
  for (const [name, tool] of Object.entries(tools))
    if (typeof tool !== 'function')
      throw configurationError('guardTools', `tools.${name}`, 'a function (the tool)', tool);
  validateOptions(guardToolsOptionsSchema, options, { entryPoint: 'guardTools' });
  const perTool = (options as { tools?: Record<string, unknown> } | undefined)?.tools;
  if (perTool === undefined) return;
  const names = Object.keys(tools);
  for (const name of Object.keys(perTool))
    if (!Object.hasOwn(tools, name))
      throw configurationError(
        'guardTools',
        `options.tools.${name}`,
        `the name of a given tool (${names.map((n) => `"${n}"`).join(', ')})`,
        name,
      );
}

type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : { missing: Exclude<keyof B, keyof A>; extra: Exclude<keyof A, keyof B> };

// A new option added to the types but not to the schemas would be rejected as unknown: these
// fail to compile until both agree.
const guardKeysAgree: SameKeys<ReturnType<typeof guardShape>, GuardOptions> = true;
const budgetKeysAgree: SameKeys<ReturnType<typeof budgetShape>, BudgetOptions> = true;
void guardKeysAgree;
void budgetKeysAgree;
