import type { StandardSchemaV1 } from '@standard-schema/spec';
import { validateOptions } from '../errors/validate-options.js';
import type { GuardAction, HallucinationResult } from '../model/tool-records.js';
import { errorMessage } from './error-message.js';
import { hallucinationOptionsSchema } from './guard-options-schema.js';

/** The signals the detector can raise, each with a weight in (0, 1]. */
export type HallucinationSignal =
  | 'unknown_tool'
  | 'invalid_arguments'
  | 'unseen_id'
  | 'latency_out_of_range'
  | 'missing_required_field'
  | 'forbidden_field'
  | 'pattern_mismatch';

/** Default weight of each signal: a confidence is `1 − Π(1 − weight)` over the signals raised. */
export const defaultHallucinationWeights: Readonly<Record<HallucinationSignal, number>> =
  Object.freeze({
    unknown_tool: 0.9,
    invalid_arguments: 0.6,
    unseen_id: 0.5,
    latency_out_of_range: 0.4,
    missing_required_field: 0.5,
    forbidden_field: 0.6,
    pattern_mismatch: 0.4,
  });

/** What a real result of a tool looks like. Field paths are dotted (`data.items`). */
export interface ResultProfile {
  /** A real execution takes at least this long (a result faster than this is suspicious). */
  minLatencyMs?: number | undefined;
  /** A real execution takes at most this long. */
  maxLatencyMs?: number | undefined;
  /** Fields a real result always has. */
  requiredFields?: readonly string[] | undefined;
  /** Fields a real result never has. */
  forbiddenFields?: readonly string[] | undefined;
  /** Field path → pattern its value (as a string) must match. */
  patterns?: Readonly<Record<string, RegExp>> | undefined;
}

/** Hallucination options of a guard (or of {@link createHallucinationDetector}). */
export interface HallucinationOptions {
  /** Confidence at or above which a call is judged hallucinated. @default 0.7 */
  threshold?: number | undefined;
  /** Action when judged hallucinated. @default 'block' */
  onHallucination?: GuardAction | undefined;
  /** The registered tool names; a call to any other name raises `unknown_tool`. `guardTools` fills it in. */
  knownTools?: Iterable<string> | undefined;
  /** The tool's argument schema, checked against kwargs (or the args array). */
  argumentsSchema?: StandardSchemaV1 | undefined;
  /**
   * Keyword-argument names holding ids that must have been seen earlier (in an earlier result,
   * in the trace, or given to `observe`). Only keyword arguments are checked.
   * @default /(^id$|_id$|Id$|^ids$|_ids$|Ids$)/
   */
  idArguments?: RegExp | readonly string[] | undefined;
  /** What a real result looks like. */
  profile?: ResultProfile | undefined;
  /** Override signal weights. */
  weights?: Partial<Record<HallucinationSignal, number>> | undefined;
  /** A detector to share (its registry of seen values) between guards. `guardTools` shares one. */
  detector?: HallucinationDetector | undefined;
}

/** One call as the detector sees it. */
export interface HallucinationCheckInput {
  toolName: string;
  args: readonly unknown[];
  kwargs: Readonly<Record<string, unknown>>;
  sessionId: string;
  /** The result, when the call succeeded. */
  result?: unknown;
  /** Execution time of the attempt that produced the result. */
  latencyMs?: number | undefined;
  /** The trace's text so far (searched for ids not in the registry); called at most once. */
  traceText?: (() => string) | undefined;
}

/** Detects tool calls that should not exist and results that did not come from a real execution. */
export interface HallucinationDetector {
  /**
   * Scores one call and its result.
   * @param input - the call, its result and timing
   * @param options - per-tool settings (schema, profile, weights, threshold)
   * @returns the seed's {@link HallucinationResult}, signals listed
   */
  check(
    input: HallucinationCheckInput,
    options?: HallucinationOptions,
  ): Promise<HallucinationResult>;
  /**
   * Remembers the ids (strings and numbers) inside a value as seen in a session, e.g. a user
   * message or a result. Guards observe every successful result.
   */
  observe(value: unknown, sessionId?: string): void;
  /** Registers more tool names. */
  registerTools(names: Iterable<string>): void;
  /** Forgets seen values (one session, or all). */
  reset(sessionId?: string): void;
}

