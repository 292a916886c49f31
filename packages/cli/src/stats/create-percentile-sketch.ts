/** A bounded-memory estimator of percentiles. */
export interface PercentileSketch {
  /** Records a value (negative values count as 0). */
  add(value: number): void;
  /**
   * The value at quantile `q` (0..1), within the sketch's relative accuracy of a value that was
   * actually recorded at that rank; undefined when empty.
   */
  quantile(q: number): number | undefined;
  /** Number of values recorded. */
  readonly count: number;
  /** Smallest value recorded (exact). */
  readonly min: number | undefined;
  /** Largest value recorded (exact). */
  readonly max: number | undefined;
  /** Sum of the values recorded (exact, for the mean). */
  readonly sum: number;
  /** Buckets in use (bounded by `maxBuckets`). */
  readonly buckets: number;
}

/** Options of {@link createPercentileSketch}. */
export interface PercentileSketchOptions {
  /** Relative accuracy of quantiles. @default 0.01 (1%) */
  relativeAccuracy?: number;
  /** Most buckets kept; beyond it the lowest buckets merge (only low quantiles lose accuracy). @default 2048 */
  maxBuckets?: number;
}

/**
 * A DDSketch-style log histogram: value `v > 0` falls in bucket `ceil(log_γ v)` with
 * `γ = (1 + α) / (1 - α)`, so every bucket's midpoint is within `α` (1%) of any value in it.
 * Memory depends on the range of values, not on how many: a millisecond latency range of
 * 1 µs to 1 day needs ~1,200 buckets at 1%, and `maxBuckets` caps it anyway. Exact min, max,
 * count and sum are kept beside it. Unlike a fixed-size reservoir it is deterministic and keeps
 * tail percentiles (p99) accurate.
 *
 * @param options - accuracy and bucket cap
 * @returns an empty sketch
 * @example
 * ```ts
 * const sketch = createPercentileSketch();
 * for (const ms of [12, 15, 230]) sketch.add(ms);
 * sketch.quantile(0.5); // ≈ 15
 * ```
 */
export function createPercentileSketch(options: PercentileSketchOptions = {}): PercentileSketch {
  const alpha = options.relativeAccuracy ?? 0.01;
  const maxBuckets = options.maxBuckets ?? 2048;
  const gamma = (1 + alpha) / (1 - alpha);
  const logGamma = Math.log(gamma);
  // smallest value kept apart from zero; below it values count as zero
  const minPositive = 1e-9;
  const counts = new Map<number, number>();
  let zeros = 0;
  let count = 0;
  let sum = 0;
  let min: number | undefined;
  let max: number | undefined;

  const collapse = () => {
    // merge the two lowest buckets until within the cap
    const keys = [...counts.keys()].sort((a, b) => a - b);
    while (counts.size > maxBuckets) {
      const lowest = keys.shift();
      const next = keys[0];
      if (lowest === undefined || next === undefined) return;
      counts.set(next, (counts.get(next) ?? 0) + (counts.get(lowest) ?? 0));
      counts.delete(lowest);
    }
  };

  return {
    add(value) {
      if (!Number.isFinite(value)) return;
      const v = Math.max(value, 0);
      count++;
      sum += v;
      min = min === undefined || v < min ? v : min;
      max = max === undefined || v > max ? v : max;
      if (v < minPositive) {
        zeros++;
        return;
      }
      const key = Math.ceil(Math.log(v) / logGamma);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (counts.size > maxBuckets) collapse();
    },
    quantile(q) {
      if (count === 0 || min === undefined || max === undefined) return undefined;
      // nearest rank: the smallest value with at least q of the values at or below it
      const rank = Math.max(0, Math.min(count - 1, Math.ceil(q * count) - 1));
      // the extremes are known exactly
      if (rank === 0 || rank < zeros) return min;
      if (rank === count - 1) return max;
      let seen = zeros;
      const keys = [...counts.keys()].sort((a, b) => a - b);
      for (const key of keys) {
        seen += counts.get(key) ?? 0;
        if (seen > rank) {
          const estimate = (2 * gamma ** key) / (gamma + 1);
          return Math.min(max, Math.max(min, estimate));
        }
      }
      return max;
    },
    get count() {
      return count;
    },
    get min() {
      return min;
    },
    get max() {
      return max;
    },
    get sum() {
      return sum;
    },
    get buckets() {
      return counts.size + (zeros > 0 ? 1 : 0);
    },
  };
}
