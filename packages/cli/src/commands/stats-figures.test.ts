import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryIo } from '../program/create-memory-io.js';
import { runCli } from '../program/run-cli.js';

// What `stats` counts of tokens and cost, and what it refuses to count.
const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-stats-figures-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

function file(name: string, lines: readonly unknown[]): string {
  const path = join(temporary, name);
  writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return path;
}

async function run(argv: string[]) {
  const io = createMemoryIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

/** A Claude Code line of an assistant API message (one line per content block). */
function assistantLine(id: string, content: unknown[], usage?: Record<string, number>) {
  return {
    type: 'assistant',
    sessionId: 's1',
    uuid: `${id}-${JSON.stringify(content).length}`,
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4',
      content,
      ...(usage === undefined ? {} : { usage }),
    },
  };
}

describe('stats of a Claude Code session file', () => {
  it("counts an API message's usage once, though each of its content blocks repeats it", async () => {
    const path = file('claude-session.jsonl', [
      { type: 'user', sessionId: 's1', uuid: 'u1', message: { role: 'user', content: 'Fix it.' } },
      // msg_1 written as three lines; the last holds the final output tokens
      assistantLine('msg_1', [{ type: 'thinking', thinking: 'look first', signature: 's' }], {
        input_tokens: 100,
        output_tokens: 1,
      }),
      assistantLine('msg_1', [{ type: 'text', text: 'Reading the file.' }], {
        input_tokens: 100,
        output_tokens: 8,
      }),
      assistantLine('msg_1', [{ type: 'tool_use', id: 't1', name: 'Read', input: { path: 'a' } }], {
        input_tokens: 100,
        output_tokens: 30,
      }),
      {
        type: 'user',
        sessionId: 's1',
        uuid: 'u2',
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }],
        },
      },
      assistantLine('msg_2', [{ type: 'text', text: 'Done.' }], {
        input_tokens: 140,
        output_tokens: 5,
      }),
    ]);
    const result = await run(['stats', '--json', path]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const stats = JSON.parse(result.stdout);
    expect(stats.byModel).toStrictEqual({
      'claude-sonnet-4': {
        calls: 2,
        inputTokens: 240,
        outputTokens: 35,
        totalTokens: 275,
        cost: 0,
      },
    });
    expect(stats.toolCalls).toBe(1);
  });

  it('counts two messages with different ids twice, and events converted from the session alike', async () => {
    const path = file('two-messages.jsonl', [
      { type: 'user', sessionId: 's1', uuid: 'u1', message: { role: 'user', content: 'Hi.' } },
      assistantLine('msg_1', [{ type: 'text', text: 'Hello.' }], {
        input_tokens: 3,
        output_tokens: 2,
      }),
      assistantLine('msg_1', [{ type: 'text', text: 'Again.' }], {
        input_tokens: 3,
        output_tokens: 4,
      }),
      { type: 'user', sessionId: 's1', uuid: 'u2', message: { role: 'user', content: 'More.' } },
      assistantLine('msg_2', [{ type: 'text', text: 'Sure.' }], {
        input_tokens: 9,
        output_tokens: 1,
      }),
    ]);
    const direct = JSON.parse((await run(['stats', '--json', path])).stdout);
    expect(direct.byModel['claude-sonnet-4']).toMatchObject({
      calls: 2,
      inputTokens: 12,
      outputTokens: 5,
    });
    const events = join(temporary, 'two-messages.events.json');
    expect((await run(['convert', path, '--to', 'events', '-o', events])).code).toBe(0);
    const converted = JSON.parse((await run(['stats', '--json', events])).stdout);
    expect(converted.byModel).toStrictEqual(direct.byModel);
  });
});

