import type { ZodType } from 'zod';
import { zod } from './load-zod.js';
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

/**
 * zod versions of the option values zod has no direct type for, for options schemas written
 * with zod (an adapter of your own): they accept and describe values as core's `optionTypes`
 * do. Core's own schemas use `optionTypes`, which need no zod.
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
    return zod().custom<AbortSignal>(isAbortSignal, { error: abortSignalExpected });
  },
  /**
   * A finite number in `[min, max]`.
   * @param min - smallest allowed value @default 0
   * @param max - largest allowed value @default Number.MAX_VALUE
   * @param unit - appended to the description, e.g. `seconds`
   * @returns the schema
   */
  finite(min = 0, max = Number.MAX_VALUE, unit = ''): ZodType<number> {
    return zod().custom<number>((value) => isFiniteIn(value, min, max), {
      error: finiteExpected(min, max, unit),
    });
  },
  /**
   * A whole number `>= min`.
   * @param min - smallest allowed value @default 0
   * @returns the schema
   */
  integer(min = 0): ZodType<number> {
    return zod().custom<number>((value) => isWholeNumberFrom(value, min), {
      error: integerExpected(min),
    });
  },
};

/**
 * The issues of `value` against a zod schema, in the shape `validateOptions` reads (undefined
 * when it is valid), with the keys each rejecting object accepts.
 * @internal
 */
export function zodIssues(schema: ZodType, value: unknown): RawIssue[] | undefined {
  const result = schema.safeParse(value, { error: expectedOf });
  if (result.success) return undefined;
  const annotate = (issue: RawIssue, base: readonly PropertyKey[]): RawIssue => {
    const path = [...base, ...issue.path];
    if (issue.code === 'unrecognized_keys') return { ...issue, known: knownKeysAt(schema, path) };
    if (issue.code === 'invalid_union' && issue.errors !== undefined)
      return {
        ...issue,
        errors: issue.errors.map((branch) => branch.map((inner) => annotate(inner, path))),
      };
    return issue;
  };
  return result.error.issues.map((issue) => annotate(issue as RawIssue, []));
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

/** The keys an object schema accepts at `path` (through optional, nullable and union wrappers). */
function knownKeysAt(schema: ZodType, path: readonly PropertyKey[]): string[] {
  const keys = new Set<string>();
  const visit = (node: unknown, rest: readonly PropertyKey[], depth: number): void => {
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
