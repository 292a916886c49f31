import { configurationError, lazySchema, validateOptions } from '../errors/index.js';
import { guardOptionsSchema, priceTableOptionsSchema } from '../guards/guard-options-schema.js';
import type { PriceUsageOptions } from '../pricing/price-usage.js';
import type { Sink } from '../sinks/sink.js';
import { createTracer } from '../tracing/create-tracer.js';
import type { Tracer } from '../tracing/types.js';
import { createModelCallGuards, type ModelCallGuardOptions } from './create-model-call-guards.js';
import { createModelCallPricer } from './create-model-call-pricer.js';
import { createModelCallRecorder, type ModelCallRecorder } from './create-model-call-recorder.js';
import type { ModelCallGuard, ModelCallPricer, ToolCallPolicy, ToolCallReview } from './types.js';

/**
 * Model calls an adapter records into its fallback trace (no `tracer` option, no enclosing
 * `withTrace`) before it starts a new one: the previous trace is then released, so an adapter
 * used for its guards alone keeps bounded memory in a long-running process. Give a `tracer` (with
 * a sink) to keep every call.
 */
export const fallbackTraceMaxCalls = 1000;

/**
 * How an adapter prices calls into `metadata.cost`: options of the core price table
 * (`overrides`, `unknownModel`), a pricer function, or `false` for none.
 */
export type PricingOption = PriceUsageOptions | ModelCallPricer | false;

/**
 * The options every adapter shares (`wrapOpenAI`, the AI SDK middleware and telemetry, the
 * LangChain handler and middleware): each adapter's options extend this type, with the same
 * names and meanings everywhere.
 */
export interface AdapterOptions {
  /**
   * The tracer every call records into.
   * @default the tracer of the enclosing `withTrace`, else the adapter instance's fallback trace,
   *   which starts anew every {@link fallbackTraceMaxCalls} (1,000) model calls so that memory
   *   stays bounded
   */
  tracer?: Tracer | undefined;
  /**
   * Guards around each model call: the options of `guard()` (`rateLimit`, `circuitBreaker`,
   * `budget`), or guards built with `createModelCallGuards`. They decide once per call, never
   * per SDK retry.
   * @default none
   */
  guards?: ModelCallGuardOptions | readonly ModelCallGuard[] | undefined;
  /** Deadline of a whole model call (every attempt and the stream), in seconds. @default none */
  timeoutSeconds?: number | undefined;
  /** Checked against every tool call the model proposes, before any tool runs. */
  policy?: ToolCallPolicy | undefined;
  /**
   * A `block` violation throws a `PolicyViolationError` (`'throw'`), or the blocked call never
   * runs and the model reads a refusal instead (`'refuse'`).
   * @default 'throw'
   */
  onPolicyViolation?: 'throw' | 'refuse' | undefined;
  /** The refusal text of a blocked call in `refuse` mode. */
  refusalMessage?: ((review: ToolCallReview) => string) | undefined;
  /**
   * How calls are priced into `metadata.cost`: the core price table (`{ overrides, unknownModel }`),
   * a pricer function, or `false`. With a budget in `guards`, a model the table cannot price is
   * refused (`UNKNOWN_MODEL_PRICE`) unless you choose `unknownModel` yourself: a budget must not
   * count an unpriced call as free. Without a budget it is recorded at 0 with one warning.
   * @default the core price table
   */
  pricing?: PricingOption | undefined;
  /** Keep the provider's raw response in each response block's `raw`. @default true */
  recordRaw?: boolean | undefined;
  /** Called when a block cannot be recorded; the model call goes on. @default a process warning */
  onRecordingError?: ((error: unknown) => void) | undefined;
}

