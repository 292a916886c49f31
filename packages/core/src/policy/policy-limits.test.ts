import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { definePolicy } from './define-policy.js';
import { detectPii } from './detectors/detect-pii.js';
import { extractHtmlData } from './detectors/extract-html-data.js';
import { extractLinks } from './detectors/extract-links.js';
import { toolCall } from './event-matchers.js';
import { MAX_POLICY_NESTING } from './language/parse-policy-text.js';
import { parsePolicy } from './parse-policy.js';
import { PolicyError } from './policy-error.js';
import { PolicyViolationError } from './policy-violation-error.js';
import { rule } from './rule.js';
import { MAX_REGEX_STEPS } from './runtime/bounded-regex.js';
import { MAX_VALUE_DEPTH } from './runtime/policy-values.js';
import { DEFAULT_MAX_VIOLATIONS } from './runtime/resolve-max-violations.js';

/** Issue 18 §2: hostile regexes, unbounded violations, deep nesting, byte order marks. */

function errorOf(run: () => unknown): PolicyError {
  try {
    run();
  } catch (error) {
    if (PolicyError.isPolicyError(error)) return error;
    throw error;
  }
  throw new Error('expected a policy error');
}

const callWith = (x: string) => [
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: { x } } }],
  },
];

describe('policy regexes cannot hang a check on trace content', () => {
  // 34 characters: JavaScript's backtracking engine needs 2^34 steps for (a+)+$ on this
  const hostile = `${'a'.repeat(33)}!`;

  it('match() with nested quantifiers over an attacker-controlled argument', () => {
    const policy = parsePolicy(`
raise "matched" if:
    (call: ToolCall)
    match(r"(a+)+$", call.function.arguments.x)
`);
    expect(policy.check(callWith(hostile)).errors).toEqual([]);
    expect(policy.check(callWith('aaa')).errors).toHaveLength(1);
  });

  it('find(), tool argument patterns and lookaheads', () => {
    const find = parsePolicy(`
raise "found" if:
    (call: ToolCall)
    len(find(r"(a|aa)+b", call.function.arguments.x)) > 0
`);
    expect(find.check(callWith(hostile.repeat(20))).errors).toEqual([]);
    const lookahead = parsePolicy(`
raise "pattern" if:
    (call: ToolCall)
    call is tool:f({x: "(?!z)(a+)+"})
`);
    expect(lookahead.check(callWith(hostile)).errors).toEqual([]);
    expect(lookahead.check(callWith('aaaa')).errors).toHaveLength(1);
    // the documented negative-lookahead idiom keeps working
    const notPeter = parsePolicy(`
raise "not peter" if:
    (call: ToolCall)
    call is tool:f({x: "^(?!Peter$).*$"})
`);
    expect(notPeter.check(callWith('Peter')).errors).toEqual([]);
    expect(notPeter.check(callWith('Paul')).errors).toHaveLength(1);
  });

  it('a lookahead that would take quadratic time stops at MAX_REGEX_STEPS with POLICY_LIMIT', () => {
    const policy = parsePolicy(`
raise "found" if:
    (call: ToolCall)
    len(find(r"(?=(a|b)*c)a", call.function.arguments.x)) > 0
`);
    const error = errorOf(() => policy.check(callWith('a'.repeat(20_000))));
    expect(error.code).toBe('POLICY_LIMIT');
    expect(error.message).toContain(`MAX_REGEX_STEPS (${MAX_REGEX_STEPS})`);
  });

  it('backreferences are refused when the policy is compiled, with a position', () => {
    const error = errorOf(() =>
      parsePolicy('raise "x" if:\n    (c: ToolCall)\n    match(r"(a)\\1", c.id)\n'),
    );
    expect([error.code, error.line, error.column]).toEqual(['POLICY_TYPE', 3, 11]);
    expect(error.message).toMatch(/backreferences are not supported/);
  });
});

