import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryIo } from '../program/create-memory-io.js';
import { runCli } from '../program/run-cli.js';

const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-cli-fields-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

async function run(argv: string[]) {
  const io = createMemoryIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

const block = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  trace_id: 'tr_1',
  block_type: 'MESSAGE',
  sub_type: 'MESSAGE',
  payload: { role: 'user', content: `hi ${id}` },
  parent_block_id: null,
  metadata: {},
  raw: null,
  extra: {},
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});

/** Three blocks, two with a `project` field, one with a `parent_id` typo. */
const file = join(temporary, 'fields.jsonl');
writeFileSync(
  file,
  [
    block('tb_1'),
    block('tb_2', { project: 'mail' }),
    block('tb_3', { project: 'mail', parent_id: 'tb_1' }),
  ]
    .map((value) => JSON.stringify(value))
    .join('\n'),
);

describe('a block with top-level fields outside seed 002', () => {
  it('validate passes it (exit 0) and says once per field name that it is ignored', async () => {
    const result = await run(['validate', file]);
    expect(result.code).toBe(0);
    const warnings = result.stdout.split('\n').filter((line) => line.includes(' warning '));
    expect(warnings).toEqual([
      expect.stringContaining(
        `${file}:2: warning UNKNOWN_BLOCK_FIELD tr_1/tb_2: 2 blocks have the top-level field "project", which is not a field of a block`,
      ),
      expect.stringContaining(
        `${file}:3: warning UNKNOWN_BLOCK_FIELD tr_1/tb_3: 1 block has the top-level field "parent_id"`,
      ),
    ]);
    expect(warnings[0]).toMatch(
      /ignored here, and convert and push drop it; move client data into extra$/,
    );
  });

  it('convert writes the blocks without it and says it was dropped, never in silence', async () => {
    const result = await run(['convert', file, '--to', 'jsonl']);
    expect(result.code).toBe(0);
    const written = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(written).toHaveLength(3);
    expect(written.every((value) => !('project' in value) && !('parent_id' in value))).toBe(true);
    expect(result.stderr).toMatch(
      /warning UNKNOWN_BLOCK_FIELD tr_1\/tb_2: 2 blocks have the top-level field "project".*so it is dropped; move client data into extra/,
    );
    const events = await run(['convert', file, '--to', 'events']);
    expect(events.stderr).toContain('UNKNOWN_BLOCK_FIELD');
  });

  it('says nothing about blocks that hold only seed 002 fields', async () => {
    const clean = join(temporary, 'clean.jsonl');
    writeFileSync(clean, JSON.stringify(block('tb_1')));
    const result = await run(['validate', clean]);
    expect(result.stdout).not.toContain('warning');
    expect((await run(['convert', clean, '--to', 'jsonl'])).stderr).toBe('');
  });
});
