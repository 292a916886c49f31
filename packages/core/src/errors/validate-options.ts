import type { ZodType } from 'zod';
import { ConfigurationError, type ConfigurationIssue } from './configuration-error.js';
import { zod } from './load-zod.js';

/** Where the options being validated were given, for the error message. */
export interface ValidateOptionsContext {
  /** The function the options were given to, e.g. `guard` or `wrapOpenAI`. */
  entryPoint: string;
  /** Prefix of every reported path, when the value is part of a larger options object (e.g. `guards`). */
  path?: string | undefined;
  /**
   * Every option of the schema is optional, so no options at all (`undefined` or `{}`) are
   * valid: they are accepted without loading zod (about 50-100 ms of a cold start).
   */
  allOptional?: boolean | undefined;
}

/** `undefined`, or a plain object with no own keys; false for anything whose reads throw. */
function isNothingGiven(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'object' || value === null) return false;
  try {
    const prototype = Object.getPrototypeOf(value);
    return (
      (prototype === Object.prototype || prototype === null) && Reflect.ownKeys(value).length === 0
    );
  } catch {
    // a hostile Proxy: the schema path reports it
    return false;
  }
}

/** A schema, or a function that builds it on first use (see {@link lazySchema}). */
export type OptionsSchema<T> = ZodType<T> | (() => ZodType<T>);

/**
 * Defers building a schema until it is first used, then keeps it: schemas built at import time
 * slow every process that imports core, whether or not it ever validates.
 * @param build - builds the schema (called at most once)
 * @returns a function returning the schema, to pass to {@link validateOptions}
 * @example
 * ```ts
 * const schema = lazySchema(() => z.strictObject({ retries: z.number().int().min(0).optional() }));
 * validateOptions(schema, options, { entryPoint: 'myAdapter' });
 * ```
 */
export function lazySchema<T>(build: () => ZodType<T>): () => ZodType<T> {
  let schema: ZodType<T> | undefined;
  return () => {
    if (schema === undefined) schema = build();
    return schema;
  };
}

/**
 * Checks options once, where they are given, against a strict schema, and throws one
 * {@link ConfigurationError} naming every rejected option (path, what was expected, what was
 * given). Unknown keys must be rejected by the schema (`z.strictObject`): a typo must never
 * silently disable a guard. Returns the value itself, not a parsed copy, so identities (a
 * shared budget, a tracer) are kept. Call it at construction, never per call.
 *
 * @param schema - the options' schema, or a {@link lazySchema}
 * @param value - the options as given (`undefined` is checked like any other value)
 * @param context - the entry point (and a path prefix) named in the message
 * @returns `value`, typed by the schema
 * @throws {ConfigurationError} code `INVALID_OPTIONS` when any option is rejected
 * @example
 * ```ts
 * const schema = lazySchema(() => z.strictObject({ timeoutSeconds: z.number().positive().optional() }));
 * validateOptions(schema, { timeoutSeconds: '5' }, { entryPoint: 'wrapOpenAI' });
 * // ConfigurationError: Invalid option given to wrapOpenAI(): timeoutSeconds: expected a number, got "5".
 * ```
 */
export function validateOptions<T>(
  schema: OptionsSchema<T>,
  value: unknown,
  context: ValidateOptionsContext,
): T {
  if (context.allOptional === true && isNothingGiven(value)) return value as T;
  const resolved = typeof schema === 'function' ? schema() : schema;
  let result: ReturnType<ZodType['safeParse']>;
  try {
    result = resolved.safeParse(value, { error: expectedOf });
  } catch (cause) {
    // options whose reads throw (a getter, a hostile Proxy) cannot be checked, so not used
    const issues = [
      {
        path: joinPath(context.path, []),
        expected: 'options that can be read',
        received: 'a value whose reads throw',
      },
    ];
    throw new ConfigurationError({
      message: formatMessage(context.entryPoint, issues),
      entryPoint: context.entryPoint,
      issues,
      cause,
    });
  }
  if (result.success) return value as T;
  const issues: ConfigurationIssue[] = [];
  for (const issue of result.error.issues)
    collectIssues(issue as RawIssue, [], resolved, value, context.path, issues);
  throw new ConfigurationError({
    message: formatMessage(context.entryPoint, issues),
    entryPoint: context.entryPoint,
    issues,
  });
}

/**
 * Builds a {@link ConfigurationError} for one option rejected by a check that is not a schema
 * (a cross-field rule, a value only known later), with the same message shape as
 * {@link validateOptions}.
 * @param entryPoint - the function the options were given to
 * @param path - the option's dotted path
 * @param expected - what the option must be
 * @param given - the value given (rendered for the message)
 * @returns the error, to throw
 * @example
 * ```ts
 * throw configurationError('guard', 'timeout.timeoutSeconds', 'at most 2147483.647 seconds', 1e9);
 * ```
 */
