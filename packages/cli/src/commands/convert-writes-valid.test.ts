import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTrace } from '@tracewarden/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryIo } from '../program/create-memory-io.js';
import { runCli } from '../program/run-cli.js';

// `convert` never writes what `validate` rejects, and agrees with parseTrace on what a trace is.
const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-convert-valid-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

let files = 0;
function file(name: string, text: string): string {
  const path = join(temporary, `${files++}-${name}`);
  writeFileSync(path, text);
  return path;
}

async function run(argv: string[]) {
  const io = createMemoryIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

const jsonl = (traces: unknown[]) => traces.map((trace) => `${JSON.stringify(trace)}\n`).join('');

describe('convert, lone surrogates (text cut mid-character)', () => {
  const cut = [
    { role: 'user', content: 'Summarise: caf\u00e9 \ud83d' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', function: { name: 'read', arguments: '{"q":"\\ud83d"}' } }],
    },
    { role: 'tool', tool_call_id: 'c', content: [{ type: 'text', text: '\udc00 ok' }] },
  ];

  it('writes them as U+FFFD with one warning per trace, and the output validates', async () => {
    const input = file('cut.json', JSON.stringify(cut));
    for (const to of ['jsonl', 'blocks', 'events']) {
      const output = join(temporary, `cut.out.${to}`);
      const convert = await run(['convert', input, '--to', to, '-o', output]);
      expect(convert.code).toBe(0);
      expect(convert.stderr).toBe(
        `${input}:1: warning LONE_SURROGATE #0: 3 lone UTF-16 surrogates (half of a character, as where a truncated export cut the text) in events 0, 1, 2, written as U+FFFD (\u{FFFD})\n`,
      );
      const written = readFileSync(output, 'utf8');
      expect(written).not.toMatch(/\\ud[89a-f]/i);
      expect(written).toContain('caf\u00e9 \u{FFFD}');
      const validate = await run(['validate', output]);
      expect(validate.stdout).toMatch(/^ok: /);
      expect(validate.code).toBe(0);
    }
  });

  it('validate reads them as convert writes them: valid, with the same warning', async () => {
    const input = file('cut.json', JSON.stringify(cut));
    const validate = await run(['validate', input]);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain('warning LONE_SURROGATE #0: 3 lone UTF-16 surrogates');
    expect(validate.stdout).toContain('read as U+FFFD');
    const json = JSON.parse((await run(['validate', '--json', input])).stdout);
    expect(json.ok).toBe(true);
    expect(json.warnings).toMatchObject([{ code: 'LONE_SURROGATE', value: '#0', count: 3 }]);
  });
});

describe('convert refuses a trace validate would reject, and writes the others', () => {
  it('names the trace and its problems, exits 1, and what it wrote validates', async () => {
    const good = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ];
    const input = file(
      'some-bad.jsonl',
      jsonl([
        good,
        [{ role: 'user', content: 'x'.repeat(70_000) }],
        [{ role: 'user', content: '' }],
      ]),
    );
    const output = join(temporary, 'some-bad.out.jsonl');
    const convert = await run(['convert', input, '--to', 'jsonl', '-o', output]);
    expect(convert.code).toBe(1);
    expect(convert.stderr).toContain(
      `${input}:2: PAYLOAD_TOO_LARGE #1/0: message content exceeds 64KB limit\n`,
    );
    expect(convert.stderr).toContain(`skipped ${input}:2: trace #1: not converted`);
    // an event may have empty content (seeds 000/003); a user MESSAGE block may not (seed 002)
    expect(convert.stderr).toContain(
      'event 0 (role "user") has no content (content ""), which a chat event may have (seeds 000, 003), but a seed-002 MESSAGE block needs non-empty content',
    );
    expect(convert.stderr).toContain(`skipped ${input}:3: trace #2: not converted`);
    expect(readFileSync(output, 'utf8').trim().split('\n')).toHaveLength(2);
    expect((await run(['validate', output])).code).toBe(0);
    const events = await run(['convert', input, '--to', 'events']);
    expect(events.code).toBe(1);
    expect(
      events.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).messages),
    ).toStrictEqual([good, [{ role: 'user', content: '' }]]);
  });
});

