import {
  abortSignalExpected,
  finiteExpected,
  hasMethods,
  integerExpected,
  isAbortSignal,
  isFiniteIn,
  isWholeNumberFrom,
  type RawIssue,
} from './option-checks.js';

const marker = Symbol.for('tracewarden.optionType');

/**
 * A type of option values checked by plain code, without zod: what core's own options schemas
 * are built from, so that validating options given to `guard()`, `createTracer()` or an adapter
 * does not load zod (~90 ms of a cold start, see decision 100). Issues are reported as zod would
 * report them, so {@link validateOptions} renders the same messages for both kinds of schema.
 */
export interface OptionType<T = unknown> {
  /** @internal */
  readonly [marker]: true;
  /** @internal Phantom: the type of a valid value. */
  readonly _output?: T;
  /** Whether `undefined` (an option left out) is accepted. */
  readonly isOptional: boolean;
  /**
   * Appends the issues of `value` (at `path`) to `issues`; nothing when it is valid. `path` is
   * one array pushed and popped on the way down (as it was when it returns), so that valid
   * options allocate no paths; an issue keeps a copy.
   * @internal
   */
  collect(value: unknown, path: PropertyKey[], issues: RawIssue[]): void;
  /**
   * This type, also accepting `undefined` (an option left out).
   * @returns the optional type
   */
  optional(): OptionType<T | undefined>;
  /**
   * Checks a value, zod-style: `{ success }`, with the raw issues when it fails.
   * @param value - the value to check
   * @returns whether it is valid
   */
  safeParse(value: unknown): { success: true; data: T } | { success: false; issues: RawIssue[] };
}

/** An object type with known keys (unknown keys are rejected). */
export interface OptionObjectType<T = unknown> extends OptionType<T> {
  /** The keys it accepts, in order. */
  readonly keys: readonly string[];
  /**
   * The object type of only some of these keys (still rejecting every other key).
   * @param keys - the keys to keep, in the order they are listed in messages
   * @returns the narrower object type
   */
  pick(keys: readonly string[]): OptionObjectType;
}

/** Whether `value` is an {@link OptionType} (and not, say, a zod schema). @internal */
export function isOptionType(value: unknown): value is OptionType {
  return typeof value === 'object' && value !== null && marker in value;
}

// one prototype for every type rather than closures of each type's own: core's guard schema has
// ~150 types, built on a cold start's first guard; the first guard(fn, options) + createTracer
// + adapter options check went from 6.4 to 5.6 ms CPU in a fresh process (decision 100)
const typeMethods = {
  [marker]: true as const,
  optional<T>(this: OptionType<T>): OptionType<T | undefined> {
    if (this.isOptional) return this;
    return make<T | undefined>((value, path, issues) => {
      if (value !== undefined) this.collect(value, path, issues);
    }, true);
  },
  safeParse<T>(
    this: OptionType<T>,
    value: unknown,
  ): { success: true; data: T } | { success: false; issues: RawIssue[] } {
    const issues: RawIssue[] = [];
    this.collect(value, [], issues);
    return issues.length === 0 ? { success: true, data: value as T } : { success: false, issues };
  },
};

function make<T>(collect: OptionType<T>['collect'], isOptional = false): OptionType<T> {
  const type = Object.create(typeMethods) as {
    -readonly [K in keyof OptionType<T>]: OptionType<T>[K];
  };
  type.collect = collect;
  type.isOptional = isOptional;
  return type;
}

/** A value `predicate` accepts; `expected` describes it in messages. */
function custom<T>(predicate: (value: unknown) => boolean, expected: string): OptionType<T> {
  return make<T>((value, path, issues) => {
    if (!predicate(value)) issues.push({ code: 'custom', path: [...path], message: expected });
  });
}

/** A value of `type` that `predicate` also accepts (asked only once `type` holds). */
function refine<T>(
  type: OptionType<T>,
  predicate: (value: T) => boolean,
  expected: string,
): OptionType<T> {
  return make<T>((value, path, issues) => {
    const before = issues.length;
    type.collect(value, path, issues);
    if (issues.length === before && !predicate(value as T))
      issues.push({ code: 'custom', path: [...path], message: expected });
  });
}

