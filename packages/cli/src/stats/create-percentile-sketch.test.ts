import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPercentileSketch } from './create-percentile-sketch.js';

function exactQuantile(sorted: number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

describe('createPercentileSketch', () => {
  it('is empty until a value is added', () => {
    const sketch = createPercentileSketch();
    expect(sketch.quantile(0.5)).toBeUndefined();
    expect(sketch.count).toBe(0);
  });

  it('keeps count, sum, min and max exact', () => {
    const sketch = createPercentileSketch();
    for (const value of [5, 0, 12.5, 5000]) sketch.add(value);
    expect([sketch.count, sketch.sum, sketch.min, sketch.max]).toEqual([4, 5017.5, 0, 5000]);
    expect(sketch.quantile(0)).toBe(0);
    expect(sketch.quantile(1)).toBe(5000);
  });

  it('estimates every quantile within its relative accuracy (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.001, max: 1e7, noNaN: true }), {
          minLength: 1,
          maxLength: 300,
        }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (values, q) => {
          const sketch = createPercentileSketch({ relativeAccuracy: 0.01 });
          for (const value of values) sketch.add(value);
          const exact = exactQuantile(
            [...values].sort((a, b) => a - b),
            q,
          );
          const estimate = sketch.quantile(q) ?? Number.NaN;
          expect(Math.abs(estimate - exact)).toBeLessThanOrEqual(exact * 0.0101);
        },
      ),
    );
  });

  it('stays bounded however many values it sees', () => {
    const sketch = createPercentileSketch({ maxBuckets: 64 });
    for (let i = 1; i <= 100_000; i++) sketch.add(i * 0.37);
    expect(sketch.buckets).toBeLessThanOrEqual(64);
    // the cap merges the lowest buckets: high quantiles stay accurate
    expect(sketch.quantile(0.99)).toBeCloseTo(99_000 * 0.37, -3);
  });
});