describe('detectors over hostile trace text', () => {
  // both used to rescan the rest of the text from every start: seconds at these sizes
  it('pii() over a 100,000-character run of email-like characters', () => {
    expect(detectPii('1'.repeat(100_000))).toEqual([]);
    expect(detectPii(`${'a.'.repeat(50_000)}@x`)).toEqual([]);
    expect(detectPii('write to bob@example.com').map((f) => f.type)).toEqual(['EMAIL_ADDRESS']);
  });

  it('links() over a URL followed by 100,000 closing brackets', () => {
    expect(extractLinks(`see https://a.example/x${')'.repeat(100_000)}`)).toEqual([
      { url: 'https://a.example/x', domain: 'a.example', start: 4, end: 23 },
    ]);
    expect(extractLinks('(see https://a.example/(x))').map((l) => l.url)).toEqual([
      'https://a.example/(x)',
    ]);
  });

  it('fuzzy_contains() with a query taken from the trace: POLICY_LIMIT naming MAX_FUZZY_CELLS', () => {
    const policy = parsePolicy(`
raise "echo" if:
    (m: Message)
    (o: ToolOutput)
    fuzzy_contains(o, m.content)
`);
    const long = 'a'.repeat(20_000);
    const trace = [
      { role: 'user', content: long },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: '1', function: { name: 'f', arguments: {} } }],
      },
      { role: 'tool', tool_call_id: '1', content: long },
    ];
    const error = errorOf(() => policy.check(trace));
    expect(error.code).toBe('POLICY_LIMIT');
    expect(error.message).toMatch(/MAX_FUZZY_CELLS/);
    expect(
      policy.check(trace.map((e) => ({ ...e, content: e.content && 'short text' }))),
    ).toMatchObject({
      errors: { length: 2 },
    });
  });

  it('html_code() over 100,000 characters of unclosed tags', () => {
    expect(extractHtmlData('<a '.repeat(33_000))).toEqual({ altTexts: [], links: [] });
    expect(extractHtmlData('<IMG ALT="x"><A HREF="https://a.example">').altTexts).toHaveLength(1);
  });
});

describe('violations are capped', () => {
  const calls = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: `c${i}`, type: 'function', function: { name: 'search', arguments: { q: i } } },
      ],
    }));
  const pairs = `
raise "two calls" if:
    (a: ToolCall)
    (b: ToolCall)
`;

  it(`two ToolCall variables over 5,000 calls return ${DEFAULT_MAX_VIOLATIONS} violations, truncated`, () => {
    const result = parsePolicy(pairs).check(calls(5_000));
    expect(result.errors).toHaveLength(DEFAULT_MAX_VIOLATIONS);
    expect(result.truncated).toBe(true);
    expect(parsePolicy(pairs).check(calls(10)).truncated).toBe(false);
  });

  it('maxViolations sets the cap for check, checkPending, monitors and checkToolCall (which fails closed)', () => {
    const policy = parsePolicy(pairs, { maxViolations: 3, actions: { 'two calls': 'warn' } });
    const trace = calls(4);
    expect(policy.check(trace)).toMatchObject({ truncated: true, errors: { length: 3 } });
    expect(policy.checkPending(trace, calls(1))).toMatchObject({ truncated: true });
    expect(policy.monitor().append(trace)).toMatchObject({
      truncated: true,
      errors: { length: 3 },
    });
    const verdict = policy.checkToolCall(trace, { name: 'search', arguments: {} });
    expect(verdict).toMatchObject({ truncated: true, allowed: false });
    const typed = definePolicy(
      [rule({ message: 'pair', vars: { a: toolCall(), b: toolCall() } })],
      { maxViolations: 2 },
    );
    expect(typed.check(trace)).toMatchObject({ truncated: true, errors: { length: 2 } });
  });

  it('rejects a maxViolations that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, '10']) {
      const error = errorOf(() => parsePolicy(pairs, { maxViolations: bad as number }));
      expect(error.code).toBe('POLICY_TYPE');
      expect(error.message).toMatch(/options\.maxViolations/);
    }
    expect(
      parsePolicy(pairs, { maxViolations: Number.POSITIVE_INFINITY }).check(calls(3)).errors,
    ).toHaveLength(9);
  });
});

