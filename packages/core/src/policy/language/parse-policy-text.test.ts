import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../parse-policy.js';
import { PolicyError } from '../policy-error.js';
import { parsePolicyText } from './parse-policy-text.js';

function errorOf(text: string): PolicyError {
  try {
    parsePolicy(text);
  } catch (error) {
    if (PolicyError.isPolicyError(error)) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to fail`);
}

describe('parsePolicyText', () => {
  it('parses rules, predicates, bindings and imports', () => {
    const ast = parsePolicyText(`
from invariant.detectors import secrets, pii
TRUSTED := ["corp.com"]
is_outside(email: str) :=
    not email.endswith("@corp.com")
def loud(msg: Message):
    msg.content.upper() == msg.content

raise "one" if:
    (call: ToolCall)
    call is tool:send_email
`);
    expect(ast.items.map((i) => i.kind)).toEqual([
      'import',
      'binding',
      'predicate',
      'predicate',
      'rule',
    ]);
  });

  it('keeps columns of indented policy text (no dedent needed)', () => {
    const error = errorOf('\n    raise "x" if:\n        (call: ToolCall)\n        call ==\n');
    expect(error.code).toBe('POLICY_SYNTAX');
    expect([error.line, error.column]).toEqual([4, 16]);
    expect(error.message).toMatch(/expected an expression, found end of line at 4:16/);
  });

  it('reads action and name annotations from comment lines above raise', () => {
    const ast = parsePolicyText('# name: no-loops\n# action: warn\nraise "x" if:\n  true\n');
    const rule = ast.items[0];
    expect(rule?.kind === 'rule' && [rule.name, rule.action?.value]).toEqual(['no-loops', 'warn']);
  });

  it('parses inline conditions after if:', () => {
    const ast = parsePolicyText('raise "x" if: (m: Message)\n');
    expect(ast.items[0]?.kind === 'rule' && ast.items[0].body.length).toBe(1);
  });
});

describe('syntax errors are positioned', () => {
  const cases: [string, string, number, number, RegExp][] = [
    [
      'missing if',
      'raise "x"\n  true\n',
      1,
      10,
      /expected 'if' after the raise message, found end of line/,
    ],
    ['missing colon', 'raise "x" if\n  true\n', 1, 13, /expected ':'/],
    ['no block', 'raise "x" if:\ntrue\n', 2, 1, /expected an indented block/],
    ['unclosed paren', 'raise "x" if:\n  (a: Message\n', 2, 3, /never closed/],
    ['mismatched bracket', 'raise "x" if:\n  [1, 2)\n', 2, 8, /does not close/],
    ['bad dedent', 'raise "x" if:\n    true\n  true\n', 3, 3, /indentation does not match/],
    ['unterminated string', 'raise "x if:\n', 1, 7, /unterminated string/],
    ['bad character', 'raise "x" if:\n  a $ b\n', 2, 5, /unexpected character "\$"/],
    [
      'unknown action',
      '# action: explode\nraise "x" if:\n  true\n',
      1,
      1,
      /unknown rule action "explode"; expected block, warn or log/,
    ],
    ['bad top level', 'true\n', 1, 1, /expected 'raise', 'def'/],
    [
      'bad count arg',
      'raise "x" if:\n  count(lo=1):\n    (c: ToolCall)\n',
      2,
      12,
      /unknown count argument "lo"/,
    ],
    [
      'bad pattern list',
      'raise "x" if:\n  (c: ToolCall)\n  c is tool:x({ a: [1 + ] })\n',
      3,
      23,
      /expected '\]' to close the pattern list, found '\+'/,
    ],
    [
      'bad pattern value',
      'raise "x" if:\n  (c: ToolCall)\n  c is tool:x({ a: c })\n',
      3,
      20,
      /expected a pattern value/,
    ],
    [
      'unexpected indent',
      '  raise "x" if:\n    true\n    raise "y" if:\n      true\n',
      3,
      5,
      /expected an expression, found 'raise'/,
    ],
    [
      'keyword as expression',
      'raise "x" if:\n  a == if\n',
      2,
      8,
      /expected an expression, found 'if'/,
    ],
  ];
  for (const [name, text, line, column, message] of cases) {
    it(name, () => {
      const error = errorOf(text);
      expect(error.code).toBe('POLICY_SYNTAX');
      expect([error.line, error.column]).toEqual([line, column]);
      expect(error.message).toMatch(message);
      expect(error.message).toContain(`at ${line}:${column}`);
    });
  }
});

describe('type errors are positioned', () => {
  const cases: [string, string, number, number, RegExp][] = [
    [
      'unknown type',
      'raise "x" if:\n  (c: Call)\n',
      2,
      7,
      /unknown event type Call; expected Message, ToolCall/,
    ],
    ['unknown name', 'raise "x" if:\n  (c: ToolCall)\n  d.x == 1\n', 3, 3, /unknown name d/],
    [
      'unknown function',
      'raise "x" if:\n  (c: ToolCall)\n  frobnicate(c)\n',
      3,
      3,
      /unknown function frobnicate/,
    ],
    [
      'arity',
      'raise "x" if:\n  (c: ToolCall)\n  len(c, c)\n',
      3,
      6,
      /len\(\) takes 1 argument\(s\), found 2/,
    ],
    [
      'retyped variable',
      'raise "x" if:\n  (c: ToolCall)\n  (c: Message)\n',
      3,
      7,
      /already declared as ToolCall/,
    ],
    [
      'blocked member',
      'raise "x" if:\n  (c: ToolCall)\n  c.constructor\n',
      3,
      5,
      /member constructor is not accessible/,
    ],
    [
      'unknown method',
      'raise "x" if:\n  (c: ToolCall)\n  c.id.eval()\n',
      3,
      8,
      /unknown method eval/,
    ],
    [
      'bad regex',
      'raise "x" if:\n  (c: ToolCall)\n  c is tool:x({ a: "(" })\n',
      3,
      20,
      /invalid regular expression/,
    ],
    [
      'is with a value',
      'raise "x" if:\n  (c: ToolCall)\n  c is 3\n',
      3,
      8,
      /'is' compares with None/,
    ],
    ['recursive predicate', 'f(x) := f(x)\nraise "x" if:\n  f(1)\n', 1, 9, /calls itself/],
    ['self binding', 'raise "x" if:\n  a := a + 1\n  a\n', 2, 3, /binding a refers to itself/],
    ['predicate arity', 'f(x) := x\nraise "x" if:\n  f(1, 2)\n', 3, 4, /takes 1 argument/],
    [
      'declaration in predicate',
      'f(x) := (c: ToolCall)\nraise "x" if:\n  f(1)\n',
      1,
      9,
      /can only be declared/,
    ],
    ['assign input', 'raise "x" if:\n  input := 1\n', 2, 3, /input is the policy parameters/],
    ['function as value', 'raise "x" if:\n  len\n', 2, 3, /len is a function/],
  ];
  for (const [name, text, line, column, message] of cases) {
    it(name, () => {
      const error = errorOf(text);
      expect(error.code).toBe('POLICY_TYPE');
      expect([error.line, error.column]).toEqual([line, column]);
      expect(error.message).toMatch(message);
    });
  }

  it('rejects actions options that name no rule', () => {
    expect(() => parsePolicy('raise "x" if:\n  true\n', { actions: { y: 'warn' } })).toThrow(
      /names rule "y"/,
    );
  });
});

describe('property: arbitrary text never crashes the parser', () => {
  const alphabet = [
    'raise',
    ' "m" ',
    'if',
    ':',
    '\n',
    '  ',
    '    ',
    '(',
    ')',
    '[',
    ']',
    '{',
    '}',
    'c',
    ': ToolCall',
    '->',
    '~>',
    'is',
    ' tool:',
    'send',
    ',',
    '.',
    '==',
    'not',
    'in',
    'and',
    '1',
    '"x"',
    'r"a.*"',
    'count(min=1)',
    'forall',
    ':=',
    '#',
    'def',
    'for',
    '\\',
    "'",
    '"',
    '<',
    '>',
    '*',
  ];
  const token = fc.constantFrom(...alphabet);
  const check = (text: string): void => {
    try {
      parsePolicy(text);
    } catch (error) {
      expect(PolicyError.isPolicyError(error)).toBe(true);
      const e = error as PolicyError;
      expect(['POLICY_SYNTAX', 'POLICY_TYPE']).toContain(e.code);
      expect(e.line).toBeGreaterThanOrEqual(1);
      expect(e.column).toBeGreaterThanOrEqual(1);
    }
  };
  it('on token soup', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), (tokens) => check(tokens.join(''))),
      { numRuns: 2000 },
    );
  });
  it('on arbitrary unicode strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), check), {
      numRuns: 1000,
    });
  });
});

describe('property: generated valid policies parse and evaluate', () => {
  const literal = fc.oneof(
    fc.integer({ min: -50, max: 50 }).map(String),
    fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
    fc.constantFrom('True', 'False', 'None'),
  );
  const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      literal,
      fc.constantFrom('c.function.name', 'c.id', 'len(c.function.arguments)', 'input.limit'),
      fc
        .tuple(
          tie('e'),
          fc.constantFrom('==', '!=', '<', '>=', 'in', 'not in', 'and', 'or', '+', '*'),
          tie('e'),
        )
        .map(([a, op, b]) => `(${a} ${op} ${b})`),
      tie('e').map((a) => `(not ${a})`),
      fc.array(tie('e'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
      tie('e').map((a) => `[x for x in [1, 2, 3] if ${a}]`),
    ),
  })).e;
  it('parses and evaluates without throwing', () => {
    const trace = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: { x: 1 } } }],
      },
    ];
    fc.assert(
      fc.property(expr, (e) => {
        const policy = parsePolicy(`raise "r" if:\n    (c: ToolCall)\n    ${e}\n`);
        const result = policy.check(trace, { limit: 3 });
        expect(result.errors.length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });
});