describe('stats of token counts and costs that are not non-negative numbers', () => {
  const block = (id: string, metadata: Record<string, unknown>) => ({
    id,
    trace_id: 'tr_1',
    sub_type: 'MESSAGE',
    payload: { role: 'assistant', content: 'a' },
    metadata: { model: 'gpt-4o', ...metadata },
  });

  it('leaves each out of the totals, names its line and field, and exits 1', async () => {
    const path = file('bad-figures.jsonl', [
      block('tb_1', { usage: { prompt_tokens: -100, completion_tokens: 20 } }),
      block('tb_2', { usage: { prompt_tokens: 10, completion_tokens: '7' }, cost: '0.5' }),
      block('tb_3', { usage: { prompt_tokens: 5, completion_tokens: 1 }, cost: { cost_usd: -1 } }),
    ]);
    const result = await run(['stats', '--json', path]);
    expect(result.code).toBe(1);
    const stats = JSON.parse(result.stdout);
    // only the figures that are numbers of zero or more are counted
    expect(stats.byModel['gpt-4o']).toStrictEqual({
      calls: 3,
      inputTokens: 15,
      outputTokens: 21,
      totalTokens: 36,
      cost: 0,
    });
    expect(
      stats.warnings.map((warning: { code: string; line: number; address: string }) => [
        warning.code,
        warning.line,
        warning.address,
      ]),
    ).toStrictEqual([
      ['INVALID_FIGURE', 1, 'tr_1/tb_1.metadata.usage.prompt_tokens'],
      ['INVALID_FIGURE', 2, 'tr_1/tb_2.metadata.cost'],
      ['INVALID_FIGURE', 2, 'tr_1/tb_2.metadata.usage.completion_tokens'],
      ['INVALID_FIGURE', 3, 'tr_1/tb_3.metadata.cost.cost_usd'],
    ]);
    const text = await run(['stats', path]);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(
      `${path}:1: warning INVALID_FIGURE tr_1/tb_1.metadata.usage.prompt_tokens: metadata.usage.prompt_tokens is -100 (a negative number): a token count or cost must be a non-negative number; 1 value of this field left out of the totals\n`,
    );
    expect(text.stderr).toContain(
      `${path}:2: warning INVALID_FIGURE tr_1/tb_2.metadata.usage.completion_tokens: metadata.usage.completion_tokens is "7" (a string: write it as the number 7)`,
    );
  });

  it("names a chat event's line and address, and a trace entry's cost", async () => {
    const events = file('bad-event-figures.jsonl', [
      [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: 'y',
          model: 'm',
          usage: { input_tokens: -3, output_tokens: 2 },
        },
      ],
      [{ role: 'assistant', content: 'z', metadata: { model: 'm', usage: { input_tokens: '4' } } }],
    ]);
    const result = await run(['stats', events]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${events}:1: warning INVALID_FIGURE #0/1.usage.input_tokens: usage.input_tokens is -3`,
    );
    expect(result.stderr).toContain(
      `${events}:2: warning INVALID_FIGURE #1/0.metadata.usage.input_tokens: metadata.usage.input_tokens is "4"`,
    );
    const entry = {
      call: {
        call_id: 'c1',
        tool_name: 'lookup',
        args: [],
        kwargs: {},
        timestamp: '2025-01-01T00:00:00Z',
        session_id: 's1',
        metadata: {},
      },
      result: {
        call_id: 'c1',
        status: 'success',
        output: 1,
        exception: null,
        exception_type: null,
        execution_time_ms: 3,
        retry_count: 0,
        validations: [],
        hallucination: null,
        cost: -0.25,
        timestamp: '2025-01-01T00:00:00.003Z',
      },
    };
    const entries = await run(['stats', '--json', file('bad-entry-cost.jsonl', [entry])]);
    expect(entries.code).toBe(1);
    const stats = JSON.parse(entries.stdout);
    expect(stats.byModel).toStrictEqual({});
    expect(stats.warnings[0]).toMatchObject({
      code: 'INVALID_FIGURE',
      line: 1,
      address: 'result.cost',
    });
  });

  it('counts zero and numbers as before, with no warning', async () => {
    const path = file('good-figures.jsonl', [
      block('tb_1', {
        usage: { prompt_tokens: 0, completion_tokens: 4 },
        cost: { cost_micro_usd: 12 },
      }),
      block('tb_2', { usage: { prompt_tokens: null, completion_tokens: 1 }, cost: 0.5 }),
    ]);
    const result = await run(['stats', '--json', path]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).byModel['gpt-4o']).toMatchObject({
      inputTokens: 0,
      outputTokens: 5,
      cost: 0.500012,
    });
  });
});