describe('convert writes what its output file name says, so validate reads it back', () => {
  const one = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
  ];
  const two = `${JSON.stringify({ messages: one, metadata: { id: 'a' } })}\n${JSON.stringify(one)}\n`;

  it('--to events: a .json file is one JSON document, a .jsonl file one line per trace', async () => {
    const input = file('two.jsonl', two);
    const asJson = join(temporary, 'two.events.json');
    expect((await run(['convert', input, '--to', 'events', '-o', asJson])).code).toBe(0);
    expect(JSON.parse(readFileSync(asJson, 'utf8'))).toStrictEqual([
      { messages: one, metadata: { id: 'a' } },
      // a trace without an id is named by its content (as push names it)
      { messages: one, metadata: { trace_id: expect.stringMatching(/^tr_[0-9a-f]{26}$/) } },
    ]);
    expect((await run(['validate', asJson])).stdout).toBe(
      'ok: 1 file, 2 traces, 4 records, no problems\n',
    );
    const single = join(temporary, 'one.events.jsonl');
    const oneInput = file('one.json', JSON.stringify(one, null, 2));
    expect((await run(['convert', oneInput, '--to', 'events', '-o', single])).code).toBe(0);
    expect(readFileSync(single, 'utf8').split('\n')).toHaveLength(2);
    expect((await run(['validate', single])).code).toBe(0);
  });

  it('--to events: a dataset in a .json file is { name, metadata, traces }', async () => {
    const header = { metadata: { accuracy: 0.5 }, name: 'runs' };
    const input = file('dataset.jsonl', `${JSON.stringify(header)}\n${two}`);
    const output = join(temporary, 'dataset.events.json');
    expect((await run(['convert', input, '--to', 'events', '-o', output])).code).toBe(0);
    const dataset = JSON.parse(readFileSync(output, 'utf8'));
    expect(dataset).toMatchObject({ ...header, traces: [{ messages: one }, { messages: one }] });
    expect((await run(['validate', output])).code).toBe(0);
    const blocks = await run(['convert', input, '--to', 'jsonl']);
    expect((await run(['convert', output, '--to', 'jsonl'])).stdout).toBe(blocks.stdout);
  });

  it('refuses --to jsonl into a .json file and --to blocks into a .jsonl file, writing nothing', async () => {
    const input = file('two-again.jsonl', two);
    const jsonl = await run(['convert', input, '--to', 'jsonl', '-o', join(temporary, 'b.json')]);
    expect(jsonl.code).toBe(2);
    expect(jsonl.stderr).toContain('name the output .jsonl, or use --to blocks');
    const blocks = await run([
      'convert',
      input,
      '--to',
      'blocks',
      '-o',
      join(temporary, 'b.jsonl'),
    ]);
    expect(blocks.code).toBe(2);
    expect(blocks.stderr).toContain('name the output .json, or use --to jsonl');
    expect(() => readFileSync(join(temporary, 'b.json'))).toThrow();
  });
});

describe('two traces of a file with one id (a run exported twice, "id": 5 and "id": "5")', () => {
  const run1 = [
    { role: 'user', content: 'Pay my bill' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'pay', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'paid' },
  ];

  it('are two traces: the second is written as <id>_2, with a warning, and the file validates', async () => {
    const input = file(
      'twice.jsonl',
      jsonl([
        { messages: run1, metadata: { id: 'run-1' } },
        { messages: run1, metadata: { id: 'run-1' } },
        { messages: run1, id: 5 },
        { messages: run1, id: '5' },
      ]),
    );
    const output = join(temporary, 'twice.out.jsonl');
    const convert = await run(['convert', input, '--to', 'jsonl', '-o', output]);
    expect(convert.code).toBe(0);
    expect(convert.stderr).toBe(
      `${input}:2: warning DUPLICATE_TRACE_ID run-1: an earlier trace of the file has this id: this one is written as run-1_2 (its own fields keep the id it had)\n${input}:4: warning DUPLICATE_TRACE_ID 5: an earlier trace of the file has this id: this one is written as 5_2 (its own fields keep the id it had)\n`,
    );
    const blocks = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect([...new Set(blocks.map((block) => block.trace_id))]).toStrictEqual([
      'run-1',
      'run-1_2',
      '5',
      '5_2',
    ]);
    expect((await run(['validate', output])).code).toBe(0);
    const view = await run(['view', input]);
    expect(view.stdout.match(/^trace .*$/gm)).toStrictEqual([
      'trace run-1',
      'trace run-1_2',
      'trace 5',
      'trace 5_2',
    ]);
    // and back: the same blocks again
    const events = join(temporary, 'twice.events.jsonl');
    await run(['convert', output, '--to', 'events', '-o', events]);
    expect((await run(['convert', events, '--to', 'jsonl'])).stdout).toBe(
      readFileSync(output, 'utf8'),
    );
  });
});

