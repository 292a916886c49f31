import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupAlternatives } from './group-alternatives.js';
import { signals } from './injection-signals.js';
import { normalizeInjectionText } from './normalize-injection-text.js';

describe('groupAlternatives', () => {
  it('groups top-level alternatives by the zero-width tests they open with', () => {
    expect(groupAlternatives(/\bab|\bc(?:d|e)|f|\b[|]g/).source).toBe(
      String.raw`\b(?:ab|c(?:d|e)|[|]g)|f`,
    );
    expect(groupAlternatives(/(?<!["'])\bx|(?<!["'])\by|^z|\bw/m).source).toBe(
      String.raw`(?<!["'])\b(?:x|y)|^z|\bw`,
    );
    expect(groupAlternatives(/abc/u).flags).toBe('u');
  });

  it('leaves every signal matching the same sentences', () => {
    const unit = fc.constantFrom(
      'a',
      ' ',
      ':',
      '"',
      "'",
      'ignore',
      ' previous',
      ' instructions',
      'to you, ',
      'hi ',
      'gpt-4',
      'the assistant',
      'before you',
      'this is ',
      'it is me',
      'the user',
      'message from ',
      'system',
      'please ',
      'send ',
      'must',
      '<system>',
      '忽略',
    );
    const grouped = signals.map((signal) => groupAlternatives(signal.pattern));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), (text) => {
        const line = normalizeInjectionText(text);
        signals.forEach((signal, i) => {
          expect([signal.name, grouped[i]?.test(line)]).toEqual([
            signal.name,
            signal.pattern.test(line),
          ]);
        });
      }),
      { numRuns: 500 },
    );
  });
});