describe('deep nesting is a positioned POLICY_SYNTAX error naming the limit', () => {
  const limit = new RegExp(`MAX_POLICY_NESTING \\(${MAX_POLICY_NESTING}`);
  it.each([
    ['1,000 nested parentheses', `${'('.repeat(1000)}True${')'.repeat(1000)}`],
    ['10,000 nots', `${'not '.repeat(10_000)}True`],
    ['10,000 signs', `${'-'.repeat(10_000)}1`],
    ['a chain of 10,000 additions', `${'1 + '.repeat(10_000)}1`],
    ['a chain of 10,000 member accesses', `m${'.a'.repeat(10_000)}`],
    ['1,000 nested lists', `${'['.repeat(1000)}${']'.repeat(1000)}`],
  ])('%s', (_, condition) => {
    const error = errorOf(() => parsePolicy(`raise "x" if:\n    (m: Message)\n    ${condition}\n`));
    expect(error.code).toBe('POLICY_SYNTAX');
    expect(error.line).toBe(3);
    expect(error.message).toMatch(limit);
  });

  it('deeply nested tool patterns and quantifier blocks', () => {
    const pattern = `${'{a: '.repeat(1000)}1${'}'.repeat(1000)}`;
    const tool = errorOf(() =>
      parsePolicy(`raise "x" if:\n    (c: ToolCall)\n    c is tool:f(${pattern})\n`),
    );
    expect(tool.message).toMatch(limit);
    let blocks = 'raise "x" if:\n';
    for (let depth = 1; depth <= 600; depth++) blocks += `${' '.repeat(depth)}exists:\n`;
    blocks += `${' '.repeat(601)}True\n`;
    expect(errorOf(() => parsePolicy(blocks)).message).toMatch(limit);
  });

  it('a long chain of alternatives says how to write it as a list, and the list form works', () => {
    const words = Array.from({ length: 600 }, (_, i) => `w${i}`);
    const chain = words.map((word) => `"${word}" in m.content`).join(' or ');
    const error = errorOf(() => parsePolicy(`raise "x" if:\n    (m: Message)\n    ${chain}\n`));
    expect(error.message).toMatch(/any\(word in text for word in/);
    const list = parsePolicy(
      `raise "x" if:\n    (m: Message)\n    any(w in m.content for w in [${words.map((word) => `"${word}"`).join(', ')}])\n`,
    );
    expect(list.check([{ role: 'user', content: 'say w599' }]).errors).toHaveLength(1);
  });

  it('in a fresh process (code not yet optimised: larger stack frames), the limit fires before the stack runs out', () => {
    // in a test worker the parser is often optimised already; a new process is what a user runs
    const script = `
      const { parsePolicy } = await import('@tracewarden/core');
      for (const depth of [${MAX_POLICY_NESTING + 1}, 1000]) {
        try {
          parsePolicy('raise "x" if:\\n    (m: Message)\\n    ' + '('.repeat(depth) + 'True' + ')'.repeat(depth) + '\\n');
          console.log('parsed');
        } catch (error) {
          console.log(error.code ?? error.name);
        }
      }
    `;
    const result = spawnSync(
      process.execPath,
      ['--conditions=@tracewarden/source', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toEqual(['POLICY_SYNTAX', 'POLICY_SYNTAX']);
  });

  it('nesting just under the limit still compiles and evaluates', () => {
    const depth = MAX_POLICY_NESTING - 10;
    const policy = parsePolicy(
      `raise "x" if:\n    (m: Message)\n    ${'('.repeat(depth)}True${')'.repeat(depth)}\n`,
    );
    expect(policy.check([{ role: 'user', content: 'hi' }]).errors).toHaveLength(1);
  });
});

describe('deeply nested trace values', () => {
  let deep: unknown = 'secret';
  for (let i = 0; i < 20_000; i++) deep = { a: deep };
  let other: unknown = 'secret';
  for (let i = 0; i < 20_000; i++) other = { a: other };
  let deepList: unknown = 'x';
  for (let i = 0; i < 20_000; i++) deepList = [deepList];
  const trace = [
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: '1',
          type: 'function',
          function: { name: 'f', arguments: { d: deep, e: other, l: deepList } },
        },
      ],
    },
  ];

  it.each([
    '"secret" in c',
    'len(secrets(c)) > 0',
    'c.function.arguments.d == c.function.arguments.e',
    'str(c.function.arguments) == ""',
    'len(text(c.function.arguments.l)) > 0',
  ])('%s is a POLICY_LIMIT error naming MAX_VALUE_DEPTH, not a RangeError', (condition) => {
    const policy = parsePolicy(`raise "r" if:\n    (c: ToolCall)\n    ${condition}\n`);
    const error = errorOf(() => policy.check(trace));
    expect(error.code).toBe('POLICY_LIMIT');
    expect(error.message).toContain(`MAX_VALUE_DEPTH (${MAX_VALUE_DEPTH})`);
  });

  it('a deep list returned as a violation argument', () => {
    const policy = parsePolicy(
      'raise PolicyViolation("r", v=c.function.arguments.l) if:\n    (c: ToolCall)\n',
    );
    expect(errorOf(() => policy.check(trace)).code).toBe('POLICY_LIMIT');
  });

  it('data just under the limit is checked', () => {
    let nested: unknown = 'secret';
    for (let i = 0; i < 200; i++) nested = { a: nested };
    const shallow = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: '1', type: 'function', function: { name: 'f', arguments: { d: nested } } },
        ],
      },
    ];
    const policy = parsePolicy('raise "r" if:\n    (c: ToolCall)\n    "secret" in c\n');
    expect(policy.check(shallow).errors).toHaveLength(1);
  });
});

