import { optionTypes } from '../errors/option-types.js';
import { configurationError, lazySchema, validateOptions } from '../errors/validate-options.js';
import type { Tracer } from '../tracing/types.js';
import type { BudgetOptions } from './create-budget.js';
import type { GuardInvokeOptions, GuardOptions, RateLimitOptions } from './guard-options.js';

/**
 * Longest timeout Node's timers can wait: 2^31 − 1 ms. Past it `setTimeout` fires after 1 ms
 * and prints a `TimeoutOverflowWarning` on every call.
 */
export const maxTimeoutSeconds = 2_147_483.647;

const action = () =>
  optionTypes.oneOf(['block', 'warn', 'log'], 'one of "block", "warn", "log"').optional();
const optionalFunction = (expected?: string) => optionTypes.function(expected).optional();
const plainRecord = () =>
  optionTypes.custom<Record<string, unknown>>((value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
  }, 'a plain object');
/**
 * A rate of calls per second, minute or hour: > 0, and not so small that its rate per
 * millisecond (the bucket's refill) rounds to 0.
 */
const rate = () => optionTypes.finite(1e-9).optional();
const usd = () => optionTypes.finite(0, Number.MAX_VALUE, 'USD').optional();
/**
 * A budget limit in USD. The ledger counts whole micro-USD, so a positive limit under half of one
 * would round to 0 and refuse every call with "would exceed 0": refused where it is given.
 */
const usdLimit = () =>
  optionTypes
    .custom<number>(
      (value) =>
        typeof value === 'number' &&
        Number.isFinite(value) &&
        value <= Number.MAX_VALUE &&
        (value === 0 || value >= 0.0000005),
      'an amount in USD: 0, or at least 0.000001 (one micro-USD, the unit a budget counts in)',
    )
    .optional();
const modelPrice = () =>
  optionTypes.tuple(
    [optionTypes.finite(), optionTypes.finite()],
    'a pair [input, output] of USD per 1M tokens',
  );
const unknownModelPolicy = () =>
  optionTypes
    .union([
      optionTypes.oneOf(['refuse', 'warn'], 'one of "refuse", "warn"'),
      optionTypes.strictObject({ fallback: modelPrice() }),
    ])
    .optional();

/**
 * The schema of the price table options an adapter's `pricing` takes (`PriceUsageOptions`):
 * overrides and the unknown-model policy as a budget takes them, no unknown keys.
 * @internal
 */
export const priceTableOptionsSchema = lazySchema(() =>
  optionTypes.strictObject({
    overrides: optionTypes.record(modelPrice()).optional(),
    unknownModel: unknownModelPolicy(),
    onWarn: optionalFunction(),
    at: optionTypes
      .custom<Date>(
        (value) => value instanceof Date && !Number.isNaN(value.getTime()),
        'a valid Date',
      )
      .optional(),
  }),
);

const validator = () =>
  optionTypes.custom<unknown>(
    (value) =>
      typeof value === 'function' ||
      (typeof value === 'object' &&
        value !== null &&
        ('~standard' in value || typeof (value as { validate?: unknown }).validate === 'function')),
    'a validator: a function, a Standard Schema (zod, valibot, ...) or { validate }',
  );
const validators = () =>
  optionTypes.union([validator(), optionTypes.array(validator())]).optional();

/**
 * The schema of {@link BudgetOptions} (USD amounts finite and >= 0, whole-number call limits, no
 * unknown keys).
 * @internal
 */
export const budgetOptionsSchema = lazySchema(() => optionTypes.strictObject(budgetShape()));

function budgetShape() {
  return {
    maxCostPerCall: usdLimit(),
    maxCostPerSession: usdLimit(),
    maxCallsPerSession: optionTypes.integer(0).optional(),
    // a fraction of the limit: 0.8, not 80
    alertThreshold: optionTypes.finite(0, 1).optional(),
    onExceed: action(),
    costPerCall: optionTypes
      .union([
        optionTypes.finite(0, Number.MAX_VALUE, 'USD'),
        optionTypes.function('a function of the result returning USD'),
      ])
      .optional(),
    cost: optionalFunction('a function of the result returning USD'),
    estimateCost: usd(),
    unestimatedCalls: optionTypes
      .oneOf(['concurrent', 'one-at-a-time'], 'one of "concurrent", "one-at-a-time"')
      .optional(),
    llmUsage: optionalFunction(),
    useDynamicLlmCosts: optionTypes.boolean().optional(),
    modelPricingOverrides: optionTypes.record(modelPrice()).optional(),
    unknownModel: unknownModelPolicy(),
    costLedger: optionTypes
      .withMethods('a CostLedger (reserve, settle, release, spent, reset)', [
        'reserve',
        'settle',
        'release',
        'spent',
        'reset',
      ])
      .optional(),
    recordLlmSpend: optionTypes.boolean().optional(),
    onAlert: optionalFunction(),
  };
}

