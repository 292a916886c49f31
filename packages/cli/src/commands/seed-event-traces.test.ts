import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePolicy } from '@tracewarden/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryIo } from '../program/create-memory-io.js';
import { runCli } from '../program/run-cli.js';

// Seeds 000/003 define the events files these commands read; seed 002 the blocks.
const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-seed-event-traces-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const path = join(temporary, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

async function run(argv: string[]) {
  const io = createMemoryIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

describe('seed 002: a TOOL_RESULT with seq: null', () => {
  it('is valid for validate, and two of them for one call never collide', async () => {
    const line = (block: object) => JSON.stringify({ trace_id: 'tr_1', ...block });
    const file = write(
      'null-seq.jsonl',
      `${[
        line({ id: 'tb_m', sub_type: 'MESSAGE', payload: { role: 'user', content: 'hi' } }),
        line({
          id: 'tb_c',
          sub_type: 'TOOL_CALL',
          parent_block_id: 'tb_m',
          payload: { call_id: 'c', name: 'f', arguments: {} },
        }),
        line({
          id: 'tb_r1',
          sub_type: 'TOOL_RESULT',
          parent_block_id: 'tb_c',
          payload: { call_id: 'c', delta: 'a', seq: null },
        }),
        line({
          id: 'tb_r2',
          sub_type: 'TOOL_RESULT',
          parent_block_id: 'tb_c',
          payload: { call_id: 'c', delta: 'b', seq: null },
        }),
      ].join('\n')}\n`,
    );
    const result = await run(['validate', file]);
    expect(result.stderr + result.stdout).not.toContain('seq');
    expect(result.code).toBe(0);
  });
});

describe('seeds 000/003: an event whose content is null or absent', () => {
  const file = write('no-content.json', [
    { role: 'system' },
    { role: 'user', content: null },
    { role: 'assistant', content: 'x' },
  ]);

  it('passes validate, check, view and stats', async () => {
    const policy = write('any.gr', 'raise "user" if:\n    (m: Message)\n    m.role == "user"\n');
    const validate = await run(['validate', file]);
    expect(validate.stdout).toContain('no problems');
    expect(validate.code).toBe(0);
    const check = await run(['check', '-p', policy, file]);
    expect(check.stderr).not.toContain('skipped');
    expect(check.stdout).toContain('1 violation');
    expect((await run(['view', file])).code).toBe(0);
    expect((await run(['stats', file])).code).toBe(0);
    expect((await run(['convert', '--to', 'events', file])).code).toBe(0);
  });

  it('is refused by convert --to blocks, naming the event and the seed-002 rule', async () => {
    const result = await run(['convert', '--to', 'blocks', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('VALIDATION #0/0: event 0 (role "system") has no content');
    expect(result.stderr).toContain('VALIDATION #0/1: event 1 (role "user") has no content');
    expect(result.stderr).toContain('seed-002 MESSAGE block needs non-empty content');
    expect(result.stderr).not.toContain('payload.content');
  });
});

describe('check answers as Policy.check on the same events file', () => {
  // seed 001's example: a call with no id, its output with no tool_call_id
  const events = [
    { role: 'user', content: 'Hello, how are you?' },
    { role: 'assistant', content: 'Thanks, I am doing great!' },
    {
      role: 'assistant',
      content: 'Sending an email to your mom now.',
      tool_calls: [
        {
          type: 'function',
          function: {
            name: 'send_email',
            arguments: '{"to": "mom@mail.com", "subject": "Running late, sorry!"}',
          },
        },
      ],
    },
    { role: 'tool', content: 'Email sent successfully.' },
  ];
  const file = write('seed001.json', events);

  it.each([
    ['an output without tool_call_id', '(output: ToolOutput)\n    output.tool_call_id == None'],
    ['linking by order', '(output: ToolOutput)\n    output is tool:send_email'],
  ])('%s', async (_name, condition) => {
    const source = `raise "found" if:\n    ${condition}\n`;
    const expected = parsePolicy(source)
      .check(events)
      .errors.map((error) => error.addresses);
    expect(expected).toHaveLength(1);
    const result = await run(['check', '--format', 'json', '-p', write('p.gr', source), file]);
    const report = JSON.parse(result.stdout) as { violations: { addresses: string[] }[] };
    expect(report.violations.map((violation) => violation.addresses)).toEqual(expected);
  });
});

describe('view shows an event in its own role', () => {
  it('tool and developer events', async () => {
    const file = write('roles.json', [
      { role: 'developer', content: 'be brief' },
      { role: 'user', content: 'hi' },
      { role: 'tool', tool_call_id: '1', content: 'out with no call' },
    ]);
    const result = await run(['view', file]);
    expect(result.stdout).toContain('developer: be brief');
    expect(result.stdout).toContain('tool: out with no call');
  });
});
