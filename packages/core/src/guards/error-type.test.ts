import { describe, expect, it } from 'vitest';
import { errorType } from './error-type.js';
import { guard } from './guard.js';

// One errorType for the guard's `exception_type`, the recorder's and the adapters' error
// summaries: these cases are where the copies disagreed.
describe('errorType', () => {
  class RateLimitError extends Error {}
  const Anonymous = (() => class extends Error {})();

  it("names an error by its name, or by its class when the name is the inherited 'Error'", () => {
    expect(errorType(new TypeError('x'))).toBe('TypeError');
    expect(errorType(new RateLimitError('x'))).toBe('RateLimitError');
    expect(errorType(Object.assign(new Error('x'), { name: 'AbortError' }))).toBe('AbortError');
    expect(errorType(new Error('x'))).toBe('Error');
  });

  it("falls back to the class, then 'Error', for an empty or non-string name", () => {
    // the guard's copy returned '' (and any non-string name as it was) here
    expect(errorType(Object.assign(new RateLimitError('x'), { name: '' }))).toBe('RateLimitError');
    expect(errorType(Object.assign(new RateLimitError('x'), { name: 42 }))).toBe('RateLimitError');
    expect(errorType(new Anonymous('x'))).toBe('Error');
    expect(errorType(Object.assign(new Anonymous('x'), { name: '' }))).toBe('Error');
  });

  it('gives the typeof of anything else thrown, and never throws', () => {
    expect(errorType('text')).toBe('string');
    expect(errorType(undefined)).toBe('undefined');
    expect(errorType({ message: 'x' })).toBe('object');
    // a plain `{ name, message }` is named as an Error is
    expect(errorType({ name: 'QuotaError', message: 'x' })).toBe('QuotaError');
    const hostile = new Error('x');
    Object.defineProperty(hostile, 'name', {
      get() {
        throw new Error('no');
      },
    });
    expect(errorType(hostile)).toBe('object');
  });

  it('is what a guarded call records as exception_type', async () => {
    const types: (string | null)[] = [];
    const failing = guard(
      async () => {
        throw Object.assign(new RateLimitError('slow down'), { name: '' });
      },
      { onEntry: (entry) => types.push(entry.result.exception_type) },
    );
    await expect(failing()).rejects.toThrow('slow down');
    expect(types).toEqual(['RateLimitError']);
  });

  it("records a thrown plain object's message and name, and a thrown undefined as a failure", async () => {
    const results: unknown[] = [];
    const onEntry = (entry: { result: unknown }) => results.push(entry.result);
    const quota = guard(
      async () => {
        throw { name: 'QuotaError', message: 'quota exhausted' };
      },
      { onEntry },
    );
    await expect(quota()).rejects.toEqual({ name: 'QuotaError', message: 'quota exhausted' });
    const nothing = guard(
      async () => {
        throw undefined;
      },
      { onEntry },
    );
    await expect(nothing()).rejects.toBeUndefined();
    expect(results).toMatchObject([
      { status: 'failure', exception: 'quota exhausted', exception_type: 'QuotaError' },
      { status: 'failure', exception: 'undefined', exception_type: 'undefined' },
    ]);
  });
});
