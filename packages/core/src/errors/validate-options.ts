import type { ZodType } from 'zod';
import { ConfigurationError, type ConfigurationIssue } from './configuration-error.js';
import type { RawIssue } from './option-checks.js';
import { isOptionType, type OptionType } from './option-types.js';
import { zodIssues } from './zod-options.js';

export { optionSchemas } from './zod-options.js';

/** Where the options being validated were given, for the error message. */
export interface ValidateOptionsContext {
  /** The function the options were given to, e.g. `guard` or `wrapOpenAI`. */
  entryPoint: string;
  /** Prefix of every reported path, when the value is part of a larger options object (e.g. `guards`). */
  path?: string | undefined;
  /**
   * Every option of the schema is optional, so no options at all (`undefined` or `{}`) are
   * valid: they are accepted without building the schema.
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

/**
 * An options schema: core's plain {@link OptionType} (no zod needed) or a zod schema, or a
 * function that builds either on first use (see {@link lazySchema}).
 */
export type OptionsSchema<T> =
  | OptionType<T>
  | ZodType<T>
  | (() => OptionType<T>)
  | (() => ZodType<T>);

/**
 * Defers building a schema until it is first used, then keeps it: schemas built at import time
 * slow every process that imports core, whether or not it ever validates.
 * @param build - builds the schema (called at most once)
 * @returns a function returning the schema, to pass to {@link validateOptions}
 * @example
 * ```ts
 * const schema = lazySchema(() => optionTypes.strictObject({ retries: optionTypes.integer(0).optional() }));
 * validateOptions(schema, options, { entryPoint: 'myAdapter' });
 * ```
 */
export function lazySchema<S extends OptionType<unknown> | ZodType>(build: () => S): () => S {
  let schema: S | undefined;
  return () => {
    if (schema === undefined) schema = build();
    return schema;
  };
}

/**
 * Checks options once, where they are given, against a strict schema, and throws one
 * {@link ConfigurationError} naming every rejected option (path, what was expected, what was
 * given). Unknown keys must be rejected by the schema (`optionTypes.strictObject`, or zod's
 * `z.strictObject`): a typo must never silently disable a guard. Returns the value itself, not
 * a parsed copy, so identities (a shared budget, a tracer) are kept. Call it at construction,
 * never per call. A plain {@link OptionType} schema is checked without loading zod.
 *
 * @param schema - the options' schema, or a {@link lazySchema}
 * @param value - the options as given (`undefined` is checked like any other value)
 * @param context - the entry point (and a path prefix) named in the message
 * @returns `value`, typed by the schema
 * @throws {ConfigurationError} code `INVALID_OPTIONS` when any option is rejected
 * @example
 * ```ts
 * const schema = lazySchema(() =>
 *   optionTypes.strictObject({ timeoutSeconds: optionTypes.finite(0).optional() }),
 * );
 * validateOptions(schema, { timeoutSeconds: '5' }, { entryPoint: 'wrapOpenAI' });
 * // ConfigurationError: Invalid option given to wrapOpenAI(): timeoutSeconds: expected a finite number >= 0, got "5". …
 * ```
 */
export function validateOptions<T>(
  schema: OptionsSchema<T>,
  value: unknown,
  context: ValidateOptionsContext,
): T {
  if (context.allOptional === true && isNothingGiven(value)) return value as T;
  const resolved = typeof schema === 'function' ? schema() : schema;
  let raw: RawIssue[] | undefined;
  try {
    if (isOptionType(resolved)) {
      const collected: RawIssue[] = [];
      resolved.collect(value, [], collected);
      if (collected.length > 0) raw = collected;
    } else raw = zodIssues(resolved as ZodType, value);
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
  if (raw === undefined) return value as T;
  const issues: ConfigurationIssue[] = [];
  for (const issue of raw) collectIssues(issue, [], value, context.path, issues);
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

function collectIssues(
  issue: RawIssue,
  base: PropertyKey[],
  root: unknown,
  prefix: string | undefined,
  out: ConfigurationIssue[],
): void {
  const path = [...base, ...issue.path];
  if (issue.code === 'unrecognized_keys' && issue.keys !== undefined) {
    const known = issue.known ?? [];
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
      for (const inner of branch) collectIssues(inner, path, root, prefix, out);
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

/**
 * Seed 004's option names whose camelCase form is not ours (`retryable_exceptions` is
 * `retryOn`); every other seed name is found by its camelCase form (see {@link closest}).
 */
const seedNames: Readonly<Record<string, string>> = {
  retryableexceptions: 'retryOn',
  modelpricingoverrides: 'pricing',
};

/** A key without case, `_` or `-`: `max_cost_per_session` and `maxCostPerSession` are one name. */
function looseName(key: string): string {
  return key.replace(/[_-]/g, '').toLowerCase();
}

/**
 * The known key closest to a misspelt one: a seed 004 name's own (its camelCase form, or the
 * name in {@link seedNames}), a case-only difference, or at most two edits.
 * @internal
 */
export function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.max(1, Math.floor(key.length / 3)) + 1);
  const loose = looseName(key);
  const seedName = seedNames[loose];
  if (seedName !== undefined && known.includes(seedName)) return seedName;
  for (const candidate of known) {
    if (looseName(candidate) === loose) return candidate;
    const distance = editDistance(key, candidate, bestDistance);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return best;
}

/** Edits between two names, a swap of two neighbouring letters counting as one (`nmae`). */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        distance = Math.min(distance, (before[j - 2] as number) + 1);
      current[j] = distance;
    }
    before = previous;
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
