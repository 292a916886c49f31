import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../parse-policy.js';
import { BoundedRegex } from './bounded-regex.js';
import { compilePolicyRegex, type RegexAnchor, type RegexEngine } from './policy-regex.js';
import {
  isPythonDigit,
  isPythonSpace,
  isPythonWordChar,
  pythonClassRanges,
} from './python-classes.js';
import { digitTable, tableUnicodeVersion, wordTable } from './python-classes-table.js';
import { pythonRegexSource } from './python-regex.js';

// Python 3's \d, \w, \s and \b on str patterns are Unicode-aware; JavaScript's (without the `u`
// flag, which policy regexes cannot take) are ASCII: `match(r"\d{16}", text)` missed fullwidth
// digits Invariant catches, and `\bcaf\b` matched "café".

// the `l` flag (V8's linear-time engine) parses only with this flag, as policy-regex.ts sets it
setFlagsFromString('--enable-experimental-regexp-engine');

/** Python's rules, written out independently of python-classes.ts (its `\p` tests per character). */
const reference = {
  d: (ch: string) => /^\p{Nd}$/u.test(ch),
  w: (ch: string) => ch === '_' || /^[\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}\p{Nd}\p{Nl}\p{No}]$/u.test(ch),
  s: (ch: string) =>
    ' \t\n\r\f\v\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000'.includes(ch) ||
    (ch >= '\u2000' && ch <= '\u200a'),
};
const isWordAt = (text: string, p: number) =>
  p >= 0 && p < text.length && reference.w(text[p] as string);
const boundaryAt = (text: string, p: number) => isWordAt(text, p - 1) !== isWordAt(text, p);

/** Each escape class, in a class or out, and its meaning by Python's rules. */
const classes: [string, (ch: string) => boolean][] = [
  ['\\d', reference.d],
  ['\\D', (ch) => !reference.d(ch)],
  ['\\w', reference.w],
  ['\\W', (ch) => !reference.w(ch)],
  ['\\s', reference.s],
  ['\\S', (ch) => !reference.s(ch)],
  ['[\\d]', reference.d],
  ['[^\\d]', (ch) => !reference.d(ch)],
  ['[\\w-]', (ch) => reference.w(ch) || ch === '-'],
  ['[^\\W_]', (ch) => reference.w(ch) && ch !== '_'],
  ['[\\d\\s]', (ch) => reference.d(ch) || reference.s(ch)],
  ['[^\\S\\n]', (ch) => reference.s(ch) && ch !== '\n'],
  ['[\\Wa]', (ch) => !reference.w(ch) || ch === 'a'],
  ['[^\\D٣]', (ch) => reference.d(ch) && ch !== '٣'],
];

/** The same pattern on each engine, forced: whether it matches all of `text`. */
const engines: Record<RegexEngine | 'policy', (source: string) => (text: string) => boolean> = {
  backtracking: (source) => {
    const regex = new RegExp(`^(?:${pythonRegexSource(source)})$`);
    return (text) => regex.test(text);
  },
  linear: (source) => {
    const regex = new RegExp(`^(?:${pythonRegexSource(source)})$`, 'l');
    return (text) => regex.test(text);
  },
  bounded: (source) => {
    const regex = new BoundedRegex(`^(?:${pythonRegexSource(source, 'escapes')})$`);
    return (text) => regex.search(text) !== null;
  },
  // as policies compile it: the engine it picks, and JavaScript's ASCII escapes on ASCII texts
  policy: (source) => {
    const regex = compilePolicyRegex(source, 'full');
    if (typeof regex === 'string') throw new Error(regex);
    return (text) => regex.test(text);
  },
};

function compiled(source: string, anchor: RegexAnchor = 'none') {
  const regex = compilePolicyRegex(source, anchor);
  if (typeof regex === 'string') throw new Error(regex);
  return regex;
}

/** Every (start, end) match of `source` in `text` on one engine. */
function all(source: string, text: string, engine: RegexEngine | 'policy'): string[] {
  if (engine === 'policy')
    return compiled(source)
      .searchAll(text)
      .map(({ start, end }) => text.slice(start, end));
  if (engine === 'bounded')
    return new BoundedRegex(pythonRegexSource(source, 'escapes'))
      .searchAll(text)
      .map(({ start, end }) => text.slice(start, end));
  return [...text.matchAll(new RegExp(pythonRegexSource(source), engine === 'linear' ? 'gl' : 'g'))]
    .map((m) => m[0])
    .filter((m) => m !== '');
}

