import { TraceError } from '../errors/index.js';

/** What `parseTrace` reads: JSON objects. */
type JsonObject = Record<string, unknown>;

/** Whether `value` is a JSON object (not an array, not null). @internal */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value's kind as an error message names it (`null`, `an array`, `a number`). @internal */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The `VALIDATION` error of an input to `parseTrace`, at `path`. @internal */
export function invalid(path: string, message: string, cause?: unknown): TraceError {
  return new TraceError({
    code: 'VALIDATION',
    message,
    details: { path },
    ...(cause === undefined ? {} : { cause }),
  });
}
