import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIsoTimestamp } from './is-iso-timestamp.js';

// the rule written another way than the implementation's regex: split into fields, then each
// field's range checked as a number
const isoShape = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:Z|[+-](\d\d):(\d\d))$/;

function isoReference(text: string): boolean {
  const match = isoShape.exec(text);
  if (match === null) return false;
  const [, year, month, day, hour, minute, second, , zoneHour, zoneMinute] = match.map(Number);
  // the month's length from the calendar itself: day 0 of the next month is its last day
  const monthDays = new Date(Date.UTC(2000, month!, 0)).getUTCDate();
  const leap = year! % 4 === 0 && (year! % 100 !== 0 || year! % 400 === 0);
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= (month === 2 && !leap ? 28 : monthDays) &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 60 &&
    (match[7] === undefined || match[7].length <= 9) &&
    (match[8] === undefined || (zoneHour! <= 23 && zoneMinute! <= 59))
  );
}
const isoPattern = { test: isoReference };

const timestamp = fc.oneof(
  fc
    .date({ noInvalidDate: true, min: new Date(0), max: new Date(Date.UTC(9999, 11, 31)) })
    .map((date) => date.toISOString()),
  fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }),
      fc.integer({ min: 0, max: 13 }),
      fc.integer({ min: 0, max: 32 }),
      fc.integer({ min: 0, max: 24 }),
      fc.integer({ min: 0, max: 60 }),
      fc.integer({ min: 0, max: 61 }),
      fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), maxLength: 11 }),
      fc.constantFrom('Z', '+02:00', '-11:30', '+24:00', '-00:60', '+2:00', '', 'z'),
    )
    .map(([year, month, day, hour, minute, second, fraction, zone]) => {
      const two = (n: number) => String(n).padStart(2, '0');
      const dot = fraction === '' && second % 2 === 0 ? '' : `.${fraction}`;
      return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(second)}${dot}${zone}`;
    }),
);

const character = fc.constantFrom(...'0123456789-:.TZ+ tz'.split(''), '\u0660', 'é', '\ud800');

describe('isIsoTimestamp', () => {
  it('agrees with the ISO 8601 pattern on timestamps and near misses', () => {
    let valid = 0;
    fc.assert(
      fc.property(
        timestamp,
        fc.array(fc.tuple(fc.nat({ max: 2 }), fc.nat(), character), { maxLength: 2 }),
        (text, edits) => {
          let mutated = text;
          for (const [kind, position, insert] of edits) {
            const at = position % (mutated.length + 1);
            if (kind === 0) mutated = mutated.slice(0, at) + insert + mutated.slice(at);
            else if (kind === 1) mutated = mutated.slice(0, at) + mutated.slice(at + 1);
            else mutated = mutated.slice(0, at) + insert + mutated.slice(at + 1);
          }
          const expected = isoPattern.test(mutated);
          if (expected) valid++;
          // twice: the second call may answer from the cache of the last valid timestamp
          expect(isIsoTimestamp(mutated)).toBe(expected);
          expect(isIsoTimestamp(mutated)).toBe(expected);
        },
      ),
      { numRuns: 20_000 },
    );
    expect(valid).toBeGreaterThan(2000);
    expect(valid).toBeLessThan(18_000);
  });

  it('rejects days past the end of their month, leap years included', () => {
    expect(isIsoTimestamp('2024-02-30T00:00:00Z')).toBe(false);
    expect(isIsoTimestamp('2023-02-29T00:00:00Z')).toBe(false);
    expect(isIsoTimestamp('2024-02-29T00:00:00Z')).toBe(true);
    expect(isIsoTimestamp('1900-02-29T00:00:00Z')).toBe(false);
    expect(isIsoTimestamp('2000-02-29T00:00:00Z')).toBe(true);
    expect(isIsoTimestamp('2025-04-31T00:00:00Z')).toBe(false);
    expect(isIsoTimestamp('2025-12-31T23:59:59Z')).toBe(true);
  });

  it('checks every field of a timestamp that shares its prefix with the last valid one', () => {
    expect(isIsoTimestamp('2025-01-31T12:00:00.000Z')).toBe(true);
    expect(isIsoTimestamp('2025-01-31T12:00:61.000Z')).toBe(false);
    expect(isIsoTimestamp('2025-01-31T12:00:00.000X')).toBe(false);
    expect(isIsoTimestamp('2025-01-31T12:00:00.000Z ')).toBe(false);
    expect(isIsoTimestamp('2025-01-31T12:00:00.000Z')).toBe(true);
    expect(isIsoTimestamp('2025-01-31T12:60:00.000Z')).toBe(false);
    expect(isIsoTimestamp('2025-01-3lT12:00:00.000Z')).toBe(false);
  });
});