function isObjectLike(value: unknown): value is Record<PropertyKey, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** zod's test of a record: a plain object, or one whose constructor is not a class's. */
function isPlainObject(value: unknown): value is Record<PropertyKey, unknown> {
  if (!isObjectLike(value)) return false;
  const maker = (value as { constructor?: unknown }).constructor;
  if (maker === undefined || typeof maker !== 'function') return true;
  const prototype = (maker as { prototype?: unknown }).prototype;
  return isObjectLike(prototype) && Object.hasOwn(prototype, 'isPrototypeOf');
}

function strictObject(
  shape: Readonly<Record<string, OptionType<unknown>>>,
  keys: readonly string[] = Object.keys(shape),
): OptionObjectType {
  const known = new Set(keys);
  const type = make<unknown>((value, path, issues) => {
    if (!isObjectLike(value)) {
      issues.push({ code: 'invalid_type', path: [...path], message: 'an object' });
      return;
    }
    for (const key of keys) {
      if (key === '__proto__') continue;
      const field = shape[key] as OptionType<unknown>;
      // an absent optional key is never checked (nor read); a present one is, even when undefined
      if (field.isOptional && !(key in value)) continue;
      path.push(key);
      field.collect(value[key], path, issues);
      path.pop();
    }
    let unknown: string[] | undefined;
    for (const key in value)
      if (!known.has(key)) {
        unknown ??= [];
        unknown.push(key);
      }
    if (unknown !== undefined)
      issues.push({
        code: 'unrecognized_keys',
        path: [...path],
        message: '',
        keys: unknown,
        known: keys,
        continue: true,
      });
  }) as OptionType & { keys?: readonly string[]; pick?: OptionObjectType['pick'] };
  type.keys = keys;
  type.pick = (picked) =>
    strictObject(
      shape,
      picked.filter((key) => Object.hasOwn(shape, key)),
    );
  return type as OptionObjectType;
}

function union(options: readonly OptionType<unknown>[]): OptionType<unknown> {
  return make((value, path, issues) => {
    const branches: RawIssue[][] = [];
    for (const option of options) {
      const branch: RawIssue[] = [];
      option.collect(value, [], branch);
      if (branch.length === 0) return;
      branches.push(branch);
    }
    // as zod: a single branch that failed only on unknown keys is the one reported
    const open = branches.filter((branch) => branch.every((issue) => issue.continue === true));
    if (open.length === 1) {
      for (const issue of open[0] as RawIssue[])
        issues.push({ ...issue, path: [...path, ...issue.path] });
      return;
    }
    issues.push({ code: 'invalid_union', path: [...path], message: '', errors: branches });
  });
}

function array(item: OptionType<unknown>): OptionType<unknown[]> {
  return make((value, path, issues) => {
    if (!Array.isArray(value)) {
      issues.push({ code: 'invalid_type', path: [...path], message: 'an array' });
      return;
    }
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      item.collect(value[i], path, issues);
      path.pop();
    }
  });
}

function record(item: OptionType<unknown>): OptionType<Record<string, unknown>> {
  return make((value, path, issues) => {
    if (!isPlainObject(value)) {
      issues.push({ code: 'invalid_type', path: [...path], message: 'a record' });
      return;
    }
    for (const key of Reflect.ownKeys(value)) {
      if (key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(value, key)) continue;
      if (typeof key === 'symbol') {
        issues.push({ code: 'invalid_key', path: [...path, key], message: 'a valid value' });
        continue;
      }
      path.push(key);
      item.collect(value[key], path, issues);
      path.pop();
    }
  });
}

function tuple(items: readonly OptionType<unknown>[], expected: string): OptionType<unknown[]> {
  return make((value, path, issues) => {
    if (!Array.isArray(value)) {
      issues.push({ code: 'invalid_type', path: [...path], message: expected });
      return;
    }
    if (value.length < items.length) {
      issues.push({ code: 'too_small', path: [...path], message: expected });
      return;
    }
    if (value.length > items.length)
      issues.push({ code: 'too_big', path: [...path], message: expected });
    items.forEach((item, i) => {
      path.push(i);
      item.collect(value[i], path, issues);
      path.pop();
    });
  });
}

