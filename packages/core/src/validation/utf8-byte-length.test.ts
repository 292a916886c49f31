import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import { jsonByteBound } from '../text/json-byte-bound.js';
import { stringByteLength } from '../text/string-byte-length.js';
import { utf8ByteLength } from './utf8-byte-length.js';

const encoder = new TextEncoder();

describe('utf8ByteLength', () => {
  it('counts the bytes of a string itself', () => {
    expect(utf8ByteLength('')).toBe(0);
    expect(utf8ByteLength('abc')).toBe(3);
    expect(utf8ByteLength('é')).toBe(2);
    expect(utf8ByteLength('€')).toBe(3);
    expect(utf8ByteLength('😀')).toBe(4);
    // a lone surrogate counts as the U+FFFD an encoder writes for it
    expect(utf8ByteLength('\ud800')).toBe(3);
  });

  it('counts other values by their JSON form', () => {
    expect(utf8ByteLength({ city: 'bogotá' })).toBe(18);
    expect(utf8ByteLength([1, null, true])).toBe(13);
    expect(utf8ByteLength(undefined)).toBe(0);
  });

  it('throws a VALIDATION TraceError for values JSON.stringify rejects', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const value of [cycle, 1n]) {
      expect(() => utf8ByteLength(value)).toThrow(TraceError);
    }
  });

  it('agrees with TextEncoder on every string, short or long', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 64 }),
        fc.nat({ max: 3000 }),
        (text, repeat) => {
          expect(stringByteLength(text)).toBe(encoder.encode(text).length);
          const long = text.repeat(Math.max(1, Math.ceil(repeat / Math.max(1, text.length))));
          expect(stringByteLength(long)).toBe(encoder.encode(long).length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('agrees with TextEncoder on JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        expect(utf8ByteLength(value)).toBe(encoder.encode(text).length);
      }),
    );
  });
});

describe('jsonByteBound', () => {
  it('is an upper bound of the JSON bytes whenever it gives one', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
        for (const candidate of [value, { text, value }, [text]]) {
          const bound = jsonByteBound(candidate, 0);
          if (bound >= 0)
            expect(bound).toBeGreaterThanOrEqual(encoder.encode(JSON.stringify(candidate)).length);
        }
      }),
    );
  });

  it('bounds the longest number forms (found by the property above)', () => {
    for (const value of [
      -0.0000010003434687224171, -1.2345678901234567e-308, -1.7976931348623157e308,
    ])
      expect(jsonByteBound(value, 0)).toBeGreaterThanOrEqual(JSON.stringify(value).length);
  });

  it('gives up on values JSON.stringify transforms or rejects', () => {
    for (const value of [
      new Date(0),
      1n,
      () => 1,
      undefined,
      { toJSON: () => 'x' },
      new Map(),
      '\ud800',
    ]) {
      expect(jsonByteBound(value, 0)).toBe(-1);
    }
  });
});