/** What {@link createAdapterRuntime} resolves an adapter's options to. */
export interface AdapterRuntime {
  /** The one recorder of this adapter instance. */
  readonly recorder: ModelCallRecorder;
  /**
   * The adapter instance's fallback tracer (no `tracer`, no `withTrace`), created on first use
   * and replaced by a new one every {@link fallbackTraceMaxCalls} model calls.
   * @param callStarts - `true` when a model call is about to start in the returned tracer and
   *   must count towards {@link fallbackTraceMaxCalls} (an adapter that picks the fallback
   *   trace itself, then passes it as the call's `tracer`); leave it out for a look-up
   */
  defaultTracer(callStarts?: boolean): Tracer;
  /** Whether raw provider payloads are recorded. */
  readonly recordRaw: boolean;
  /** Whether a whole-call deadline is set (the adapter then passes the handle's signal on). */
  readonly hasTimeout: boolean;
}

/** Settings of {@link createAdapterRuntime} that the adapter (not its user) decides. */
export interface AdapterRuntimeSettings {
  /** The public entry point, for error messages (`wrapOpenAI`, `tracewardenMiddleware`). */
  entryPoint: string;
  /** Provider for pricing when the adapter always talks to one (`openai`). @default per call */
  provider?: string | undefined;
  /** Option keys the adapter adds to {@link AdapterOptions}, with a check for each. */
  extraOptions?: Readonly<Record<string, OptionCheck>> | undefined;
}

/**
 * Checks one option value of an adapter's own options (`extraOptions`): returns what was
 * expected when the value is wrong, `undefined` when it is fine.
 * @example `(value) => (typeof value === 'boolean' ? undefined : 'true or false')`
 */
export type OptionCheck = (value: unknown) => string | undefined;

const warned = new Set<string>();

function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  process.emitWarning(message, { code: 'TRACEWARDEN_PRICING' });
}

/** The options of model-call guards: `guard()`'s, for the keys that apply to model calls. */
const modelCallGuardsSchema = lazySchema(() =>
  guardOptionsSchema().pick([
    'rateLimit',
    'circuitBreaker',
    'budget',
    'sessionId',
    'logger',
    'clock',
  ]),
);

/**
 * Ready-made {@link OptionCheck}s for an adapter's own options (`undefined`, an option left out,
 * is never checked).
 * @example `extraOptions: { includeUsage: optionChecks.boolean, mode: optionChecks.oneOf('a', 'b') }`
 */
export const optionChecks = {
  boolean: (value: unknown) => (typeof value === 'boolean' ? undefined : 'true or false'),
  function: (value: unknown) => (typeof value === 'function' ? undefined : 'a function'),
  oneOf:
    (...allowed: readonly string[]): OptionCheck =>
    (value) =>
      typeof value === 'string' && allowed.includes(value)
        ? undefined
        : allowed.map((entry) => `'${entry}'`).join(' or '),
  sinks: (value: unknown) =>
    Array.isArray(value) &&
    value.every(
      (sink) =>
        typeof sink === 'object' &&
        sink !== null &&
        typeof (sink as Sink).write === 'function' &&
        typeof (sink as Sink).flush === 'function' &&
        typeof (sink as Sink).close === 'function',
    )
      ? undefined
      : 'a list of Sinks (write, flush, close), e.g. [createMemorySink()]',
  tracer: (value: unknown) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Tracer).logMessage === 'function' &&
    typeof (value as Tracer).findToolCall === 'function'
      ? undefined
      : 'a Tracer (createTracer())',
  positiveSeconds: (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= 2_147_483
      ? undefined
      : 'a finite number of seconds > 0 and at most 2147483 (Node timers max out at ~24.8 days)',
} satisfies Record<string, OptionCheck | ((...args: string[]) => OptionCheck)>;