describe('string repetition', () => {
  it('a trace string repeated past MAX_REPEATED_LENGTH is None instead of a RangeError', () => {
    const policy = parsePolicy(`
raise PolicyViolation(long=m.content * 999999, short=len(m.content * 3)) if:
    (m: Message)
`);
    const [violation] = policy.check([{ role: 'user', content: 'x'.repeat(1000) }]).errors;
    expect(violation?.namedArgs).toEqual({ long: null, short: 3000 });
  });

  it('replace() and join() building strings past MAX_REPEATED_LENGTH give None', () => {
    const policy = parsePolicy(`
raise PolicyViolation(replaced=m.content.replace("x", m.content), joined=m.content.join([m.content, m.content, m.content]), small="a-b".replace("-", "+")) if:
    (m: Message)
`);
    const [violation] = policy.check([{ role: 'user', content: 'x'.repeat(100_000) }]).errors;
    expect(violation?.namedArgs).toEqual({
      replaced: null,
      joined: 'x'.repeat(500_000),
      small: 'a+b',
    });
  });
});

describe('byte order mark', () => {
  it('a policy file starting with a byte order mark parses, with unshifted columns', () => {
    const policy = parsePolicy('\uFEFFraise "x" if:\n    (m: Message)\n');
    expect(policy.check([{ role: 'user', content: 'hi' }]).errors).toHaveLength(1);
    const error = errorOf(() => parsePolicy('\uFEFFraise 1 if:\n    True\n'));
    expect([error.line, error.column]).toEqual([1, 7]);
  });
});