const budgetObject = () =>
  optionTypes.withMethods('a Budget (from createBudget())', [
    'reserve',
    'settle',
    'release',
    'costOf',
  ]);

function hallucinationShape() {
  return {
    // a confidence: 0.7, not 70
    threshold: optionTypes.finite(0, 1).optional(),
    onHallucination: action(),
    knownTools: optionTypes
      .custom<Iterable<string>>(
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function',
        'an iterable of tool names',
      )
      .optional(),
    argumentsSchema: optionTypes
      .custom(
        (value) => typeof value === 'object' && value !== null && '~standard' in value,
        'a Standard Schema (zod, valibot, ...)',
      )
      .optional(),
    idArguments: optionTypes
      .union([optionTypes.instanceOf(RegExp, 'a RegExp'), optionTypes.array(optionTypes.string())])
      .optional(),
    profile: optionTypes
      .strictObject({
        minLatencyMs: optionTypes.finite(0).optional(),
        maxLatencyMs: optionTypes.finite(0).optional(),
        requiredFields: optionTypes.array(optionTypes.string()).optional(),
        forbiddenFields: optionTypes.array(optionTypes.string()).optional(),
        patterns: optionTypes.record(optionTypes.instanceOf(RegExp, 'a RegExp')).optional(),
      })
      .optional(),
    // one weight in [0, 1] per signal the detector raises; an unknown signal is a typo
    weights: optionTypes
      .strictObject({
        unknown_tool: optionTypes.finite(0, 1).optional(),
        invalid_arguments: optionTypes.finite(0, 1).optional(),
        unseen_id: optionTypes.finite(0, 1).optional(),
        latency_out_of_range: optionTypes.finite(0, 1).optional(),
        missing_required_field: optionTypes.finite(0, 1).optional(),
        forbidden_field: optionTypes.finite(0, 1).optional(),
        pattern_mismatch: optionTypes.finite(0, 1).optional(),
      })
      .optional(),
    detector: optionTypes
      .withMethods('a HallucinationDetector (check, observe)', ['check', 'observe'])
      .optional(),
  };
}

/**
 * The hallucination options of a guard and of `createHallucinationDetector`.
 * @internal
 */
export const hallucinationOptionsSchema = lazySchema(() =>
  optionTypes.strictObject(hallucinationShape()),
);