/**
 * Builders of {@link OptionType}s, named as zod's, for core's options schemas and an adapter's:
 * objects with known keys, unions, literals, strings, booleans, arrays, records, tuples, finite
 * numbers in a range, whole numbers, functions, interfaces by shape, instances. Messages read
 * as with zod and the zod helpers of `optionSchemas`.
 * @example
 * ```ts
 * const schema = lazySchema(() =>
 *   optionTypes.strictObject({ retries: optionTypes.integer(0).optional() }),
 * );
 * validateOptions(schema, { retrys: 2 }, { entryPoint: 'connect' }); // did you mean "retries"?
 * ```
 */
export const optionTypes = {
  /** An object with exactly these keys (each optional or not); any other key is rejected. */
  strictObject,
  /** A value of any of these types (the closest one is reported when none matches). */
  union,
  /** An array of values of one type. */
  array,
  /** A plain object of values of one type, by string key. */
  record,
  /** An array of exactly these types, in order; `expected` describes it in messages. */
  tuple,
  /** A value `predicate` accepts; `expected` describes it in messages. */
  custom,
  /** A value of a type that a predicate also accepts; `expected` describes it in messages. */
  refine,
  /**
   * One of these strings.
   * @param values - the accepted strings
   * @param expected - how they are described @default 'one of "a", "b"'
   * @returns the type
   */
  oneOf<const V extends string>(values: readonly V[], expected?: string): OptionType<V> {
    const message = expected ?? `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`;
    return make<V>((value, path, issues) => {
      if (!(values as readonly unknown[]).includes(value))
        issues.push({ code: 'invalid_value', path: [...path], message });
    });
  },
  /**
   * A string.
   * @param minLength - shortest allowed length @default 0
   * @returns the type
   */
  string(minLength = 0): OptionType<string> {
    return make<string>((value, path, issues) => {
      if (typeof value !== 'string')
        issues.push({ code: 'invalid_type', path: [...path], message: 'a string' });
      else if (value.length < minLength)
        issues.push({
          code: 'too_small',
          path: [...path],
          message: `a string of >= ${minLength} characters`,
        });
    });
  },
  /**
   * `true` or `false`.
   * @returns the type
   */
  boolean(): OptionType<boolean> {
    return make<boolean>((value, path, issues) => {
      if (typeof value !== 'boolean')
        issues.push({ code: 'invalid_type', path: [...path], message: 'a boolean' });
    });
  },
  /**
   * An instance of a class (`instanceof`).
   * @param type - the class
   * @param expected - how it is described in messages, e.g. `a RegExp`
   * @returns the type
   */
  instanceOf<C extends abstract new (...args: never[]) => unknown>(
    type: C,
    expected: string,
  ): OptionType<InstanceType<C>> {
    return custom((value) => value instanceof type, expected);
  },
  /**
   * Any function.
   * @param expected - how it is described in messages @default 'a function'
   * @returns the type
   */
  function<F extends (...args: never[]) => unknown>(expected = 'a function'): OptionType<F> {
    return custom<F>((value) => typeof value === 'function', expected);
  },
  /**
   * An object (or function) with these methods: an interface such as a tracer or a store, checked
   * by shape so that objects from another copy of the package pass.
   * @param expected - how it is described in messages, e.g. `a Tracer (from createTracer())`
   * @param methods - names of the methods it must have
   * @returns the type
   */
  withMethods<T>(expected: string, methods: readonly string[]): OptionType<T> {
    return custom<T>((value) => hasMethods(value, methods), expected);
  },
  /**
   * An `AbortSignal`.
   * @returns the type
   */
  abortSignal(): OptionType<AbortSignal> {
    return custom<AbortSignal>(isAbortSignal, abortSignalExpected);
  },
  /**
   * A finite number in `[min, max]`.
   * @param min - smallest allowed value @default 0
   * @param max - largest allowed value @default Number.MAX_VALUE
   * @param unit - appended to the description, e.g. `seconds`
   * @returns the type
   */
  finite(min = 0, max = Number.MAX_VALUE, unit = ''): OptionType<number> {
    return custom<number>((value) => isFiniteIn(value, min, max), finiteExpected(min, max, unit));
  },
  /**
   * A whole number `>= min`.
   * @param min - smallest allowed value @default 0
   * @returns the type
   */
  integer(min = 0): OptionType<number> {
    return custom<number>((value) => isWholeNumberFrom(value, min), integerExpected(min));
  },
};