describe('property: random policies with the new constructs never crash and are deterministic', () => {
  const trace = [
    { role: 'user', content: 'hello\nsee https://a.example/x and <img alt="hi">' },
    {
      role: 'assistant',
      content: [{ type: 'text', text: 'ok' }],
      tool_calls: [
        {
          id: 'c1',
          type: 'function',
          function: { name: 'f', arguments: '{"items": [1, "two", {"k": 3}], "s": "a b"}' },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: '[{"k": 1}, "x", 2]' },
  ];
  const value = fc.constantFrom(
    'm.content',
    'c.function.arguments.items',
    'c.function.arguments.s',
    'text(m)',
    'image(m)',
    'json_loads(o.content)',
    'json.loads(o.content)',
    'm.content.splitlines()',
    'html_code(m).links',
    'html_code(o).alt_texts',
    'links(m)',
    'input.p',
    'input.q',
    '[1, "a", None]',
    '"x"',
    '3',
    'None',
  );
  const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      value,
      fc.tuple(tie('e'), tie('e'), tie('e')).map(([a, b, c]) => `(${a} if ${b} else ${c})`),
      fc
        .tuple(
          tie('e'),
          fc.constantFrom('contains_only', 'in', '==', '**', '+', 'and', 'or', '<'),
          tie('e'),
        )
        .map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc
        .tuple(
          fc.constantFrom('min', 'max', 'sum', 'len', 'text', 'any'),
          fc.array(tie('e'), { minLength: 1, maxLength: 3 }),
        )
        .map(([f, args]) => `${f}(${args.join(', ')})`),
      tie('e').map((a) => `should_allow_rbac(None, "r", "u", {"u": ${a}}, {"x": {"r": True}})`),
      tie('e').map((a) => `${a}.splitlines()`),
    ),
  })).e;
  const line = fc.oneof(
    fc
      .tuple(fc.constantFrom('str', 'dict', 'int', 'list', 'Message'), value)
      .map(([type, collection]) => ({ member: type, text: collection })),
    expr.map((e) => ({ member: undefined, text: e })),
  );
  const body = fc.array(line, { minLength: 1, maxLength: 4 }).map((lines) => {
    let members = 0;
    return lines
      .map((l) => {
        if (l.member === undefined) return `    ${l.text}`;
        members++;
        return `    (x${members}: ${l.member}) in ${l.text}`;
      })
      .join('\n');
  });
  const wrap = fc.constantFrom('rule', 'predicate', 'count', 'forall');

  it('typed error or a result, and the same result twice', () => {
    fc.assert(
      fc.property(body, wrap, fc.boolean(), (lines, where, keywords) => {
        const head = keywords ? 'raise PolicyViolation(a=1, b="x") if:' : 'raise "r" if:';
        const vars = '    (m: Message)\n    (c: ToolCall)\n    (o: ToolOutput)';
        const indented = lines.replace(/^ {4}/gm, '        ');
        const text =
          where === 'rule'
            ? `import json\n${head}\n${vars}\n${lines}\n`
            : where === 'predicate'
              ? `import json\nok(m: Message, c: ToolCall, o: ToolOutput) :=\n${lines}\n${head}\n${vars}\n    ok(m, c, o)\n`
              : `import json\n${head}\n${vars}\n    ${where === 'count' ? 'count(min=1, max=3)' : 'forall'}:\n${indented}\n`;
        let policy: ReturnType<typeof parsePolicy>;
        try {
          policy = parsePolicy(text);
        } catch (error) {
          expect(PolicyError.isPolicyError(error)).toBe(true);
          return;
        }
        const input = { p: ['x', 'y'], q: 'u' };
        const first = policy.check(trace, input);
        expect(policy.check(trace, input)).toEqual(first);
        expect(
          policy
            .monitor(input)
            .append(trace)
            .errors.map((e) => e.key),
        ).toEqual([...new Set(first.errors.map((e) => e.key))]);
      }),
      { numRuns: 400 },
    );
  });
});

