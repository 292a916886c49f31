import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMemoryIo } from '../program/create-memory-io.js';
import { runCli } from '../program/run-cli.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '__fixtures__');
const fixture = (name: string) => join(fixtures, name);

async function run(argv: string[]) {
  const io = createMemoryIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

const warningLines = (text: string) =>
  text.split('\n').filter((line) => line.includes(' warning '));

describe('validate: a chat event of an unknown role', () => {
  const file = fixture('unknown-role.json');

  it('is valid (exit 0), with one warning per distinct role at its first event', async () => {
    const result = await run(['validate', file]);
    expect(result.code).toBe(0);
    expect(warningLines(result.stdout)).toEqual([
      `${file}:4: warning UNKNOWN_ROLE #0/2: unknown role "asistant": 2 events, each read as a user message; known roles: system, developer, user, human, assistant, model, ai, bot, tool, function, ipython`,
      `${file}:7: warning UNKNOWN_ROLE #0/5: unknown role "Tool": 1 event, read as a user message; known roles: system, developer, user, human, assistant, model, ai, bot, tool, function, ipython`,
    ]);
    expect(result.stdout).toContain('ok: 1 file, 1 trace, 6 records, no problems (2 warnings)\n');
  });

  it('lists the warnings in the --json report, which stays ok', async () => {
    const result = await run(['validate', '--json', file]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      problems: unknown[];
      warnings: { code: string; value: string; count: number; line: number; address: string }[];
    };
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([]);
    expect(
      report.warnings.map(({ code, value, count, line, address }) => ({
        code,
        value,
        count,
        line,
        address,
      })),
    ).toEqual([
      { code: 'UNKNOWN_ROLE', value: 'asistant', count: 2, line: 4, address: '#0/2' },
      { code: 'UNKNOWN_ROLE', value: 'Tool', count: 1, line: 7, address: '#0/5' },
    ]);
  });

  it('counts a role once across files, at its first file', async () => {
    const result = await run(['validate', file, file]);
    expect(result.code).toBe(0);
    expect(warningLines(result.stdout)[0]).toContain(
      `${file}:4: warning UNKNOWN_ROLE #0/2: unknown role "asistant": 4 events`,
    );
    expect(warningLines(result.stdout)).toHaveLength(2);
  });

  it.each(['chat-trace.json', 'chat-dataset.jsonl'])(
    'says nothing about the known roles of %s',
    async (name) => {
      const result = await run(['validate', fixture(name)]);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toContain('warning');
    },
  );
});

describe('view and stats: a block of an unknown sub_type', () => {
  const file = fixture('unknown-sub-type.jsonl');
  const expectedWarnings = [
    `${file}:4: warning UNKNOWN_SUB_TYPE tr_weather/tb_004: unknown sub_type "TOOL_CALLL": 2 blocks, left out; known sub types: MESSAGE, TOOL_CALL, THINK, TOOL_RESULT`,
    `${file}:10: warning UNKNOWN_SUB_TYPE tr_mail/tb_104: unknown sub_type "tool_result": 1 block, left out; known sub types: MESSAGE, TOOL_CALL, THINK, TOOL_RESULT`,
  ];

  it('view leaves it out, says so once per value at its first block, and exits 1', async () => {
    const result = await run(['view', file]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual(expectedWarnings);
    expect(result.stdout).not.toContain('TOOL_CALLL');
    expect(result.stdout).toContain('trace tr_mail');
  });

  it('stats leaves it out of every figure, counts it visibly, warns the same way and exits 1', async () => {
    const result = await run(['stats', file]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual(expectedWarnings);
    expect(result.stdout).toContain(
      'blocks      10 (MESSAGE 5, THINK 1, TOOL_RESULT 1; left out, unknown sub_type: "TOOL_CALLL" 2, "tool_result" 1)\n',
    );
    expect(result.stdout).toContain('tool calls  0\n');
  });

  it('stats --json counts it apart from the known sub types and lists the warnings', async () => {
    const result = await run(['stats', '--json', file]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      blocks: number;
      blocksBySubType: Record<string, number>;
      blocksByUnknownSubType: Record<string, number>;
      warnings: { code: string; value: string; count: number; line: number }[];
    };
    expect(report.blocks).toBe(10);
    expect(report.blocksBySubType).toEqual({ MESSAGE: 5, TOOL_RESULT: 1, THINK: 1 });
    expect(report.blocksByUnknownSubType).toEqual({ TOOL_CALLL: 2, tool_result: 1 });
    expect(
      report.warnings.map(({ code, value, count, line }) => [code, value, count, line]),
    ).toEqual([
      ['UNKNOWN_SUB_TYPE', 'TOOL_CALLL', 2, 4],
      ['UNKNOWN_SUB_TYPE', 'tool_result', 1, 10],
    ]);
  });

  it('stats of known sub types warns about nothing and exits 0', async () => {
    const result = await run(['stats', fixture('blocks.jsonl')]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toContain('left out');
  });
});

describe('check: blocks of an unknown sub_type', () => {
  const file = fixture('unknown-sub-type.jsonl');

  it('leaves them out as view and stats do: one warning per value, not a line per block, and not a pass', async () => {
    const result = await run(['check', '--recommended', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('skipped');
    const warnings = warningLines(result.stderr);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('UNKNOWN_SUB_TYPE');
    expect(warnings[0]).toContain('unknown sub_type "TOOL_CALLL": 2 blocks, left out');
    expect(warnings[1]).toContain('unknown sub_type "tool_result": 1 block, left out');
    expect(result.stdout).toContain('incomplete: ');
    expect(result.stdout).toContain('; 3 blocks of an unknown sub_type left out (see above)');
  });

  it('lists them in the --format json report, which is not ok', async () => {
    const result = await run(['check', '--recommended', '--format', 'json', file]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      skipped: unknown[];
      warnings: { code: string; value: string; count: number }[];
    };
    expect(report.ok).toBe(false);
    expect(report.skipped).toEqual([]);
    expect(report.warnings.map(({ code, value, count }) => ({ code, value, count }))).toEqual([
      { code: 'UNKNOWN_SUB_TYPE', value: 'TOOL_CALLL', count: 2 },
      { code: 'UNKNOWN_SUB_TYPE', value: 'tool_result', count: 1 },
    ]);
  });
});

describe('convert: blocks of an unknown sub_type', () => {
  const file = fixture('unknown-sub-type.jsonl');

  it.each([['jsonl'], ['events']])(
    '--to %s leaves them out with one warning per value, not a line per block (exit 1)',
    async (target) => {
      const result = await run(['convert', file, '--to', target]);
      expect(result.code).toBe(1);
      expect(result.stderr).not.toContain('skipped');
      const warnings = warningLines(result.stderr);
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toContain('unknown sub_type "TOOL_CALLL": 2 blocks, left out');
      expect(warnings[1]).toContain('unknown sub_type "tool_result": 1 block, left out');
      expect(result.stdout).not.toContain('TOOL_CALLL');
    },
  );
});
