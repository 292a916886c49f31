import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIsoTimestamp } from './format-iso-timestamp.js';

describe('formatIsoTimestamp', () => {
  it('writes exactly what Date#toISOString writes, for any time in the Date range (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -8.64e15, max: 8.64e15 }),
          fc.integer({ min: 0, max: 253_402_300_800_000 + 1000 }),
          fc.double({ min: -8.64e15, max: 8.64e15, noNaN: true }),
        ),
        (ms) => {
          expect(formatIsoTimestamp(ms)).toBe(new Date(ms).toISOString());
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('stays exact across minute, hour, day and year boundaries, in any order', () => {
    const edges = [0, 59_999, 60_000, 3_599_999, 3_600_000, 86_399_999, 86_400_000];
    const years = [
      Date.UTC(2024, 11, 31, 23, 59, 59, 999),
      Date.UTC(2025, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    const times = [...edges, ...years, 253_402_300_800_000, ...edges.reverse()];
    for (const ms of times) expect(formatIsoTimestamp(ms)).toBe(new Date(ms).toISOString());
  });

  it('throws the RangeError of Date for NaN and times out of range', () => {
    expect(() => formatIsoTimestamp(Number.NaN)).toThrow(RangeError);
    expect(() => formatIsoTimestamp(8.64e15 + 1)).toThrow(RangeError);
  });
});
