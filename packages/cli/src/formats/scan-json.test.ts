import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineColumnAt, parseJson } from './parse-json.js';
import { scanJson } from './scan-json.js';

describe('scanJson', () => {
  it('agrees with JSON.parse on what is valid JSON (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string()), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(scanJson(text).error === undefined).toBe(valid);
      }),
    );
  });

  it('records the offsets of values near the top', () => {
    const text = '{"traces": [[{"role": "user"}], [\n {"role": "tool"}]]}';
    const { offsets } = scanJson(text, 4);
    expect(offsets.get('traces.1.0')).toBe(text.indexOf('{"role": "tool"}'));
    expect(lineColumnAt(text, offsets.get('traces.1.0') ?? 0)).toEqual({ line: 2, column: 2 });
  });

  it('does not overflow on deep nesting', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(scanJson(deep).error).toBeUndefined();
    expect(scanJson(`${deep}]`).error?.reason).toBe('unexpected text after the JSON value');
  });
});

describe('parseJson', () => {
  it.each([
    ['{"a":1,}', 1, 8],
    ['{\n  "a": tru\n}', 2, 8],
    ['[1, 2', 1, 6],
    ['', 1, 1],
  ])('locates the error in %j at line %i column %i', (text, line, column) => {
    const result = parseJson(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect([result.line, result.column]).toEqual([line, column]);
  });
});