const defaultIdArguments = /(^id$|_id$|Id$|^ids$|_ids$|Ids$)/;
const maxSeenPerSession = 100_000;

function valueAt(value: unknown, path: string): { found: boolean; value: unknown } {
  let current: unknown = value;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, part))
      return { found: false, value: undefined };
    current = (current as Record<string, unknown>)[part];
  }
  return { found: true, value: current };
}

function collect(value: unknown, into: Set<string>, depth: number): void {
  if (into.size >= maxSeenPerSession) return;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') {
    into.add(String(value));
    return;
  }
  if (depth > 8 || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) for (const item of value) collect(item, into, depth + 1);
  else
    for (const key of Object.keys(value))
      collect((value as Record<string, unknown>)[key], into, depth + 1);
}

/**
 * Creates a hallucination detector. Signals (each weighted, combined as `1 − Π(1 − w)`):
 * `unknown_tool` (name not registered), `invalid_arguments` (fail `argumentsSchema`),
 * `unseen_id` (an id argument never seen earlier in the session or trace),
 * `latency_out_of_range`, `missing_required_field`, `forbidden_field`, `pattern_mismatch`
 * (the result does not fit the tool's {@link ResultProfile}).
 * @param options - default settings, including `knownTools`
 * @returns a detector (its seen-value registry is per session)
 * @example
 * ```ts
 * const detector = createHallucinationDetector({ knownTools: ['get_order'] });
 * detector.observe({ orders: [{ id: 'o_1' }] });
 * const r = await detector.check({ toolName: 'get_order', args: [], kwargs: { order_id: 'o_9' }, sessionId: 'default' });
 * r.signals.unseen_id; // ['order_id']
 * ```
 */