const alphabet = [
  'a',
  'Z',
  '7',
  '_',
  ' ',
  '-',
  '\n',
  '\t',
  'é',
  'ß',
  'Ω',
  '١',
  '٣',
  '٩',
  '０',
  '９',
  '\u0301', // combining acute accent (Mn): not \w in Python
  '\u0903', // Devanagari visarga (Mc): not \w either
  '\xa0',
  '\x1c',
  '\x85',
  '\u3000',
  '\ufeff', // JavaScript's \s, not Python's
  '²', // No
  'Ⅻ', // Nl
  '\u200b', // zero-width space: neither
  '\uffff', // in the complement of \w: V8's linear engine mishandles it in a negated class
];
const mixed = fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 16 });
const allEngines = ['backtracking', 'linear', 'bounded', 'policy'] as const;

describe("Python's Unicode-aware class escapes", () => {
  it('match what Python 3 matches on str patterns (values checked against CPython 3.11)', () => {
    // re.fullmatch(c, ch) in CPython for each character
    const python: Record<string, string> = {
      '\\d': '7١٣٩０９',
      '\\w': 'aZ7_éßΩ١٣٩０９²Ⅻ',
      '\\s': ' \n\t\xa0\x1c\x85\u3000',
    };
    for (const [source, expected] of Object.entries(python)) {
      for (const engine of allEngines) {
        const test = engines[engine](source);
        const got = alphabet.filter((ch) => test(ch)).join('');
        expect(got, `${source} on ${engine}`).toBe(expected);
      }
    }
  });

  it('agree with the reference predicates on every engine, in classes and out (property)', () => {
    const tests = classes.map(([source, expected]) => ({
      source,
      expected,
      engines: allEngines.map((engine) => ({ engine, test: engines[engine](`(?:${source})*`) })),
      one: allEngines.map((engine) => ({ engine, test: engines[engine](source) })),
    }));
    fc.assert(
      fc.property(mixed, (text) => {
        for (const { source, expected, engines: many, one } of tests) {
          const whole = [...text].every(expected);
          for (const { engine, test } of many)
            expect(test(text), `${source}* on ${engine}`).toBe(whole);
          for (const ch of text)
            for (const { engine, test } of one)
              expect(test(ch), `${source} on ${engine}: ${JSON.stringify(ch)}`).toBe(expected(ch));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("\\b and \\B find the boundaries of Python's \\w on every engine (property)", () => {
    const bounded = new BoundedRegex('\\b');
    const notBounded = new BoundedRegex('\\B');
    const native = new RegExp(pythonRegexSource('\\b'), 'y');
    const nativeNot = new RegExp(pythonRegexSource('\\B'), 'y');
    const policy = compiled('\\b');
    const policyNot = compiled('\\B');
    fc.assert(
      fc.property(mixed, (text) => {
        for (let p = 0; p <= text.length; p++) {
          const expected = boundaryAt(text, p);
          native.lastIndex = p;
          nativeNot.lastIndex = p;
          expect(native.test(text), `\\b at ${p} of ${JSON.stringify(text)}`).toBe(expected);
          expect(nativeNot.test(text)).toBe(!expected);
          expect(bounded.search(text, p)?.start === p).toBe(expected);
          expect(notBounded.search(text, p)?.start === p).toBe(!expected);
          expect(policy.search(text, p)?.start === p).toBe(expected);
          expect(policyNot.search(text, p)?.start === p).toBe(!expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('finds Unicode digits, letters and spaces on each engine', () => {
    for (const engine of allEngines) {
      expect(all('\\d+', 'card ４１１１-１１١١ 42', engine), engine).toEqual([
        '４１１１',
        '１１١١',
        '42',
      ]);
      expect(all('\\w+', 'héllo wörld, naïve_x', engine), engine).toEqual([
        'héllo',
        'wörld',
        'naïve_x',
      ]);
      // a combining mark is not a word character: "e\u0301" (e + acute) splits
      expect(all('\\w+', 'cafe\u0301s', engine), engine).toEqual(['cafe', 's']);
      expect(all('[\\w-]+', 'jean-rené, zoë', engine), engine).toEqual(['jean-rené', 'zoë']);
      expect(all('[^\\W\\d_]+', 'ab_1é٣c', engine), engine).toEqual(['ab', 'é', 'c']);
      expect(all('\\S+', 'a\xa0b\u3000c\ufeffd\x1ce', engine), engine).toEqual([
        'a',
        'b',
        'c\ufeffd',
        'e',
      ]);
      expect(all('[\\d\\s]+', 'x١ ٢\x85y', engine), engine).toEqual(['١ ٢\x85']);
      expect(all('\\D+', 'a٣b', engine), engine).toEqual(['a', 'b']);
      expect(all('\\W+', 'é—ü', engine), engine).toEqual(['—']);
    }
  });

  it("\\b and \\B use Python's \\w on each engine", () => {
    for (const engine of ['backtracking', 'bounded', 'policy'] as const) {
      expect(all('\\bcaf\\b', 'café caf', engine), engine).toEqual(['caf']);
      expect(all('\\bcafé\\b', 'un café.', engine), engine).toEqual(['café']);
      expect(all('\\b\\w+\\b', 'déjà vu', engine), engine).toEqual(['déjà', 'vu']);
      expect(all('\\Bé', 'é café', engine), engine).toEqual(['é']);
      expect(all('\\b٣', 'x٣ ٣', engine), engine).toEqual(['٣']);
    }
    // the linear-time engine refuses lookaheads: \b on non-ASCII text runs on the bounded matcher
    expect(() => new RegExp(pythonRegexSource('caf\\b'), 'gl')).toThrow(/linear time/);
  });

  it("runs each pattern on the engine its shape allows, ASCII texts on JavaScript's own escapes", () => {
    const engineOf = (source: string, text: string) => compiled(source).engine(text);
    // provably safe: JavaScript's backtracking engine, either text
    expect(engineOf('\\d{16}', '1234')).toBe('backtracking');
    expect(engineOf('\\d{16}', '１２３４')).toBe('backtracking');
    expect(engineOf('\\bcaf\\b', 'café')).toBe('backtracking');
    // not provably safe: the linear-time engine, also for the Unicode ranges
    expect(engineOf('x\\w+y', 'xay')).toBe('linear');
    expect(engineOf('x\\w+y', 'xéy')).toBe('linear');
    // a \b that is not provably safe: linear on ASCII, the bounded matcher on other texts
    expect(engineOf('\\bfoo.*bar\\b', 'foo bar')).toBe('linear');
    expect(engineOf('\\bfoo.*bar\\b', 'foo bär')).toBe('bounded');
    expect(compiled('\\bfoo.*bar\\b').test('foo bär bar!')).toBe(true);
    expect(compiled('\\bfoo.*bar\\b').test('foo barré')).toBe(false);
    // lookaheads: the bounded matcher
    expect(engineOf('(?=\\w)\\d+', '١')).toBe('bounded');
    expect(compiled('(?=\\w)\\d+').searchAll('a١٢ 3')).toEqual([
      { start: 1, end: 3 },
      { start: 4, end: 5 },
    ]);
    // and $ still matches before a final newline
    expect(compiled('\\d+$').search('x ٤٢\n')).toEqual({ start: 2, end: 4 });
  });

  it('never runs a nested repetition on the backtracking engine, ASCII or not', () => {
    for (const text of [
      `${'a'.repeat(30_000)}!`,
      `${'é'.repeat(30_000)}!`,
      `${'١'.repeat(30_000)}!`,
    ]) {
      for (const source of ['(\\w+)+$', '^(\\w|\\d)+$', '(?:\\w+\\s?)+$']) {
        const regex = compiled(source);
        expect(regex.engine(text)).not.toBe('backtracking');
        const started = performance.now();
        expect(regex.test(text)).toBe(false);
        expect(performance.now() - started).toBeLessThan(2000);
      }
    }
  });

  it('refuses a class escape at an end of a range, as Python does', () => {
    const problem = (source: string) => {
      const result = compilePolicyRegex(source, 'none');
      return typeof result === 'string' ? result : 'compiled';
    };
    expect(problem('[a-\\w]')).toMatch(/\\w is not supported .*range/);
    expect(problem('[\\d-z]')).toMatch(/\\d is not supported .*range/);
    expect(problem('[\\s-\\d]')).toMatch(/\\s is not supported/);
    for (const ok of ['[\\w-]', '[-\\w]', '[a-b-\\w]', '[\\x41-\\x5a\\d]', '[\\0-\\x1f\\s]'])
      expect(problem(ok), ok).toBe('compiled');
    expect(compiled('[\\x41-\\x5a\\d]+').searchAll('AZ٣a')).toEqual([{ start: 0, end: 3 }]);
  });

  it('keeps the ranges small and sorted, and leaves astral characters out', () => {
    for (const kind of ['d', 'w', 's'] as const) {
      const ranges = pythonClassRanges(kind);
      for (let k = 0; k < ranges.length; k += 2) {
        expect(ranges[k] as number).toBeLessThanOrEqual(ranges[k + 1] as number);
        if (k > 0) expect(ranges[k] as number).toBeGreaterThan((ranges[k - 1] as number) + 1);
      }
    }
    expect(isPythonWordChar('é'.charCodeAt(0))).toBe(true);
    expect(isPythonWordChar(0x301)).toBe(false);
    expect(isPythonDigit(0xff10)).toBe(true);
    expect(isPythonSpace(0xfeff)).toBe(false);
    // a surrogate half is never \w (an astral letter like 𝐀 is two \W code units)
    expect(isPythonWordChar(0xd835)).toBe(false);
    expect(all('\\W', '𝐀', 'policy')).toHaveLength(2);
  });

  it('leaves a pattern without these escapes as it was', () => {
    for (const source of ['.*@evil\\.com', '^rm -rf /$', '[\\b]x', 'a{,3}'])
      expect(pythonRegexSource(source)).toBe(pythonRegexSource(source, 'escapes'));
  });
});

/** The ranges JavaScript's Unicode tables give for a `u`-flag class, BMP only, as the table spells them. */
function generatedTable(kind: 'd' | 'w'): string {
  const test = kind === 'd' ? /^\p{Nd}$/u : /^[\p{L}\p{Nd}\p{Nl}\p{No}_]$/u;
  const ranges: number[] = [];
  let low = -1;
  for (let c = 0; c <= 0x10000; c++) {
    const inside = c <= 0xffff && (c < 0xd800 || c > 0xdfff) && test.test(String.fromCharCode(c));
    if (inside && low < 0) low = c;
    else if (!inside && low >= 0) {
      ranges.push(low, c - 1);
      low = -1;
    }
  }
  return ranges.map((c) => c.toString(16).padStart(4, '0')).join('');
}

describe('python-classes-table.ts', () => {
  // regenerate: UPDATE_PYTHON_CLASSES=1 npx vitest run --project core python-classes.test.ts
  it.runIf(process.versions.unicode === tableUnicodeVersion || process.env.UPDATE_PYTHON_CLASSES)(
    "is what this Node's Unicode tables give",
    () => {
      const digits = generatedTable('d');
      const words = generatedTable('w');
      if (process.env.UPDATE_PYTHON_CLASSES) {
        const path = new URL('./python-classes-table.ts', import.meta.url);
        const lines = (table: string) =>
          (table.match(/.{1,96}/g) ?? []).map((line) => `  '${line}',`).join('\n');
        const header = readFileSync(path, 'utf8').split('\n// ---\n')[0];
        writeFileSync(
          path,
          `${header}\n// ---\n\n/** @internal The Unicode version of the tables below. */\nexport const tableUnicodeVersion = '${process.versions.unicode}';\n\n/** @internal Python's \`\\d\`: Nd. */\nexport const digitTable = [\n${lines(digits)}\n].join('');\n\n/** @internal Python's \`\\w\`: L*, Nd, Nl, No and \`_\`. */\nexport const wordTable = [\n${lines(words)}\n].join('');\n`,
        );
      }
      expect(digitTable).toBe(digits);
      expect(wordTable).toBe(words);
    },
  );
});

describe('policies match Unicode text as Invariant does', () => {
  it('catches a card number in fullwidth digits with match(r"\\d{16}", ...) and find', () => {
    const policy = parsePolicy(`
raise "card number in a payment note" if:
    (call: ToolCall)
    call is tool:pay
    match(r"\\d{16}", call.function.arguments.note)

raise "card number in a tool output" if:
    (out: ToolOutput)
    len(find(r"\\b\\d{4}[ -]?\\d{4}[ -]?\\d{4}[ -]?\\d{4}\\b", out.content)) > 0
`);
    const trace = (note: string, output: string) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'pay', arguments: { note } } }],
      },
      { role: 'tool', tool_call_id: 'a', content: output },
    ];
    const fullwidth = '４１１１１１１１１１１１１１１１';
    expect(policy.check(trace(fullwidth, 'ok')).errors).toHaveLength(1);
    expect(policy.check(trace('4111111111111111', 'ok')).errors).toHaveLength(1);
    expect(policy.check(trace('card ending 1111', 'ok')).errors).toEqual([]);
    expect(
      policy.check(trace('nothing', 'Karte: ４１１１ １１１１ １１١١ ١١١١ gültig')).errors,
    ).toHaveLength(1);
    // not a boundary inside a word: "é" is a word character in Python
    expect(policy.check(trace('nothing', 'é4111111111111111é')).errors).toEqual([]);
  });

  it('a tool pattern reads \\w as Python does', () => {
    const policy = parsePolicy(`
raise "outside" if:
    (call: ToolCall)
    call is tool:send_email
    not call is tool:send_email({ to: r"[\\w.]+@corp\\.com" })
`);
    const mail = (to: string) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'send_email', arguments: { to } } },
        ],
      },
    ];
    expect(policy.check(mail('josé.núñez@corp.com')).errors).toEqual([]);
    expect(policy.check(mail('ann@corp.com')).errors).toEqual([]);
    expect(policy.check(mail('ann@evil.com')).errors).toHaveLength(1);
  });
});