function guardShape() {
  return {
    name: optionTypes.string(1).optional(),
    sessionId: optionTypes.string().optional(),
    metadata: plainRecord().optional(),
    retry: optionTypes
      .strictObject({
        maxRetries: optionTypes.integer(0).optional(),
        // a sleep is one timer: past Node's maximum it would fire at once
        initialDelay: optionTypes.finite(0, maxTimeoutSeconds, 'seconds').optional(),
        maxDelay: optionTypes.finite(0, maxTimeoutSeconds, 'seconds').optional(),
        backoffFactor: optionTypes.finite(0).optional(),
        jitter: optionTypes.boolean().optional(),
        retryOn: optionTypes
          .union([
            optionTypes.function('a predicate (error, attempt) => boolean'),
            optionTypes.array(optionTypes.function('an error class')),
          ])
          .optional(),
        idempotent: optionTypes.boolean().optional(),
      })
      .optional(),
    timeout: optionTypes
      .strictObject({
        timeoutSeconds: optionTypes.custom<number>(
          (value) =>
            typeof value === 'number' &&
            Number.isFinite(value) &&
            value > 0 &&
            value <= maxTimeoutSeconds,
          `a number of seconds > 0 and <= ${maxTimeoutSeconds} (Node's timer maximum, about 24.8 days)`,
        ),
        onTimeout: action(),
      })
      .optional(),
    budget: optionTypes.union([budgetObject(), budgetOptionsSchema()]).optional(),
    rateLimit: optionTypes
      .refine(
        optionTypes.strictObject({
          callsPerSecond: rate(),
          callsPerMinute: rate(),
          callsPerHour: rate(),
          burst: optionTypes.integer(0).optional(),
          onLimit: action(),
          sharedKey: optionTypes.string().optional(),
          maxWaitMs: optionTypes.finite(0, maxTimeoutSeconds * 1000, 'milliseconds').optional(),
          store: optionTypes
            .withMethods('a RateLimitStore (take, reset)', ['take', 'reset'])
            .optional(),
        }),
        (value: unknown) => {
          const limit = value as RateLimitOptions;
          return (
            limit.callsPerSecond !== undefined ||
            limit.callsPerMinute !== undefined ||
            limit.callsPerHour !== undefined
          );
        },
        'rate-limit options with a rate: callsPerSecond, callsPerMinute or callsPerHour (without one nothing would be limited)',
      )
      .optional(),
    circuitBreaker: optionTypes
      .strictObject({
        failureThreshold: optionTypes.integer(0).optional(),
        recoveryTimeout: optionTypes.finite(0, Number.MAX_VALUE, 'seconds').optional(),
        successThreshold: optionTypes.integer(0).optional(),
        onOpen: action(),
        isFailure: optionalFunction(),
        onStateChange: optionalFunction(),
        store: optionTypes
          .withMethods('a CircuitBreakerStore (acquire, record)', ['acquire', 'record'])
          .optional(),
        key: optionTypes.string().optional(),
      })
      .optional(),
    validators: optionTypes
      .strictObject({ input: validators(), output: validators(), onInvalid: action() })
      .optional(),
    hallucination: optionTypes.strictObject(hallucinationShape()).optional(),
    sideEffect: optionTypes
      .oneOf(['read', 'write', 'destructive'], 'one of "read", "write", "destructive"')
      .optional(),
    tracer: optionTypes.withMethods('a Tracer (from createTracer())', ['recordEntry']).optional(),
    logger: optionTypes.withMethods('a logger with a warn method', ['warn']).optional(),
    signal: optionTypes.abortSignal().optional(),
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
export const guardOptionsSchema = lazySchema(() => optionTypes.strictObject(guardShape()));

/**
 * The schema of `guardTools()`'s options: the shared guard options (without `name`) and `tools`,
 * per-tool guard options by tool name.
 * @internal
 */
export const guardToolsOptionsSchema = lazySchema(() => {
  const { name: _name, ...shared } = guardShape();
  return optionTypes.strictObject({
    ...shared,
    tools: optionTypes.record(guardOptionsSchema()).optional(),
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

/** The schema of {@link GuardInvokeOptions}, `invoke`'s per-call options. */
const invokeOptionsSchema = lazySchema(() =>
  optionTypes.strictObject({
    signal: optionTypes.abortSignal().optional(),
    sessionId: optionTypes.string().optional(),
    metadata: plainRecord().optional(),
    callId: optionTypes.string().optional(),
    tracer: optionTypes
      .union([
        optionTypes.custom<null>((value) => value === null, 'null (record in no tracer)'),
        optionTypes.withMethods<Tracer>('a Tracer (from createTracer())', ['recordEntry']),
      ])
      .optional(),
    onEntry: optionalFunction(),
    errorOutput: optionalFunction(),
  }),
);

const invokeKeys = new Set([
  'signal',
  'sessionId',
  'metadata',
  'callId',
  'tracer',
  'onEntry',
  'errorOutput',
]);

/** The common case, checked without the schema: known keys, each of its usual type. */
function plainInvokeOptions(value: object): boolean {
  for (const key in value) if (!invokeKeys.has(key)) return false;
  const { signal, sessionId, metadata, callId, tracer, onEntry, errorOutput } =
    value as GuardInvokeOptions;
  return (
    (signal === undefined || signal instanceof AbortSignal) &&
    (sessionId === undefined || typeof sessionId === 'string') &&
    (callId === undefined || typeof callId === 'string') &&
    (metadata === undefined ||
      (typeof metadata === 'object' &&
        metadata !== null &&
        Object.getPrototypeOf(metadata) === Object.prototype)) &&
    (tracer === undefined ||
      tracer === null ||
      typeof (tracer as { recordEntry?: unknown }).recordEntry === 'function') &&
    (onEntry === undefined || typeof onEntry === 'function') &&
    (errorOutput === undefined || typeof errorOutput === 'function')
  );
}

/**
 * Checks `invoke`'s per-call options where they are given, as `guard()`'s are: a typo
 * (`sesionId`) or a wrong value would otherwise be ignored, or fail later with a raw
 * `TypeError`. The usual options pass a check of their keys and types; anything else goes through
 * the schema, which names what is wrong.
 * @throws {ConfigurationError} `INVALID_OPTIONS`, naming the rejected option
 * @internal
 */
export function checkInvokeOptions(value: unknown): void {
  // no options (a caller forwarding its optional options): the call runs with the guard's own
  if (value === undefined) return;
  try {
    if (typeof value === 'object' && value !== null && plainInvokeOptions(value)) return;
  } catch {
    // options whose reads throw: the schema reports them
  }
  validateOptions(invokeOptionsSchema, value, { entryPoint: 'invoke' });
}