export function createHallucinationDetector(
  options: HallucinationOptions = {},
): HallucinationDetector {
  // a typo (`treshold`), a percent (`threshold: 70`) or a string of tool names would switch the
  // check off without a word
  validateOptions(hallucinationOptionsSchema, options, {
    entryPoint: 'createHallucinationDetector',
    allOptional: true,
  });
  const known = new Set<string>(options.knownTools ?? []);
  const seen = new Map<string, Set<string>>();
  const seenIn = (sessionId: string): Set<string> => {
    let set = seen.get(sessionId);
    if (set === undefined) {
      set = new Set();
      seen.set(sessionId, set);
    }
    return set;
  };
  return {
    observe(value, sessionId = 'default') {
      collect(value, seenIn(sessionId), 0);
    },
    registerTools(names) {
      for (const name of names) known.add(name);
    },
    reset(sessionId) {
      if (sessionId === undefined) seen.clear();
      else seen.delete(sessionId);
    },
    async check(input, callOptions = {}) {
      const settings = { ...options, ...callOptions };
      const weights = {
        ...defaultHallucinationWeights,
        ...options.weights,
        ...callOptions.weights,
      };
      const threshold = settings.threshold ?? 0.7;
      const signals: Record<string, unknown> = {};
      const raised: HallucinationSignal[] = [];
      const reasons: string[] = [];

      const toolsKnown = known.size > 0 || callOptions.knownTools !== undefined;
      if (toolsKnown) {
        const extra =
          callOptions.knownTools === undefined ? undefined : new Set(callOptions.knownTools);
        const isKnown = known.has(input.toolName) || extra?.has(input.toolName) === true;
        signals.unknown_tool = !isKnown;
        if (!isKnown) {
          raised.push('unknown_tool');
          reasons.push(`tool "${input.toolName}" is not registered`);
        }
      }

      const isKwargs = input.args.length === 0;
      if (settings.argumentsSchema !== undefined) {
        let issues: string[];
        try {
          const result = await settings.argumentsSchema['~standard'].validate(
            isKwargs ? input.kwargs : input.args,
          );
          issues = result.issues?.map((i) => i.message) ?? [];
        } catch (error) {
          // a schema that throws holds no arguments valid, as a throwing validator does
          issues = [`the arguments schema threw: ${errorMessage(error)}`];
        }
        signals.invalid_arguments = issues;
        if (issues.length > 0) {
          raised.push('invalid_arguments');
          reasons.push(`arguments fail the tool's schema (${issues[0]})`);
        }
      }

      const idArguments = settings.idArguments ?? defaultIdArguments;
      const isId = (name: string) =>
        idArguments instanceof RegExp ? idArguments.test(name) : idArguments.includes(name);
      const unseen: string[] = [];
      const session = seen.get(input.sessionId);
      let traceText: string | undefined;
      for (const name of Object.keys(input.kwargs)) {
        if (!isId(name)) continue;
        const raw = input.kwargs[name];
        const values = Array.isArray(raw) ? raw : [raw];
        for (const value of values) {
          if (typeof value !== 'string' && typeof value !== 'number') continue;
          const text = String(value);
          if (session?.has(text) === true) continue;
          if (input.traceText !== undefined) {
            traceText ??= input.traceText();
            if (traceText.includes(text)) continue;
          }
          unseen.push(name);
          break;
        }
      }
      signals.unseen_id = unseen;
      if (unseen.length > 0) {
        raised.push('unseen_id');
        reasons.push(
          `id argument ${unseen.map((n) => `"${n}"`).join(', ')} was never seen earlier in the session`,
        );
      }

      const profile = settings.profile;
      if (profile !== undefined) {
        if (
          input.latencyMs !== undefined &&
          (profile.minLatencyMs !== undefined || profile.maxLatencyMs !== undefined)
        ) {
          const out =
            (profile.minLatencyMs !== undefined && input.latencyMs < profile.minLatencyMs) ||
            (profile.maxLatencyMs !== undefined && input.latencyMs > profile.maxLatencyMs);
          signals.latency_ms = input.latencyMs;
          signals.latency_out_of_range = out;
          if (out) {
            raised.push('latency_out_of_range');
            reasons.push(
              `latency ${input.latencyMs} ms is outside [${profile.minLatencyMs ?? 0}, ${profile.maxLatencyMs ?? '∞'}] ms`,
            );
          }
        }
        if (profile.requiredFields !== undefined) {
          const missing = profile.requiredFields.filter((f) => !valueAt(input.result, f).found);
          signals.missing_required_fields = missing;
          if (missing.length > 0) {
            raised.push('missing_required_field');
            reasons.push(`result lacks required field ${missing.join(', ')}`);
          }
        }
        if (profile.forbiddenFields !== undefined) {
          const present = profile.forbiddenFields.filter((f) => valueAt(input.result, f).found);
          signals.forbidden_fields = present;
          if (present.length > 0) {
            raised.push('forbidden_field');
            reasons.push(`result has forbidden field ${present.join(', ')}`);
          }
        }
        if (profile.patterns !== undefined) {
          const mismatched: string[] = [];
          for (const [path, pattern] of Object.entries(profile.patterns)) {
            const at = valueAt(input.result, path);
            pattern.lastIndex = 0;
            if (!at.found || !pattern.test(String(at.value))) mismatched.push(path);
          }
          signals.pattern_mismatches = mismatched;
          if (mismatched.length > 0) {
            raised.push('pattern_mismatch');
            reasons.push(`result field ${mismatched.join(', ')} does not match its pattern`);
          }
        }
      }

      let real = 1;
      for (const signal of raised) real *= 1 - Math.min(1, Math.max(0, weights[signal]));
      const confidence = Math.round((1 - real) * 1e6) / 1e6;
      signals.raised = raised;
      signals.threshold = threshold;
      const isHallucinated = raised.length > 0 && confidence >= threshold;
      return {
        is_hallucinated: isHallucinated,
        confidence,
        reason:
          raised.length === 0
            ? 'no hallucination signal'
            : `${isHallucinated ? 'hallucinated' : 'below threshold'}: ${reasons.join('; ')}`,
        signals,
      };
    },
  };
}
