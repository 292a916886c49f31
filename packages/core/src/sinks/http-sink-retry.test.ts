import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isRetryableStatus,
  maxRetryAfterMs,
  parseRetryAfter,
  retryDelayMs,
} from './http-sink-retry.js';

describe('HTTP sink retries', () => {
  it('retries 408, 429 and 5xx; other statuses are final', () => {
    expect([408, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 404, 409, 413, 415, 422].some(isRetryableStatus)).toBe(false);
  });

  it('reads Retry-After as seconds or an HTTP date, capped, ignoring junk', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('999999', now)).toBe(maxRetryAfterMs);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('property: a wait is within [half, all] of the capped exponential ceiling, and never under Retry-After', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 64 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.option(fc.integer({ min: 0, max: maxRetryAfterMs }), { nil: undefined }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, base, max, retryAfter, random) => {
          const delay = retryDelayMs(attempt, base, max, retryAfter, () => random);
          const ceiling = Math.min(max, base * 2 ** Math.min(attempt, 30));
          expect(delay).toBeGreaterThanOrEqual(
            Math.min(Math.floor(ceiling / 2), retryAfter ?? Infinity),
          );
          if (retryAfter !== undefined) expect(delay).toBeGreaterThanOrEqual(retryAfter);
          expect(delay).toBeLessThanOrEqual(Math.max(ceiling, retryAfter ?? 0));
        },
      ),
    );
  });
});