export function configurationError(
  entryPoint: string,
  path: string,
  expected: string,
  given: unknown,
): ConfigurationError {
  const issues = [{ path, expected, received: describeValue(given) }];
  return new ConfigurationError({
    message: formatMessage(entryPoint, issues),
    entryPoint,
    issues,
  });
}

/**
 * Schemas for option values zod has no direct type for, shared by every entry point's options
 * schema (core's and the adapters').
 */
export const optionSchemas = {
  /**
   * Any function.
   * @param expected - how the function is described in messages @default 'a function'
   * @returns the schema
   */
  function<F extends (...args: never[]) => unknown>(expected = 'a function'): ZodType<F> {
    return zod().custom<F>((value) => typeof value === 'function', { error: expected });
  },
  /**
   * An object (or function) with the given methods: interfaces such as a tracer, a sink or a
   * store, checked by shape so that objects from another copy of the package pass.
   * @param expected - how the object is described in messages, e.g. `a Tracer (from createTracer())`
   * @param methods - names of the methods it must have
   * @returns the schema
   */
  withMethods<T>(expected: string, methods: readonly string[]): ZodType<T> {
    return zod().custom<T>((value) => hasMethods(value, methods), { error: expected });
  },
  /**
   * An `AbortSignal`.
   * @returns the schema
   */
  abortSignal(): ZodType<AbortSignal> {
    return zod().custom<AbortSignal>(
      (value) => typeof AbortSignal !== 'undefined' && value instanceof AbortSignal,
      { error: 'an AbortSignal' },
    );
  },
  /**
   * A finite number in `[min, max]`.
   * @param min - smallest allowed value @default 0
   * @param max - largest allowed value @default Number.MAX_VALUE
   * @param unit - appended to the description, e.g. `seconds`
   * @returns the schema
   */
  finite(min = 0, max = Number.MAX_VALUE, unit = ''): ZodType<number> {
    const range =
      max === Number.MAX_VALUE ? `>= ${min}` : `between ${min} and ${max}${unit ? ` ${unit}` : ''}`;
    const expected = `a finite number ${range}${unit && max === Number.MAX_VALUE ? ` (${unit})` : ''}`;
    return zod().custom<number>(
      (value) =>
        typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max,
      { error: expected },
    );
  },
  /**
   * A whole number `>= min`.
   * @param min - smallest allowed value @default 0
   * @returns the schema
   */
  integer(min = 0): ZodType<number> {
    return zod().custom<number>(
      (value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= min,
      { error: `a whole number >= ${min}` },
    );
  },
};

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  try {
    for (const method of methods)
      if (typeof (value as Record<string, unknown>)[method] !== 'function') return false;
    return true;
  } catch {
    return false;
  }
}

/** The parts of a zod issue this module reads. */
interface RawIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  errors?: RawIssue[][];
}

/** Describes what a failed check expected, for issues whose schema gave no message of its own. */
function expectedOf(issue: object): string {
  const raw = issue as Record<string, unknown>;
  switch (raw.code) {
    case 'invalid_type': {
      const expected = String(raw.expected);
      if (expected === 'int') return 'a whole number';
      if (expected === 'number') return 'a finite number';
      if (expected === 'object') return 'an object';
      if (expected === 'array') return 'an array';
      return `a ${expected}`;
    }
    case 'too_small':
    case 'too_big': {
      const bound = raw.code === 'too_small' ? raw.minimum : raw.maximum;
      const inclusive = raw.inclusive !== false;
      const op = raw.code === 'too_small' ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<';
      const origin = String(raw.origin);
      if (origin === 'string') return `a string of ${op} ${String(bound)} characters`;
      if (origin === 'array' || origin === 'set') return `a list of ${op} ${String(bound)} items`;
      return `a number ${op} ${String(bound)}`;
    }
    case 'invalid_value':
      return `one of ${(raw.values as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return `a string in ${String(raw.format)} format`;
    case 'not_multiple_of':
      return `a multiple of ${String(raw.divisor)}`;
    default:
      return 'a valid value';
  }
}

function collectIssues(
  issue: RawIssue,
  base: PropertyKey[],
  schema: ZodType,
  root: unknown,
  prefix: string | undefined,
  out: ConfigurationIssue[],
): void {
  const path = [...base, ...issue.path];
  if (issue.code === 'unrecognized_keys' && issue.keys !== undefined) {
    const known = knownKeysAt(schema, path);
    for (const key of issue.keys) {
      const suggestion = closest(key, known);
      const hint = suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`;
      out.push({
        path: joinPath(prefix, [...path, key]),
        expected:
          known.length === 0
            ? `no option of this name${hint}`
            : `a known option${hint}, one of ${known.join(', ')}`,
        received: describeValue(valueAt(root, [...path, key])),
      });
    }
    return;
  }
  if (issue.code === 'invalid_union' && issue.errors !== undefined && issue.errors.length > 0) {
    const branch = furthestBranch(issue.errors);
    if (branch !== undefined) {
      for (const inner of branch) collectIssues(inner, path, schema, root, prefix, out);
      return;
    }
    const expected = [...new Set(issue.errors.flat().map((inner) => inner.message))];
    out.push({
      path: joinPath(prefix, path),
      expected: expected.join(' or '),
      received: describeValue(valueAt(root, path)),
    });
    return;
  }
  out.push({
    path: joinPath(prefix, path),
    expected: issue.message,
    received: describeValue(valueAt(root, path)),
  });
}