const commonChecks: Record<string, OptionCheck> = {
  tracer: optionChecks.tracer,
  guards: (value) => {
    if (Array.isArray(value))
      return value.every((guard) => typeof (guard as ModelCallGuard | null)?.admit === 'function')
        ? undefined
        : 'a list of model-call guards (createModelCallGuards())';
    if (typeof value !== 'object' || value === null)
      return "guard options ({ rateLimit, circuitBreaker, budget }) or createModelCallGuards()'s list";
    const wait = (value as { rateLimit?: { maxWaitMs?: unknown } }).rateLimit?.maxWaitMs;
    // admission never sleeps: a rate limit that says it waits would refuse at once instead
    if (wait !== undefined && wait !== 0)
      return 'model-call guard options without rateLimit.maxWaitMs (a model call is never held waiting for a token: it is refused, or pass onLimit: "warn")';
    return undefined;
  },
  timeoutSeconds: optionChecks.positiveSeconds,
  policy: (value) =>
    typeof (value as ToolCallPolicy | null)?.checkToolCall === 'function'
      ? undefined
      : typeof value === 'string'
        ? 'a Policy object: parse policy text with parsePolicy(text) first'
        : 'a Policy (parsePolicy(), definePolicy())',
  onPolicyViolation: optionChecks.oneOf('throw', 'refuse'),
  refusalMessage: optionChecks.function,
  pricing: (value) =>
    value === false ||
    typeof value === 'function' ||
    (typeof value === 'object' && value !== null && !Array.isArray(value))
      ? undefined
      : 'price table options ({ overrides, unknownModel }), a pricer function or false',
  recordRaw: optionChecks.boolean,
  onRecordingError: optionChecks.function,
};

/**
 * Rejects options that are not in `checks` (a typo must never silently change what happens) or
 * fail their check, with one `ConfigurationError` (`INVALID_OPTIONS`) naming the option. An
 * option given as `undefined` is left out.
 * @param options - the options as given (`undefined`: none)
 * @param entryPoint - the function they were given to, for the message
 * @param checks - each known option with its check
 * @throws ConfigurationError naming the first rejected option
 * @example
 * ```ts
 * checkOptionsWith({ onToolErrors: 'throw' }, 'runTools', { onToolError: optionChecks.oneOf('report', 'throw') }); // throws
 * ```
 */
export function checkOptionsWith(
  options: unknown,
  entryPoint: string,
  checks: Readonly<Record<string, OptionCheck>>,
): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw configurationError(entryPoint, 'options', 'an options object', options);
  for (const [key, value] of Object.entries(options)) {
    const check = Object.hasOwn(checks, key) ? checks[key] : undefined;
    if (check === undefined)
      throw configurationError(
        entryPoint,
        key,
        `no such option (a misspelt option would silently leave a guard out); known options: ${Object.keys(checks).join(', ')}`,
        value,
      );
    if (value === undefined) continue;
    const expected = check(value);
    if (expected !== undefined) throw configurationError(entryPoint, key, expected, value);
  }
}

/**
 * Rejects options that are not what an adapter takes: unknown keys (a typo must never silently
 * disable a guard) and wrong types, with one `ConfigurationError` (`INVALID_OPTIONS`) naming the option.
 * `createAdapterRuntime` calls it; an adapter that resolves its options itself can too.
 * @param options - the options as given
 * @param entryPoint - the function they were given to, for the message
 * @param extra - the adapter's own options, each with its check
 * @throws ConfigurationError naming the first rejected option
 * @example
 * ```ts
 * checkAdapterOptions({ guards: { budgets: {} } }, 'myAdapter'); // throws: no such option
 * ```
 */
export function checkAdapterOptions(
  options: unknown,
  entryPoint: string,
  extra?: Readonly<Record<string, OptionCheck>>,
): void {
  checkOptionsWith(
    options,
    entryPoint,
    extra === undefined ? commonChecks : { ...commonChecks, ...extra },
  );
  if (options === undefined) return;
  // the nested options, by their schemas
  const { guards, pricing } = options as { guards?: unknown; pricing?: unknown };
  if (guards !== undefined && !Array.isArray(guards))
    validateOptions(modelCallGuardsSchema, guards, { entryPoint, path: 'guards' });
  if (typeof pricing === 'object' && pricing !== null)
    validateOptions(priceTableOptionsSchema, pricing, { entryPoint, path: 'pricing' });
}

function hasBudget(guards: AdapterOptions['guards']): boolean {
  if (guards === undefined) return false;
  if (Array.isArray(guards))
    return guards.some((guard) => (guard as ModelCallGuard).name === 'budget');
  return (guards as ModelCallGuardOptions).budget !== undefined;
}

