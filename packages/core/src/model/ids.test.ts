import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createIdGenerator, createSequentialIds, createUlid } from './ids.js';

describe('createUlid', () => {
  it('makes 26-character Crockford base32 ids', () => {
    const next = createUlid();
    expect(next()).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('keeps creation order within one millisecond, across carries', () => {
    const next = createUlid(
      () => 1_700_000_000_000,
      () => 0.999,
    );
    const ids = Array.from({ length: 5_000 }, () => next());
    const sorted = [...ids].sort();
    expect(sorted).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sorts by time, and never goes backwards when the clock does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2 ** 40 }), { minLength: 1, maxLength: 200 }),
        (times) => {
          let i = 0;
          const next = createUlid(() => times[i++ % times.length] ?? 0);
          const ids = times.map(() => next());
          expect([...ids].sort()).toEqual(ids);
          expect(new Set(ids).size).toBe(ids.length);
        },
      ),
    );
  });

  it('makes valid, ordered ids from any clock reading: fractions, negatives, NaN, huge', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.double({ min: -1e3, max: 2 ** 49, noNaN: false }),
            fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 2 ** 48 - 1, 2 ** 48),
          ),
          { minLength: 1, maxLength: 100 },
        ),
        (readings) => {
          let i = 0;
          const next = createUlid(() => readings[i++] ?? 0);
          const ids = readings.map(() => next());
          for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
          expect([...ids].sort()).toEqual(ids);
          expect(new Set(ids).size).toBe(ids.length);
        },
      ),
    );
    expect(createUlid(() => 1.9)().slice(0, 10)).toBe('0000000001');
  });

  it('encodes the time in the first ten characters', () => {
    const a = createUlid(() => 1)();
    const b = createUlid(() => 2)();
    expect(a.slice(0, 10)).toBe('0000000001');
    expect(b.slice(0, 10)).toBe('0000000002');
  });
});

describe('id generators', () => {
  it('prefixes block and trace ids as the seed does', () => {
    const ids = createIdGenerator();
    expect(ids.blockId()).toMatch(/^tb_[0-9A-Z]{26}$/);
    expect(ids.traceId()).toMatch(/^tr_[0-9A-Z]{26}$/);
    expect(ids.callId()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('ignore arguments: passed as a callback, they still read their own clock', () => {
    const ids = createIdGenerator(() => Date.UTC(2026, 0, 1));
    const made = [-5, 1e20, Number.NaN].map(ids.blockId as (value: number) => string);
    for (const id of made) expect(id).toMatch(/^tb_01[0-9A-HJKMNP-TV-Z]{24}$/);
    expect(made.map((id) => id.slice(0, 13))).toEqual(Array(3).fill(made[0]!.slice(0, 13)));
    const next = createUlid(() => 1);
    expect([7, 8].map(next as (value: number) => string)[0]!.slice(0, 10)).toBe('0000000001');
  });

  it('counts deterministically for tests', () => {
    const ids = createSequentialIds();
    expect([ids.blockId(), ids.blockId(), ids.traceId(), ids.callId()]).toEqual([
      'tb_000001',
      'tb_000002',
      'tr_000001',
      'call_000001',
    ]);
  });
});
