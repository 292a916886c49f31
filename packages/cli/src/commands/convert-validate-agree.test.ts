import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryIo } from '../program/create-memory-io.js';
import { runCli } from '../program/run-cli.js';

// What `validate` says of a file and what `convert` writes of it agree (review of session 13).
const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-convert-agree-'));
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

const jsonl = (values: unknown[]) => values.map((value) => `${JSON.stringify(value)}\n`).join('');

describe('validate, a message with reasoning_content', () => {
  const trace = [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: 'hm',
      reasoning_content: 't'.repeat(40_000),
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c', content: 'ok' },
    { role: 'user', content: 'x'.repeat(70_000) },
  ];

  it('addresses the events after it by their own index, and its think by the field', async () => {
    const input = file('think.jsonl', jsonl([trace]));
    const result = await run(['validate', input]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `${input}:1: PAYLOAD_TOO_LARGE #0/1.reasoning_content: think text exceeds 32KB limit\n`,
    );
    expect(result.stdout).toContain(
      `${input}:1: PAYLOAD_TOO_LARGE #0/3: message content exceeds 64KB limit\n`,
    );
  });

  it('prints the same problems every run (no generated block id in them)', async () => {
    const input = file('think-again.jsonl', jsonl([trace]));
    const first = await run(['validate', input]);
    const second = await run(['validate', input]);
    expect(first.code).toBe(1);
    expect(second.stdout).toBe(first.stdout);
    expect(first.stdout).not.toMatch(/tb_/);
  });
});

describe('convert, blocks given no created_at', () => {
  const blocks = [
    { id: 'm1', trace_id: 't', sub_type: 'MESSAGE', payload: { role: 'user', content: 'a' } },
    {
      id: 'm2',
      trace_id: 't',
      sub_type: 'MESSAGE',
      payload: { role: 'assistant', content: 'b' },
      updated_at: '2025-01-01T00:00:00.000Z',
    },
  ];

  it('writes them without one (validate accepts that, not an empty one)', async () => {
    const input = file('untimed.jsonl', jsonl(blocks));
    for (const [to, name] of [
      ['jsonl', 'untimed.out.jsonl'],
      ['blocks', 'untimed.out.json'],
    ] as const) {
      const output = join(temporary, name);
      expect((await run(['convert', input, '--to', to, '-o', output])).code).toBe(0);
      const text = readFileSync(output, 'utf8');
      expect(text).not.toContain('"created_at"');
      expect(text).toContain('"updated_at":"2025-01-01T00:00:00.000Z"');
      const validate = await run(['validate', output]);
      expect(validate.stdout).toContain('no problems');
      expect(validate.code).toBe(0);
    }
  });

  it('validate addresses a bad updated_at as a top-level field', async () => {
    const input = file('bad-updated.jsonl', jsonl([{ ...blocks[0], updated_at: 'soon' }]));
    const result = await run(['validate', input]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${input}:1: VALIDATION t/m1.updated_at: `);
  });
});

describe('convert to blocks and back to events keeps metadata.trace_id', () => {
  const messages = [
    { role: 'user', content: 'hello' },
    { role: 'assistant', content: 'hi' },
  ];

  async function back(name: string, text: string) {
    const blocks = await run(['convert', file(name, text), '--to', 'jsonl']);
    expect(blocks.code).toBe(0);
    const events = await run(['convert', file('blocks.jsonl', blocks.stdout), '--to', 'events']);
    expect(events.code).toBe(0);
    return events.stdout;
  }

  it('that named the trace, next to other metadata (one trace)', async () => {
    const trace = { messages, metadata: { trace_id: 'run-7', k: 1 } };
    expect(JSON.parse(await back('named.json', JSON.stringify(trace)))).toStrictEqual(trace);
  });

  it('next to a numeric metadata id, which names the trace: neither is rewritten', async () => {
    const trace = { messages, metadata: { id: 42, trace_id: 99 } };
    expect(JSON.parse(await back('numeric.json', JSON.stringify(trace)))).toStrictEqual(trace);
    const two = [
      { messages, metadata: { id: 1 } },
      { messages, metadata: { id: 'a', trace_id: 'a' } },
    ];
    const text = await back('two.jsonl', jsonl(two));
    expect(
      text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toStrictEqual(two);
  });
});

describe('convert, blocks validate rejects', () => {
  const blocks = [
    { id: 'm1', trace_id: 't', sub_type: 'MESSAGE', payload: { role: 'tool', content: 'a' } },
    {
      id: 'm2',
      trace_id: 't',
      sub_type: 'MESSAGE',
      payload: { role: 'assistant', content: 'b' },
      created_at: '2025-01-01T00:00:00.000Z',
      extra: [1],
    },
  ];

  it("reports validate's problems and exits 1, to any target, from JSONL or JSON", async () => {
    const jsonlInput = file('bad-blocks.jsonl', jsonl(blocks));
    const jsonInput = file('bad-blocks.json', JSON.stringify([...blocks].reverse()));
    for (const input of [jsonlInput, jsonInput]) {
      for (const to of ['events', 'jsonl', 'blocks']) {
        const result = await run(['convert', input, '--to', to]);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain('VALIDATION t/m1.payload.role: ');
        expect(result.stderr).toContain('VALIDATION t/m2.extra: ');
      }
    }
  });
});