/**
 * Resolves the pricing option into a pricer. Unpriced models: refused when a budget is set (a
 * budget must not count them as free), else recorded at 0 with one warning, unless the caller
 * chose an `unknownModel` policy.
 * @param option - the `pricing` option
 * @param provider - a fixed provider id for the price table, else the call's
 * @param budget - whether a budget is among the model-call guards
 * @returns the pricer, or `undefined` for `pricing: false`
 * @example
 * ```ts
 * const pricer = resolvePricing({ overrides: { 'my-model': [1, 2] } }, undefined, true);
 * ```
 */
export function resolvePricing(
  option: PricingOption | undefined,
  provider: string | undefined,
  budget: boolean,
): ModelCallPricer | undefined {
  if (option === false) return undefined;
  if (typeof option === 'function') return option;
  return createModelCallPricer({
    unknownModel: budget ? 'refuse' : 'warn',
    onWarn: warnOnce,
    ...option,
    provider,
  });
}

/**
 * Resolves an adapter's options (validated first) into its recorder, default tracer and
 * settings: every adapter calls this once per instance, so guards, pricing, policy and tracer
 * mean the same in each.
 * @param options - the user's options (`AdapterOptions` plus the adapter's own)
 * @param settings - the entry point's name, a fixed provider, the adapter's extra option checks
 * @returns the runtime the adapter records through
 * @throws ConfigurationError (`INVALID_OPTIONS`) for an unknown option or a wrong value
 * @example
 * ```ts
 * const runtime = createAdapterRuntime(options, { entryPoint: 'myAdapter' });
 * const call = runtime.recorder.start({ provider: 'acme', model: 'm-1', messages });
 * call.finish({ text: 'hi' });
 * ```
 */
export function createAdapterRuntime(
  options: AdapterOptions | undefined,
  settings: AdapterRuntimeSettings,
): AdapterRuntime {
  checkAdapterOptions(options, settings.entryPoint, settings.extraOptions);
  const resolved = options ?? {};
  // what to do about a policy's block, with no policy: the user believes calls are checked
  if (resolved.policy === undefined)
    for (const option of ['onPolicyViolation', 'refusalMessage'] as const)
      if (resolved[option] !== undefined)
        throw configurationError(
          settings.entryPoint,
          option,
          `no ${option} without a policy: it says what to do when the policy blocks a call, and no policy is given, so no call is checked; pass policy (parsePolicy(...) or recommendedPolicy()), or leave ${option} out`,
          resolved[option],
        );
  // the fallback trace, bounded (fallbackTraceMaxCalls): a server using an adapter for its
  // guards alone must not grow; only a model call starting in it counts, never a look-up
  let fallbackTracer: Tracer | undefined;
  let fallbackCalls = 0;
  const fallback = (callStarts = false): Tracer => {
    if (fallbackTracer === undefined || (callStarts && fallbackCalls >= fallbackTraceMaxCalls)) {
      fallbackTracer = createTracer();
      fallbackCalls = 0;
    }
    if (callStarts) fallbackCalls++;
    return fallbackTracer;
  };
  const guards = resolved.guards;
  const recorder = createModelCallRecorder({
    tracer: resolved.tracer,
    defaultTracer: fallback,
    guards:
      guards === undefined
        ? undefined
        : Array.isArray(guards)
          ? (guards as readonly ModelCallGuard[])
          : createModelCallGuards(guards as ModelCallGuardOptions),
    timeoutSeconds: resolved.timeoutSeconds,
    policy: resolved.policy,
    onPolicyViolation: resolved.onPolicyViolation,
    refusalMessage: resolved.refusalMessage,
    pricer: resolvePricing(resolved.pricing, settings.provider, hasBudget(guards)),
    onRecordingError: resolved.onRecordingError,
  });
  return {
    recorder,
    defaultTracer: fallback,
    recordRaw: resolved.recordRaw !== false,
    hasTimeout: resolved.timeoutSeconds !== undefined,
  };
}
