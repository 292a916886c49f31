/*
 * The checks and descriptions shared by core's two kinds of options schema (plain
 * `optionTypes` and zod's `optionSchemas`), so that both accept the same values and describe
 * them in the same words. Not exported from the package. (No internal tag here: TypeScript reads
 * a file's first comment as the first declaration's, and would strip it from the declarations.)
 */

/** One failed check, in the shape of a zod issue (the parts `validateOptions` reads). */
export interface RawIssue {
  code: string;
  /** From the value checked, to the rejected part. */
  path: readonly PropertyKey[];
  /** What was expected (empty for unknown keys and unions, which are described otherwise). */
  message: string;
  /** Unknown keys, for `unrecognized_keys`. */
  keys?: string[];
  /** The keys the object accepts, for `unrecognized_keys` (zod's are found from the schema). */
  known?: readonly string[];
  /** Each union branch's issues, for `invalid_union`. */
  errors?: RawIssue[][];
  /** A failure later checks of the same value still run after (unknown keys). */
  continue?: boolean;
}

/** @internal */
export function hasMethods(value: unknown, methods: readonly string[]): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  try {
    for (const method of methods)
      if (typeof (value as Record<string, unknown>)[method] !== 'function') return false;
    return true;
  } catch {
    return false;
  }
}

/** @internal */
export const abortSignalExpected = 'an AbortSignal';

/** @internal */
export function isAbortSignal(value: unknown): boolean {
  return typeof AbortSignal !== 'undefined' && value instanceof AbortSignal;
}

/** @internal */
export function isFiniteIn(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
}

/** @internal */
export function finiteExpected(min: number, max: number, unit: string): string {
  const range =
    max === Number.MAX_VALUE ? `>= ${min}` : `between ${min} and ${max}${unit ? ` ${unit}` : ''}`;
  return `a finite number ${range}${unit && max === Number.MAX_VALUE ? ` (${unit})` : ''}`;
}

/** @internal */
export function isWholeNumberFrom(value: unknown, min: number): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
}

/** @internal */
export function integerExpected(min: number): string {
  return `a whole number >= ${min}`;
}
