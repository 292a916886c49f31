import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../parse-policy.js';
import { PolicyError } from '../policy-error.js';
import { compilePolicyRegex, type RegexAnchor } from './policy-regex.js';

// Python syntax that JavaScript (without the `u` flag) accepts but reads otherwise: `\Z` and `\A`
// were the letters Z and A, `a{,3}` the literal text "a{,3}", so `not match(r".*@example\.com\Z",
// to)` fired on every address.

function matches(source: string, text: string, anchor: RegexAnchor = 'full'): boolean {
  const regex = compilePolicyRegex(source, anchor);
  if (typeof regex === 'string') throw new Error(regex);
  return regex.test(text);
}

function problem(source: string): string {
  const result = compilePolicyRegex(source, 'none');
  return typeof result === 'string' ? result : 'compiled';
}

const mailTo = (to: string) => [
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'a', type: 'function', function: { name: 'send_email', arguments: { to } } },
    ],
  },
];
const outside = (pattern: string) =>
  parsePolicy(`raise "outside" if:
    (call: ToolCall)
    call is tool:send_email
    not match(r"${pattern}", call.function.arguments.to)
`);

describe('policy regexes read Python syntax as Python does', () => {
  it('\\A and \\Z anchor at the start and end of the text', () => {
    expect(outside('.*@example\\.com\\Z').check(mailTo('ann@example.com')).errors).toEqual([]);
    expect(
      outside('.*@example\\.com\\Z').check(mailTo('ann@example.com.evil')).errors,
    ).toHaveLength(1);
    expect(outside('\\Aann@example\\.com').check(mailTo('ann@example.com')).errors).toEqual([]);
    expect(matches('a\\Z', 'xa', 'none')).toBe(true);
    expect(matches('a\\Z', 'ax', 'none')).toBe(false);
    expect(matches('a\\z', 'xa', 'none')).toBe(true);
    expect(matches('\\Aa', 'ab', 'none')).toBe(true);
    expect(matches('\\Aa', 'ba', 'none')).toBe(false);
    // never a line anchor: policy regexes take no `m` flag
    expect(matches('\\Ab', 'a\nb', 'none')).toBe(false);
    expect(matches('a\\Z', 'a\nb', 'none')).toBe(false);
  });

  it('$ also matches before a final newline, except in a whole-value match (as fullmatch)', () => {
    expect(matches('^rm -rf /$', 'rm -rf /\n', 'none')).toBe(true);
    expect(matches('rm -rf /$', 'rm -rf /\n', 'start')).toBe(true);
    expect(matches('^rm -rf /$', 'rm -rf /\n\n', 'none')).toBe(false);
    expect(matches('rm -rf /$', 'rm -rf /\n', 'full')).toBe(false);
    expect(matches('[$]', 'a$', 'none')).toBe(true);
    const regex = compilePolicyRegex('b$', 'none');
    if (typeof regex === 'string') throw new Error(regex);
    expect(regex.search('ab\n')).toEqual({ start: 1, end: 2 });
    expect(regex.searchAll('ab\n')).toEqual([{ start: 1, end: 2 }]);
    const policy = parsePolicy(
      'raise "no rm" if:\n    (call: ToolCall)\n    call is tool:shell\n    match(r"^rm -rf /$", call.function.arguments.cmd)\n',
    );
    const shell = (cmd: string) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'shell', arguments: { cmd } } },
        ],
      },
    ];
    expect(policy.check(shell('rm -rf /\n')).errors).toHaveLength(1);
  });

  it('. matches any character but \\n, \\r and line separators included', () => {
    expect(matches('ignore.*instructions', 'ignore\rall instructions', 'none')).toBe(true);
    expect(matches('ignore.*instructions', 'ignore\u2028all instructions', 'none')).toBe(true);
    expect(matches('a.b', 'a\nb', 'none')).toBe(false);
    expect(matches('a[.]b', 'axb', 'none')).toBe(false);
    expect(matches('a\\.b', 'axb', 'none')).toBe(false);
  });

  it('{,n} repeats zero to n times, {,} any number of times', () => {
    expect(outside('a{,3}@example\\.com').check(mailTo('aa@example.com')).errors).toEqual([]);
    expect(matches('a{,3}', '')).toBe(true);
    expect(matches('a{,3}', 'aaa')).toBe(true);
    expect(matches('a{,3}', 'aaaa')).toBe(false);
    expect(matches('a{,}', 'aaaaa')).toBe(true);
    // escaped, it stays literal text
    expect(matches('a\\{,3}', 'a{,3}')).toBe(true);
  });

  it('\\a is the bell character, and ] first in a class is a literal ]', () => {
    expect(matches('\\a', '\x07')).toBe(true);
    expect(matches('\\a', 'a')).toBe(false);
    expect(matches('[]a]+', ']a]')).toBe(true);
    expect(matches('[^]a]', ']')).toBe(false);
    expect(matches('[^]a]', 'b')).toBe(true);
  });

  it('keeps the escapes both languages share, and named groups', () => {
    expect(matches('\\S+\\s\\d\\w\\W\\x41\\u0042[\\b]', 'ab 1_-AB\b')).toBe(true);
    expect(matches('(?P<user>\\w+)@corp\\.com', 'ann@corp.com')).toBe(true);
    expect(matches('\\.\\-\\ ', '.- ')).toBe(true);
  });

  it('refuses letter escapes Python rejects or reads otherwise', () => {
    expect(problem('\\U0001F600')).toMatch(/\\U is not supported .*\\uXXXX/);
    expect(problem('\\N{DASH}')).toMatch(/\\N is not supported/);
    for (const letter of ['\\e', '\\p{L}', '\\cJ', '\\k', '\\q'])
      expect(problem(letter)).toMatch(
        /is not supported in policy regexes \(Python's re rejects it/,
      );
    expect(problem('[\\A]')).toMatch(/\\A is not supported .*inside \[\.\.\.\]/);
    expect(problem('[\\Z]')).toMatch(/\\Z is not supported/);
    expect(problem('[\\B]')).toMatch(/\\B is not supported/);
    expect(problem('\\x4')).toMatch(/two hex digits/);
    expect(problem('\\u004')).toMatch(/four hex digits/);
    expect(problem('{,3}')).toMatch(/Nothing to repeat/);
    expect(problem('(?<x>a)\\k<x>')).toMatch(/backreferences are not supported/);
    expect(problem('(?P<x>a)(?P=x)')).toMatch(/backreferences are not supported/);
  });

  it('refuses inline flags, pointing case-insensitive matches to .lower()', () => {
    expect(problem('(?i)evil')).toBe(
      'inline flags (?i) are not supported in policy regexes; for a case-insensitive match, lower the text with .lower() and write the pattern in lower case',
    );
    expect(problem('(?i:evil)')).toMatch(/^inline flags \(\?i:\.\.\.\) .*\.lower\(\)/);
    expect(problem('(?s).')).toBe('inline flags (?s) are not supported in policy regexes');
    expect(problem('(?-i:a)')).toMatch(/\.lower\(\)/);
  });

  it('a refused literal pattern is a POLICY_TYPE error at its position; from data it never matches', () => {
    let error: unknown;
    try {
      parsePolicy('raise "x" if:\n    (c: ToolCall)\n    match(r"(?i)evil", c.id)\n');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PolicyError);
    const { code, line, column, message } = error as PolicyError;
    expect([code, line, column]).toEqual(['POLICY_TYPE', 3, 11]);
    expect(message).toMatch(/\.lower\(\)/);
    expect(() =>
      parsePolicy('raise "x" if:\n    (c: ToolCall)\n    c is tool:f({to: "a\\\\Q"})\n'),
    ).toThrow(/unusable regular expression .*\\Q is not supported/);
    const fromData = parsePolicy(`raise "x" if:
    (call: ToolCall)
    match(call.function.arguments.to, "Z")
`);
    expect(fromData.check(mailTo('\\Z')).errors).toEqual([]);
    expect(fromData.check(mailTo('Z')).errors).toHaveLength(1);
  });
});