/**
 * The union branch the value came closest to matching (an object of the right kind with one bad
 * option, rather than "not a function"), or undefined when every branch failed at its root.
 */
function furthestBranch(branches: RawIssue[][]): RawIssue[] | undefined {
  let best: RawIssue[] | undefined;
  let bestScore = 0;
  for (const branch of branches) {
    let score = 0;
    for (const issue of branch) {
      const depth =
        issue.path.length * 2 + (issue.code === 'invalid_type' || issue.code === 'custom' ? 0 : 1);
      if (depth > score) score = depth;
    }
    if (score > bestScore) {
      bestScore = score;
      best = branch;
    }
  }
  return best;
}

/** The keys an object schema accepts at `path` (through optional, nullable and union wrappers). */
function knownKeysAt(schema: ZodType, path: PropertyKey[]): string[] {
  const keys = new Set<string>();
  const visit = (node: unknown, rest: PropertyKey[], depth: number): void => {
    if (depth > 32 || node === null || typeof node !== 'object') return;
    const def = (node as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (def === undefined) return;
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'readonly':
      case 'nonoptional':
        visit(def.innerType, rest, depth + 1);
        return;
      case 'pipe':
        visit(def.in, rest, depth + 1);
        return;
      case 'lazy':
        visit((def.getter as () => unknown)(), rest, depth + 1);
        return;
      case 'union':
        for (const option of def.options as unknown[]) visit(option, rest, depth + 1);
        return;
      case 'object': {
        const shape = def.shape as Record<string, unknown>;
        if (rest.length === 0) {
          for (const key of Object.keys(shape)) keys.add(key);
          return;
        }
        const [head, ...tail] = rest;
        if (typeof head === 'string' && head in shape) visit(shape[head], tail, depth + 1);
        return;
      }
      case 'record':
        if (rest.length > 0) visit(def.valueType, rest.slice(1), depth + 1);
        return;
      default:
        return;
    }
  };
  visit(schema, path, 0);
  return [...keys];
}

/** The known key closest to a misspelt one (at most two edits, or a case-only difference). */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.max(1, Math.floor(key.length / 3)) + 1);
  for (const candidate of known) {
    if (candidate.toLowerCase() === key.toLowerCase()) return candidate;
    const distance = editDistance(key, candidate, bestDistance);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return best;
}

function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

function joinPath(prefix: string | undefined, path: readonly PropertyKey[]): string {
  let out = prefix ?? '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else {
      const name = String(key);
      const plain = /^[A-Za-z_$][\w$]*$/.test(name);
      out += plain ? (out === '' ? name : `.${name}`) : `[${JSON.stringify(name)}]`;
    }
  }
  return out;
}

/** Reads the value at `path`, never throwing (getters and proxies may). */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  try {
    for (const key of path) {
      if ((typeof node !== 'object' && typeof node !== 'function') || node === null)
        return undefined;
      node = (node as Record<PropertyKey, unknown>)[key];
    }
    return node;
  } catch {
    return undefined;
  }
}

/**
 * Renders a given value for an error message: short, never throwing, never the whole of a large
 * value.
 * @internal
 */
export function describeValue(value: unknown): string {
  try {
    switch (typeof value) {
      case 'undefined':
        return 'undefined';
      case 'number':
        return Object.is(value, -0) ? '-0' : String(value);
      case 'bigint':
        return `${value}n`;
      case 'boolean':
        return String(value);
      case 'symbol':
        return 'a symbol';
      case 'string': {
        const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
        return JSON.stringify(shown);
      }
      case 'function':
        return value.name === '' ? 'a function' : `a function (${value.name})`;
      default: {
        if (value === null) return 'null';
        if (Array.isArray(value)) return `an array of ${value.length}`;
        const proto = Object.getPrototypeOf(value);
        if (proto === null || proto === Object.prototype) return 'an object';
        const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
        return typeof name === 'string' && name !== '' ? `a ${name}` : 'an object';
      }
    }
  } catch {
    return 'a value that cannot be inspected';
  }
}

function formatMessage(entryPoint: string, issues: readonly ConfigurationIssue[]): string {
  const line = (issue: ConfigurationIssue) =>
    `${issue.path === '' ? 'the options' : issue.path}: expected ${issue.expected}, got ${issue.received}`;
  if (issues.length === 1)
    return `Invalid option given to ${entryPoint}(): ${line(issues[0] as ConfigurationIssue)}. Fix it where ${entryPoint}() is called.`;
  return `Invalid options given to ${entryPoint}():\n${issues.map((issue) => `- ${line(issue)}`).join('\n')}\nFix them where ${entryPoint}() is called.`;
}