describe('property: arbitrary traces never crash policies using the new constructs', () => {
  const conditions = [
    '"a" in c',
    '(x: str) in text(m)',
    '(d: dict) in json.loads(o.content)',
    '(l: str) in m.content.splitlines()',
    'html_code(m).links',
    'links(o)',
    'secrets(c)',
    'str(c.function.arguments) == o.content',
    'find(r"\\w+", o)',
    'match(r"(a|b)*c", m.content)',
    'c.function.arguments.x contains_only "a"',
    'max(len(text(m)), 1) > 0',
    '(v: str) in c.function.arguments.values()',
    'image(m) if m.role == "user" else text(o)',
  ];
  const policies = conditions.map((condition) =>
    parsePolicy(
      `import json\nraise PolicyViolation(v=1) if:\n    (m: Message)\n    (c: ToolCall)\n    (o: ToolOutput)\n    ${condition}\n`,
    ),
  );
  const content = fc.oneof(
    fc.string(),
    fc.constant(null),
    fc.array(
      fc.oneof(
        fc.record({ type: fc.constant('text'), text: fc.string() }),
        fc.record({
          type: fc.constant('image_url'),
          image_url: fc.oneof(fc.string(), fc.record({ url: fc.string() })),
        }),
        fc.jsonValue(),
      ),
    ),
  );
  const entry = fc.oneof(
    fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content }),
    fc.record({
      role: fc.constant('assistant'),
      content,
      tool_calls: fc.array(
        fc.record({
          id: fc.string(),
          type: fc.constant('function'),
          function: fc.record({
            name: fc.string(),
            arguments: fc.oneof(fc.json(), fc.jsonValue(), fc.string()),
          }),
        }),
        { maxLength: 3 },
      ),
    }),
    fc.record({
      role: fc.constant('tool'),
      tool_call_id: fc.option(fc.string()),
      content: fc.oneof(fc.json(), content),
    }),
    fc.jsonValue(),
  );

  it('a result or a typed error, and check and monitors agree on keys', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), (trace) => {
        for (const policy of policies) {
          let keys: string[];
          try {
            keys = policy.check(trace).errors.map((e) => e.key);
          } catch (error) {
            expect(PolicyError.isPolicyError(error)).toBe(true);
            continue;
          }
          const monitor = policy.monitor();
          for (const item of trace) monitor.append([item]);
          expect(monitor.violations.map((v) => v.key).sort()).toEqual([...new Set(keys)].sort());
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('error classes', () => {
  it('isInstance recognises each class by its codes, not any tracewarden error', () => {
    const policyError = new PolicyError({ code: 'POLICY_LIMIT', message: 'x' });
    const violation = new PolicyViolationError({ violations: [] });
    expect(PolicyError.isInstance(policyError)).toBe(true);
    expect(PolicyError.isInstance(violation)).toBe(false);
    expect(PolicyViolationError.isInstance(violation)).toBe(true);
    expect(PolicyViolationError.isInstance(policyError)).toBe(false);
    expect(PolicyError.isInstance(new Error('POLICY_LIMIT'))).toBe(false);
  });
});

describe('one rule hitting a limit in Policy.check', () => {
  it('does not stop the other rules: the limit names the rule and carries their violations', () => {
    const policy = parsePolicy(`
# name: lookahead-rule
raise "lookahead find" if:
    (m: Message)
    len(find(r"(?=a+$)a*!", m.content)) > 0

# name: evil-mail
raise "mail to evil" if:
    (c: ToolCall)
    c is tool:send_email
    "evil" in c.function.arguments.to
`);
    const trace = [
      { role: 'user', content: 'a'.repeat(30_000) },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'send_email', arguments: { to: 'x@evil.com' } },
          },
        ],
      },
    ];
    let caught: unknown;
    try {
      policy.check(trace);
    } catch (error) {
      caught = error;
    }
    expect(PolicyError.isInstance(caught)).toBe(true);
    const error = caught as PolicyError;
    expect(error.code).toBe('POLICY_LIMIT');
    expect(error.message).toContain('rule "lookahead-rule" (#0) could not be checked');
    expect(error.partial?.errors.map((violation) => violation.message)).toEqual(['mail to evil']);
    // the advice fits the pattern: lookarounds here
    expect(error.message).toContain('avoid lookarounds over long texts');
  });

  it('advises bounding repetitions for a pattern without lookarounds, and names a lone rule without "other rules"', () => {
    const policy = parsePolicy(`
raise "counted" if:
    (m: Message)
    len(find(r"(w+s){50}secret", m.content)) > 0
`);
    let caught: unknown;
    try {
      policy.check([{ role: 'user', content: 'word '.repeat(300_000) }]);
    } catch (error) {
      caught = error;
    }
    expect(PolicyError.isInstance(caught)).toBe(true);
    const message = (caught as PolicyError).message;
    expect(message).toContain('bound its repetitions');
    expect(message).not.toContain('lookaround');
    expect(message).not.toContain('other rules');
  });
});
