import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIsoTimestamp } from './is-iso-timestamp.js';

// the seconds, fraction and zone part of a timestamp written another way than the
// implementation: one regex for the shape, then the ranges as numbers
const suffixShape = /^(\d\d)(?:\.(\d+))?(?:Z|[+-](\d\d):(\d\d))$/;

function suffixReference(suffix: string): boolean {
  const match = suffixShape.exec(suffix);
  if (match === null) return false;
  const [, second, fraction, zoneHour, zoneMinute] = match;
  return (
    Number(second) <= 60 &&
    (fraction === undefined || fraction.length <= 9) &&
    (zoneHour === undefined || (Number(zoneHour) <= 23 && Number(zoneMinute) <= 59))
  );
}

const suffixText = fc.oneof(
  fc.stringMatching(/^\d\d(\.\d{0,11})?(Z|[+-]\d\d:\d\d)?$/),
  fc.string({ maxLength: 14 }),
  fc.constantFrom(
    '60Z',
    '61Z',
    '59.123456789Z',
    '59.1234567890Z',
    '00+23:59',
    '00-24:00',
    '00+05:60',
    '5Z',
    '00.Z',
    '00Z ',
  ),
);

describe('isIsoTimestamp after a timestamp of the same minute', () => {
  // first in this file: the module's cache is still empty
  it('rejects an empty or short text before any timestamp passed', () => {
    expect(isIsoTimestamp('')).toBe(false);
    expect(isIsoTimestamp('2025-01-31T12:00:')).toBe(false);
  });

  it('checks the seconds, fraction and zone of the next timestamp exactly (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(Date.UTC(9999, 11, 31)) }),
        suffixText,
        (date, suffix) => {
          const valid = date.toISOString();
          expect(isIsoTimestamp(valid)).toBe(true);
          expect(isIsoTimestamp(valid.slice(0, 17) + suffix)).toBe(suffixReference(suffix));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('still rejects an impossible date whose minute prefix was never accepted', () => {
    expect(isIsoTimestamp('2024-02-29T12:00:00Z')).toBe(true);
    expect(isIsoTimestamp('2023-02-29T12:00:00Z')).toBe(false);
    expect(isIsoTimestamp('2024-02-30T12:00:00Z')).toBe(false);
  });
});
