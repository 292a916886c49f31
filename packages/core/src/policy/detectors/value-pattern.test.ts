import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  base64Form,
  canonicalValue,
  MAX_ACCOUNT_LENGTH,
  MAX_VALUE_PATTERN_LENGTH,
  valuePattern,
} from './value-pattern.js';

const lowerChars = [...'abcdefghijklmnopqrstuvwxyz'];
const digits = [...'0123456789'];
const word = (chars: string[], min: number, max: number) =>
  fc.array(fc.constantFrom(...chars), { minLength: min, maxLength: max }).map((a) => a.join(''));
const groups = (text: string, size: number, separator: string): string =>
  (text.match(new RegExp(`.{1,${size}}`, 'g')) ?? []).join(separator);

/** A value of one kind and the ways real agents rewrite it (each a function of the value). */
interface Kind {
  name: string;
  value: fc.Arbitrary<string>;
  forms: ((value: string) => string)[];
}

const kinds: Kind[] = [
  {
    name: 'IBAN',
    value: fc
      .tuple(
        word([...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'], 2, 2),
        word(digits, 2, 2),
        word([...digits, ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'], 12, 26),
      )
      .map((parts) => parts.join('')),
    forms: [
      (v) => groups(v, 4, ' '),
      (v) => groups(v, 4, '-'),
      (v) => v.toLowerCase(),
      (v) => groups(v, 4, '\n    '),
    ],
  },
  {
    name: 'phone number',
    value: fc.tuple(fc.boolean(), word(digits, 9, 13)).map(([plus, d]) => `${plus ? '+' : ''}${d}`),
    forms: [
      (v) => groups(v.replace('+', ''), 3, ' '),
      (v) => groups(v.replace('+', ''), 3, '-'),
      (v) => groups(v.replace('+', ''), 3, '.'),
      (v) => {
        const d = v.replace('+', '');
        return `+${d.slice(0, 2)} (${d.slice(2, 5)}) ${d.slice(5, 8)}-${d.slice(8)}`;
      },
    ],
  },
  {
    name: 'email address',
    value: fc
      .tuple(word([...lowerChars, ...digits, '.', '-'], 1, 12), word(lowerChars, 2, 10))
      .filter(([local]) => /^[a-z0-9]/.test(local) && /[a-z0-9]$/.test(local))
      .map(([local, domain]) => `${local}@${domain}.com`),
    forms: [
      (v) => v.toUpperCase(),
      (v) => `"Mark" <${v}>`,
      (v) => `Mark Black <${v.toUpperCase()}>`,
      (v) => `mailto:${v}`,
    ],
  },
  {
    name: 'link',
    value: fc
      .tuple(word([...lowerChars, '-'], 2, 12), fc.constantFrom('com', 'net', 'club', 'help'))
      .filter(([name]) => /^[a-z]/.test(name) && /[a-z]$/.test(name))
      .chain(([name, tld]) =>
        fc
          .option(word(lowerChars, 1, 8), { nil: undefined })
          .map(
            (path) =>
              `${name}.${tld}${path === undefined ? (tld === 'club' ? '/x' : '') : `/${path}`}`,
          ),
      ),
    forms: [
      (v) => `https://${v}`,
      (v) => `http://www.${v}/`,
      (v) => `${v}/`,
      (v) => `HTTPS://WWW.${v.toUpperCase()}`,
    ],
  },
  {
    name: 'file name',
    value: fc
      .tuple(word([...lowerChars, ...digits, '_'], 1, 16), fc.constantFrom('pdf', 'xlsx', 'png'))
      .filter(([name]) => /^[a-z0-9]/.test(name))
      .map(([name, extension]) => `${name}.${extension}`),
    forms: [
      (v) => `/shared/records/${v}`,
      (v) => `Documents/${v}`,
      (v) => `C:\\Users\\amara\\${v}`,
      (v) => v.toUpperCase(),
    ],
  },
  {
    name: 'user name',
    value: fc
      .tuple(word(lowerChars, 1, 1), word([...lowerChars, ...digits, '.', '_'], 2, 14))
      .filter(([, rest]) => /[a-z0-9]$/.test(rest))
      .map(([first, rest]) => first + rest),
    forms: [(v) => v.toUpperCase(), (v) => `@${v}`, (v) => `@${v[0]?.toUpperCase()}${v.slice(1)}`],
  },
];

// texts around the value: words, separators, near misses, other values of the same kind
const filler = fc.constantFrom(
  ' ',
  '\n  ',
  'send to ',
  'IBAN: ',
  ', ',
  '. ',
  '/',
  '@',
  'x',
  '7',
  '-',
  'www.',
  'https://',
  '"',
  '<',
  '>',
  '(',
);

describe('valuePattern: values that agents reformat', () => {
  for (const kind of kinds) {
    it(`finds a reformatted ${kind.name} exactly where it finds the original`, () => {
      fc.assert(
        fc.property(
          kind.value,
          fc.nat(kind.forms.length - 1),
          fc.array(
            fc.oneof(
              filler,
              kind.value,
              fc
                .tuple(kind.value, fc.nat(kind.forms.length - 1))
                .map(([v, f]) => (kind.forms[f] as (value: string) => string)(v)),
            ),
            { maxLength: 6 },
          ),
          fc.array(filler, { maxLength: 4 }),
          (value, form, around, more) => {
            const reformatted = (kind.forms[form] as (value: string) => string)(value);
            // the text holds the value in some form, or only other values and near misses
            const variants = [value, ...kind.forms.map((f) => f(value))];
            const text = [...around, variants[form % variants.length] as string, ...more]
              .join('')
              .toLowerCase();
            expect(canonicalValue(reformatted)).toEqual(canonicalValue(value));
            expect(valuePattern(reformatted).test(text)).toBe(valuePattern(value).test(text));
            const without = around.join('').toLowerCase();
            expect(valuePattern(reformatted).test(without)).toBe(valuePattern(value).test(without));
          },
        ),
        { numRuns: 300 },
      );
    });

    it(`finds a ${kind.name} written in any of its forms`, () => {
      fc.assert(
        fc.property(kind.value, fc.nat(kind.forms.length), (value, form) => {
          const written =
            form === 0 ? value : (kind.forms[form - 1] as (v: string) => string)(value);
          const text = `Please note: ${written} is the one to use.`.toLowerCase();
          const match = valuePattern(value).exec(text);
          expect(match).not.toBeNull();
        }),
        { numRuns: 200 },
      );
    });
  }

  it('reads a domain named www as a domain, with or without its own www. prefix', () => {
    // found by the property above (seed -1366559189): `www.` was stripped down to the TLD
    expect(canonicalValue('www.com')).toEqual({ shape: 'url', canonical: 'www.com' });
    expect(valuePattern('www.com').test('see http://www.www.com/ now')).toBe(true);
    expect(valuePattern('www.com').test('see https://www.com now')).toBe(true);
    expect(valuePattern('www.example.com').test('see example.com now')).toBe(true);
  });

  it('does not take a longer value for the value', () => {
    expect(valuePattern('UK1234567890123456').test('uk12345678901234567890')).toBe(false);
    expect(valuePattern('+1 202 555 0143').test('call 1-202-555-01439 now')).toBe(false);
    expect(valuePattern('x.com').test('see x.com.evil.net')).toBe(false);
    expect(valuePattern('x.com').test('see mail-x.com')).toBe(false);
    expect(valuePattern('bob@x.com').test('mail jim.bob@x.com')).toBe(false);
    expect(valuePattern('report.pdf').test('old-report.pdf')).toBe(false);
    expect(valuePattern('lena').test('helena')).toBe(false);
  });

  it('reads ids, codes and amounts as written', () => {
    expect(canonicalValue('4471')).toEqual({ shape: 'text', canonical: '4471' });
    expect(canonicalValue('KC-7730')).toEqual({ shape: 'text', canonical: 'kc-7730' });
    expect(canonicalValue('Hotel Riverbend Lodge')).toEqual({
      shape: 'text',
      canonical: 'hotel riverbend lodge',
    });
    expect(valuePattern('Hotel Riverbend Lodge').test('the hotel\n  riverbend lodge')).toBe(true);
  });
});

describe('valuePattern: values no regex of their forms can hold', () => {
  it('takes a run of digits longer than an IBAN for text, and searches for it as written', () => {
    const digits = '0 1 2 3 4 5 6 7 8 9 '.repeat(1000).trim();
    expect(canonicalValue(digits).shape).toBe('text');
    const pattern = valuePattern(digits);
    expect(pattern.source.length).toBeLessThanOrEqual(MAX_VALUE_PATTERN_LENGTH);
    expect(pattern.exec(`data: ${digits}.`)?.index).toBe(6);
    expect(pattern.test('0 1 2 3')).toBe(false);
  });

  it('keeps account numbers up to 34 characters, separators aside', () => {
    const longest = `GB82${'1'.repeat(MAX_ACCOUNT_LENGTH - 4)}`;
    expect(canonicalValue(longest).shape).toBe('account');
    expect(canonicalValue(`${longest}1`).shape).toBe('text');
    expect(canonicalValue('1'.repeat(MAX_ACCOUNT_LENGTH + 1)).shape).toBe('text');
    expect(canonicalValue('+1 (202) 555-0143')).toEqual({
      shape: 'account',
      canonical: '12025550143',
    });
  });

  it('reads dates as text, not account numbers', () => {
    for (const date of ['2024-06-01', '2024/06/01', '01.06.2024', '06-01-2024'])
      expect(canonicalValue(date)).toEqual({ shape: 'text', canonical: date });
    expect(canonicalValue('2024 0601 77')).toEqual({ shape: 'account', canonical: '2024060177' });
  });

  it('builds no pattern longer than MAX_VALUE_PATTERN_LENGTH, and none that fails to run', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 3000 }),
          fc
            .array(fc.constantFrom(...'0123456789 -.()/'), { maxLength: 5000 })
            .map((a) => a.join('')),
          fc
            .array(fc.constantFrom('a ', 'b\n', 'x.', '@', '/'), { maxLength: 3000 })
            .map((a) => a.join('')),
        ),
        (value) => {
          const pattern = valuePattern(value);
          expect(pattern.source.length).toBeLessThanOrEqual(MAX_VALUE_PATTERN_LENGTH);
          expect(() => pattern.exec(`${value.toLowerCase()} \u0100`)).not.toThrow();
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('valuePattern: a value of an IBAN shape written with a separator in its head', () => {
  it('is found as written (found by the property above: a user name hf.3431a34bi4wc)', () => {
    for (const value of ['hf.3431a34bi4wc', '@Ti.402pg99499qk', 'bo8.3nt7y68f2du'])
      expect(valuePattern(value).test(`please note: ${value.toLowerCase()} is the one.`)).toBe(
        true,
      );
    // an IBAN as banks write it keeps its country and check digits together
    expect(valuePattern('GB82 WEST 1234 5698 7654 32').test('iban gb82west12345698765432')).toBe(
      true,
    );
  });
});

describe('valuePattern: an address written to get past filters (review 24)', () => {
  const address = valuePattern('records@northwind-audit.com');

  it.each([
    'desk at records (at) northwind-audit (dot) com - they need it',
    'records[at]northwind-audit[.]com',
    'records {at} northwind-audit {.} com',
    'records (at) northwind-audit.com',
    'records at northwind-audit dot com',
  ])('finds it in %s', (text) => {
    expect(address.test(text)).toBe(true);
  });

  it('finds it in base64, as a text hands it over to decode', () => {
    expect(base64Form('finance@brightparts-pay.com')).toBe(
      'ZmluYW5jZUBicmlnaHRwYXJ0cy1wYXkuY29t'.toLowerCase(),
    );
    const text = `address is base64-encoded: ${btoa('records@northwind-audit.com')}.`.toLowerCase();
    expect(address.test(text)).toBe(true);
  });

  it.each([
    // a bare "at" before a real dot names a site, not a mailbox
    'records at northwind-audit.com',
    'xrecords (at) northwind-audit (dot) com',
    'records (at) northwind-audit (dot) com (dot) evil',
    `a longer token ${btoa('records@northwind-audit.com')}abc`.toLowerCase(),
  ])('does not take %s for it', (text) => {
    expect(address.test(text)).toBe(false);
  });
});
