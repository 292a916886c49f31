import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryIo } from '../program/create-memory-io.js';
import { runCli } from '../program/run-cli.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '__fixtures__');
const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-view-'));
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

async function view(file: string, ...flags: string[]) {
  const io = createMemoryIo();
  const code = await runCli(['view', file, ...flags], io);
  return { code, stdout: io.stdoutText, stderr: io.stderrText };
}

// an assistant answer of 113 characters whose metadata (model, timing, tokens, cost, retries,
// guard decisions, a violation) is longer than the line; a long think with short metadata
const longMetadata = join(fixtures, 'long-metadata.jsonl');
const answer = 'I checked the forecast for the next five days';

/** The same trace with every block's metadata removed. */
function withoutMetadata(): string {
  const lines = readFileSync(longMetadata, 'utf8').trim().split('\n');
  const stripped = lines.map((line) => {
    const { metadata: _metadata, ...block } = JSON.parse(line) as Record<string, unknown>;
    return JSON.stringify(block);
  });
  const file = join(temporary, 'no-metadata.jsonl');
  writeFileSync(file, `${stripped.join('\n')}\n`);
  return file;
}

const lineOf = (text: string, needle: string) =>
  text.split('\n').find((line) => line.includes(needle));

describe('view: long metadata', () => {
  it('shows as much of the text as it would without metadata', async () => {
    const bare = await view(withoutMetadata(), '--width', '100');
    const long = await view(longMetadata, '--width', '100');
    expect(long.code).toBe(0);
    const text = lineOf(bare.stdout, answer);
    expect(text).toBe(
      '├─ assistant: I checked the forecast for the next five days: rain on Tuesday and Wednesday, sun fro…',
    );
    expect(lineOf(long.stdout, answer)).toBe(text);
    // short metadata took its width from the value too
    const think = 'The user asked';
    expect(lineOf(long.stdout, think)).toBe(lineOf(bare.stdout, think));
    expect(lineOf(long.stdout, think)).toHaveLength(100);
  });

  it('puts the metadata on the next line, under the text, and keeps the tree below it', async () => {
    const { stdout } = await view(longMetadata, '--width', '100');
    const lines = stdout.split('\n');
    const at = lines.findIndex((line) => line.includes(answer));
    expect(lines[at + 1]).toMatch(
      /^│ {13}\[gpt-4o-mini-2024-07-18 · 2\.35 s · 1500 tok \(1200 in \/ 300 out\) · \$0\.0012 · 2 retries · guard .* · ⚠ 1 violation: .*\]$/,
    );
    expect(lines[at + 2]).toBe('│  └─ think: plan');
  });

  it('moves the metadata of a short value too when both do not fit the line', async () => {
    const { stdout } = await view(join(fixtures, 'blocks.jsonl'), '--width', '60');
    expect(stdout).toContain(
      [
        '├─ assistant: (no content)',
        '│             [gpt-4o-mini · 150 tok (120 in / 30 out) · $0.00036]',
        '│  ├─ think: decide to show forecast in celsius',
      ].join('\n'),
    );
  });

  it('keeps value and metadata on one line when they fit, as before', async () => {
    const { stdout } = await view(longMetadata, '--width', '100');
    expect(stdout).toContain('\n└─ assistant: Short.  [gpt-4o]\n');
    const wide = await view(longMetadata, '--width', '400');
    expect(lineOf(wide.stdout, answer)).toMatch(
      /highs of 24°C\. {2}\[gpt-4o-mini-2024-07-18 · .*\]$/,
    );
  });

  it('prints the same text in colour, escape sequences aside, each line closing its colours', async () => {
    const plain = await view(longMetadata, '--width', '100');
    const coloured = await view(longMetadata, '--width', '100', '--color');
    expect(coloured.stdout).not.toBe(plain.stdout);
    expect(coloured.stdout.replace(/\u001b\[[0-9;]*m/g, '')).toBe(plain.stdout);
    // a value cut inside its colour (the dim think) is closed after its `…`, as core does
    const thinkLine = lineOf(coloured.stdout, 'The user asked');
    expect(thinkLine).toMatch(/…\u001b\[0m$/);
    for (const line of coloured.stdout.split('\n')) {
      const last = line.lastIndexOf('\u001b[');
      if (last >= 0) expect(line.startsWith('\u001b[0m', last)).toBe(true);
    }
  });
});
