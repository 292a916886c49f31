import type { ZodType } from 'zod';
import { zod } from '../errors/load-zod.js';
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
  zod().enum(['block', 'warn', 'log'], { error: 'one of "block", "warn", "log"' }).optional();
const optionalFunction = (expected?: string) => optionSchemas.function(expected).optional();
const plainRecord = () =>
  zod().custom<Record<string, unknown>>(
    (value) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
      const proto = Object.getPrototypeOf(value);
      return proto === Object.prototype || proto === null;
    },
    { error: 'a plain object' },
  );
const usd = () => optionSchemas.finite(0, Number.MAX_VALUE, 'USD').optional();
const modelPrice = () =>
  zod().tuple([optionSchemas.finite(), optionSchemas.finite()], {
    error: 'a pair [input, output] of USD per 1M tokens',
  });
const validator = () =>
  zod().custom<unknown>(
    (value) =>
      typeof value === 'function' ||
      (typeof value === 'object' &&
        value !== null &&
        ('~standard' in value || typeof (value as { validate?: unknown }).validate === 'function')),
    { error: 'a validator: a function, a Standard Schema (zod, valibot, ...) or { validate }' },
  );
const validators = () =>
  zod()
    .union([validator(), zod().array(validator())])
    .optional();

/**
 * The schema of {@link BudgetOptions} (USD amounts finite and >= 0, whole-number call limits, no
 * unknown keys).
 * @internal
 */
export const budgetOptionsSchema = lazySchema((): ZodType => zod().strictObject(budgetShape()));

function budgetShape() {
  return {
    maxCostPerCall: usd(),
    maxCostPerSession: usd(),
    maxCallsPerSession: optionSchemas.integer(0).optional(),
    alertThreshold: optionSchemas.finite(0).optional(),
    onExceed: action(),
    costPerCall: zod()
      .union([
        optionSchemas.finite(0, Number.MAX_VALUE, 'USD'),
        optionSchemas.function('a function of the result returning USD'),
      ])
      .optional(),
    cost: optionalFunction('a function of the result returning USD'),
    estimateCost: usd(),
    unestimatedCalls: zod()
      .enum(['concurrent', 'one-at-a-time'], { error: 'one of "concurrent", "one-at-a-time"' })
      .optional(),
    llmUsage: optionalFunction(),
    useDynamicLlmCosts: zod().boolean().optional(),
    modelPricingOverrides: zod().record(zod().string(), modelPrice()).optional(),
    unknownModel: zod()
      .union([
        zod().enum(['refuse', 'warn'], { error: 'one of "refuse", "warn"' }),
        zod().strictObject({ fallback: modelPrice() }),
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
    recordLlmSpend: zod().boolean().optional(),
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
    name: zod().string().min(1).optional(),
    sessionId: zod().string().optional(),
    metadata: plainRecord().optional(),
    retry: zod()
      .strictObject({
        maxRetries: optionSchemas.integer(0).optional(),
        // a sleep is one timer: past Node's maximum it would fire at once
        initialDelay: optionSchemas.finite(0, maxTimeoutSeconds, 'seconds').optional(),
        maxDelay: optionSchemas.finite(0, maxTimeoutSeconds, 'seconds').optional(),
        backoffFactor: optionSchemas.finite(0).optional(),
        jitter: zod().boolean().optional(),
        retryOn: zod()
          .union([
            optionSchemas.function('a predicate (error, attempt) => boolean'),
            zod().array(optionSchemas.function('an error class')),
          ])
          .optional(),
        idempotent: zod().boolean().optional(),
      })
      .optional(),
    timeout: zod()
      .strictObject({
        timeoutSeconds: zod().custom<number>(
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
    budget: zod().union([budgetObject(), budgetOptionsSchema()]).optional(),
    rateLimit: zod()
      .strictObject({
        callsPerSecond: optionSchemas.finite(Number.MIN_VALUE).optional(),
        callsPerMinute: optionSchemas.finite(Number.MIN_VALUE).optional(),
        callsPerHour: optionSchemas.finite(Number.MIN_VALUE).optional(),
        burst: optionSchemas.integer(0).optional(),
        onLimit: action(),
        sharedKey: zod().string().optional(),
        maxWaitMs: optionSchemas.finite(0, maxTimeoutSeconds * 1000, 'milliseconds').optional(),
        store: optionSchemas
          .withMethods('a RateLimitStore (take, reset)', ['take', 'reset'])
          .optional(),
      })
      .optional(),
    circuitBreaker: zod()
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
        key: zod().string().optional(),
      })
      .optional(),
    validators: zod()
      .strictObject({ input: validators(), output: validators(), onInvalid: action() })
      .optional(),
    hallucination: zod()
      .strictObject({
        threshold: optionSchemas.finite(0).optional(),
        onHallucination: action(),
        knownTools: zod()
          .custom<Iterable<string>>(
            (value) =>
              typeof value === 'object' &&
              value !== null &&
              typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function',
            { error: 'an iterable of tool names' },
          )
          .optional(),
        argumentsSchema: zod()
          .custom((value) => typeof value === 'object' && value !== null && '~standard' in value, {
            error: 'a Standard Schema (zod, valibot, ...)',
          })
          .optional(),
        idArguments: zod()
          .union([zod().instanceof(RegExp, { error: 'a RegExp' }), zod().array(zod().string())])
          .optional(),
        profile: zod()
          .strictObject({
            minLatencyMs: optionSchemas.finite(0).optional(),
            maxLatencyMs: optionSchemas.finite(0).optional(),
            requiredFields: zod().array(zod().string()).optional(),
            forbiddenFields: zod().array(zod().string()).optional(),
            patterns: zod()
              .record(zod().string(), zod().instanceof(RegExp, { error: 'a RegExp' }))
              .optional(),
          })
          .optional(),
        weights: zod().record(zod().string(), optionSchemas.finite(0)).optional(),
        detector: optionSchemas
          .withMethods('a HallucinationDetector (check, observe)', ['check', 'observe'])
          .optional(),
      })
      .optional(),
    sideEffect: zod()
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
export const guardOptionsSchema = lazySchema((): ZodType => zod().strictObject(guardShape()));

/**
 * The schema of `guardTools()`'s options: the shared guard options (without `name`) and `tools`,
 * per-tool guard options by tool name.
 * @internal
 */
export const guardToolsOptionsSchema = lazySchema((): ZodType => {
  const { name: _name, ...shared } = guardShape();
  return zod().strictObject({
    ...shared,
    tools: zod().record(zod().string(), guardOptionsSchema()).optional(),
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
  validateOptions(guardOptionsSchema, options, { entryPoint: 'guard', allOptional: true });
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
  validateOptions(guardToolsOptionsSchema, options, {
    entryPoint: 'guardTools',
    allOptional: true,
  });
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