describe('convert, calls without arguments', () => {
  it('reads missing, null, "" and "null" arguments as {} as parseTrace does, and validates', async () => {
    const trace = [
      { role: 'user', content: 'What time is it, and the date?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'now', arguments: null } },
          { id: 'b', type: 'function', function: { name: 'today', arguments: '' } },
          { id: 'c', type: 'function', function: { name: 'zone' } },
          { id: 'd', type: 'function', function: { name: 'week', arguments: 'null' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: '12:00' },
      { role: 'tool', tool_call_id: 'b', content: 'Monday' },
      { role: 'tool', tool_call_id: 'c', content: 'UTC' },
      { role: 'tool', tool_call_id: 'd', content: '48' },
    ];
    const input = file('no-arguments.json', JSON.stringify(trace));
    expect((await run(['validate', input])).code).toBe(0);
    const convert = await run(['convert', input, '--to', 'jsonl']);
    expect(convert.code).toBe(0);
    const calls = convert.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((block) => block.sub_type === 'TOOL_CALL');
    expect(calls.map((block) => block.payload.arguments)).toStrictEqual([{}, {}, {}, {}]);
    const back = await run(['convert', input, '--to', 'events']);
    expect(JSON.parse(back.stdout)).toStrictEqual(parseTrace(trace));
  });
});

// Real exports in every shape a property can reach: odd roles, empty and missing content, lone
// surrogates, arguments in every spelling, outputs linked or not.
const piece = fc.constantFrom('a', ' ', '\u00e9', '\ud83d', '\ude00', '\ud83d\ude00', '{');
const messy = fc.array(piece, { maxLength: 5 }).map((pieces) => pieces.join(''));
const args = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant(''),
  fc.constant('null'),
  fc.dictionary(messy, messy, { maxKeys: 2 }),
  fc.dictionary(messy, messy, { maxKeys: 2 }).map((value) => JSON.stringify(value)),
);
const content = fc.oneof(
  messy,
  fc.constant(null),
  fc.array(fc.record({ type: fc.constant('text'), text: messy }), { maxLength: 2 }),
);
const event = fc.oneof(
  fc.record({ role: fc.constantFrom('user', 'system', 'developer', 'critic'), content }),
  fc.record(
    {
      role: fc.constant('assistant'),
      content,
      tool_calls: fc.array(
        fc.record(
          {
            id: fc.constantFrom('c1', 'c2', ''),
            function: fc.record({ name: fc.constantFrom('read', 'send'), arguments: args }),
          },
          { requiredKeys: ['function'] },
        ),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: ['role', 'content'] },
  ),
  fc.record(
    { role: fc.constant('tool'), content, tool_call_id: fc.constantFrom('c1', 'c2', '') },
    { requiredKeys: ['role'] },
  ),
);

// a trace as an event list, or an object naming it (ids may repeat, as in re-exported runs)
const trace = fc.oneof(
  fc.array(event, { minLength: 1, maxLength: 5 }),
  fc.record({
    messages: fc.array(event, { minLength: 1, maxLength: 5 }),
    metadata: fc.record({ id: fc.constantFrom('run-1', 'run-2', '#1', 'tr_000001') }),
  }),
);

describe('convert then validate (property)', () => {
  it('what convert writes always validates, and every trace is written or named', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(trace, { maxLength: 6 }), async (traces) => {
        const input = file('random.jsonl', jsonl(traces));
        for (const [to, name] of [
          ['jsonl', 'random.out.jsonl'],
          ['blocks', 'random.out.json'],
          ['events', 'random.out.events'],
          ['events', 'random.events.json'],
          ['events', 'random.events.jsonl'],
        ] as const) {
          const output = join(temporary, name);
          const convert = await run(['convert', input, '--to', to, '-o', output]);
          const refused = convert.stderr.match(/skipped .*: trace [^:]+: not converted/g) ?? [];
          expect(convert.code).toBe(refused.length > 0 ? 1 : 0);
          const written = readFileSync(output, 'utf8');
          if (to === 'jsonl') {
            const ids = new Set(
              written
                .split('\n')
                .filter((line) => line !== '')
                .map((line) => JSON.parse(line).trace_id),
            );
            expect(ids.size + refused.length).toBe(traces.length);
          }
          if (written.trim() === '' || written.trim() === '[]') continue;
          const validate = await run(['validate', output]);
          expect(validate.stdout).toMatch(/^(?:.*warning.*\n)*ok: /);
          expect(validate.code).toBe(0);
        }
      }),
      { numRuns: 30 },
    );
  }, 120_000);
});
