import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIsoTimestamp } from '../text/is-iso-timestamp.js';
import { TimestampRange } from './timestamp-range.js';

// a trusted second, then texts that share some of its characters: the range's shortcut must
// accept exactly what isIsoTimestamp accepts, whatever was trusted before
const second = fc.constantFrom(
  '2025-01-31T12:00:00.',
  '2024-02-29T23:59:59.',
  '2025-02-28T00:00:60.',
  '0000-12-31T09:30:05.',
);
const tail = fc.oneof(
  fc.stringMatching(/^\d{3}Z$/),
  fc.stringMatching(/^[\d:.Z+\-a-z\u00ff\uffff]{0,6}$/),
  fc.string({ maxLength: 6 }),
);
const text = fc.oneof(
  fc.tuple(second, tail).map(([head, rest]) => head + rest),
  // the trusted second with one character replaced, so it sorts next to the range
  fc
    .tuple(
      second,
      fc.stringMatching(/^\d{3}Z$/),
      fc.nat(23),
      fc.string({ minLength: 1, maxLength: 1 }),
    )
    .map(([head, rest, at, character]) => {
      const whole = head + rest;
      return whole.slice(0, at) + character + whole.slice(at + 1);
    }),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
);

describe('TimestampRange', () => {
  it('accepts exactly what isIsoTimestamp accepts, after any earlier timestamps', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 30 }), (texts) => {
        const range = new TimestampRange();
        for (const value of texts) expect(range.accepts(value)).toBe(isIsoTimestamp(value));
      }),
      { numRuns: 500 },
    );
  });

  it('rejects a text of the trusted second with a bad millisecond or zone', () => {
    const range = new TimestampRange();
    expect(range.accepts('2025-01-31T12:00:00.123Z')).toBe(true);
    expect(range.accepts('2025-01-31T12:00:00.999Z')).toBe(true);
    expect(range.accepts('2025-01-31T12:00:00.9a9Z')).toBe(false);
    expect(range.accepts('2025-01-31T12:00:00.12:Z')).toBe(false);
    expect(range.accepts('2025-01-31T12:00:00.123z')).toBe(false);
    expect(range.accepts('2025-01-31T12:00:00.5\uffffZ')).toBe(false);
  });
});
