import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// These tests run the executable in its own process, as users do, from source: the same
// command as the root's `pnpm tracewarden` (tests need no build; the packed binary is checked
// by the release dry run in .ci/run).
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const bin = join(packageRoot, 'src', 'bin.ts');
const node = [`--conditions=@tracewarden/source`, `--import=${tsx}`, bin];
const fixture = (name: string) => join(packageRoot, '__fixtures__', name);
const temporary = mkdtempSync(join(tmpdir(), 'tracewarden-bin-'));
const packageVersion = (
  JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }
).version;

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function tracewarden(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...node, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const failure = error as
          | (Error & { code?: number | string; signal?: NodeJS.Signals })
          | null;
        resolve({
          code: failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null,
          signal: failure?.signal ?? null,
          stdout,
          stderr,
        });
      },
    );
  });
}

afterAll(() => rmSync(temporary, { recursive: true, force: true }));

describe('tracewarden (the executable, in its own process)', () => {
  it('prints help with examples and exit codes, and its version', async () => {
    const help = await tracewarden(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: tracewarden [options] [command]');
    expect(help.stdout).toContain('Exit codes:');
    const version = await tracewarden(['--version']);
    expect(version.stdout.trim()).toBe(packageVersion);
  });

  it('names the cause when standard output cannot be written (> /dev/full), without a stack trace', async () => {
    const full = await open('/dev/full', 'w');
    const child = spawn(
      process.execPath,
      [...node, 'convert', fixture('chat-dataset.jsonl'), '--to', 'jsonl'],
      { stdio: ['ignore', full.fd, 'pipe'] },
    );
    await full.close();
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect(stderr).toBe(
      'error: cannot write standard output (ENOSPC: no space left on device, write); the disk is full; free some space or write somewhere else\n',
    );
    expect(code).toBe(2);
  });

  it('validates the valid fixtures with exit 0', async () => {
    const result = await tracewarden([
      'validate',
      fixture('chat-trace.json'),
      fixture('chat-dataset.jsonl'),
      fixture('blocks.jsonl'),
      fixture('blocks.json'),
      fixture('entries.jsonl'),
    ]);
    expect(result.stdout).toContain('ok: 5 files');
    expect(result.code).toBe(0);
  });

  it.each([
    ['malformed/bad-json-line.jsonl', 'bad-json-line.jsonl:2:144: VALIDATION'],
    ['malformed/wrong-parent.jsonl', 'wrong-parent.jsonl:2: PARENT_SUBTYPE_MISMATCH tr_1/tb_002'],
    [
      'malformed/oversize-payload.jsonl',
      'oversize-payload.jsonl:2: PAYLOAD_TOO_LARGE tr_1/tb_002.payload.text',
    ],
    [
      'malformed/duplicate-call-id.jsonl',
      'duplicate-call-id.jsonl:3: DUPLICATE_CALL_ID tr_1/tb_003',
    ],
    ['malformed/bad-json.json', 'bad-json.json:4:3: VALIDATION: invalid JSON at line 4, column 3'],
  ])('reports %s with exit 1', async (name, expected) => {
    const result = await tracewarden(['validate', fixture(name)]);
    expect(result.stdout).toContain(expected);
    expect(result.code).toBe(1);
  });

  it('honours LIMIT_* environment variables, and rejects a bad one as a usage error', async () => {
    expect(
      (
        await tracewarden(['validate', fixture('malformed/oversize-payload.jsonl')], {
          LIMIT_THINK_BYTES: '50000',
        })
      ).code,
    ).toBe(0);
    const bad = await tracewarden(['validate', fixture('blocks.jsonl')], {
      LIMIT_THINK_BYTES: 'lots',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('LIMIT_THINK_BYTES must be a positive integer');
  });

  it('exits 2 on a missing file and on an unknown format', async () => {
    const missing = await tracewarden(['view', fixture('missing.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
    const unknown = await tracewarden(['stats', fixture('malformed/unknown-format.json')]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('pass --format');
  });

  it('views a trace without colour when stdout is not a terminal', async () => {
    const result = await tracewarden(['view', fixture('blocks.jsonl')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('trace tr_weather');
    expect(result.stdout).not.toContain('\u001b[');
    expect(result.stderr).toBe('');
  });

  it('converts to a file and back', async () => {
    const out = join(temporary, 'dataset.blocks.jsonl');
    const convert = await tracewarden([
      'convert',
      fixture('chat-dataset.jsonl'),
      '--to',
      'jsonl',
      '-o',
      out,
    ]);
    expect(convert.code).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(9);
    const events = await tracewarden(['convert', out, '--to', 'events']);
    const [header, ...traces] = events.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { messages: unknown[] });
    // the dataset's header line comes back with its traces
    expect(header).toHaveProperty('metadata');
    expect(traces.map((trace) => trace.messages.length)).toEqual([3, 4]);
  });

  it('checks a policy for CI: exit 1 on a block rule, a JSON report on request', async () => {
    const policy = fixture('policies/no-external-email.gr');
    const text = await tracewarden(['check', '--policy', policy, fixture('blocks.jsonl')]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('BLOCK tr_mail/1.tool_calls.0: email sent outside example.com');
    const json = await tracewarden([
      'check',
      '--policy',
      fixture('policies/warn-only.gr'),
      '--format',
      'json',
      fixture('blocks.jsonl'),
    ]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: true,
      counts: { block: 0, warn: 1, log: 0 },
    });
  });

  it('exits with what it found when the reader of its output goes away (check | head)', async () => {
    // the reader closes before the first line: every write then fails with EPIPE
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          ...node,
          'check',
          '--policy',
          fixture('policies/no-external-email.gr'),
          fixture('blocks.jsonl'),
        ],
        { stdio: ['ignore', 'pipe', 'ignore'], env: { PATH: process.env.PATH ?? '' } },
      );
      child.stdout.destroy();
      child.on('exit', (exitCode) => resolve(exitCode));
    });
    // a CI gate piped into `head` must not pass a trace with violations
    expect(code).toBe(1);
  });

  it('prints statistics', async () => {
    const result = await tracewarden(['stats', fixture('blocks.jsonl')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('tokens and cost by model');
    expect(result.stdout).toContain('latency by tool (ms)');
  });

  it('validate sums up reopened traces of an interleaved file in one note, and --max-open-traces raises the limit', async () => {
    // 300 traces written round-robin: with 256 open traces, each is reopened on every round
    const file = join(temporary, 'interleaved.jsonl');
    let lines = '';
    for (let round = 0; round < 3; round++) {
      for (let t = 0; t < 300; t++) {
        const createdAt = new Date(Date.UTC(2025, 0, 1, 0, 0, round)).toISOString();
        lines += `${JSON.stringify({ id: `tb_${t}_${round}`, trace_id: `tr_${t}`, sub_type: 'MESSAGE', payload: { role: 'user', content: `message ${round}` }, created_at: createdAt })}\n`;
      }
    }
    writeFileSync(file, lines);
    const flooded = await tracewarden(['validate', file]);
    expect(flooded.code).toBe(0);
    const notes = flooded.stderr.split('\n').filter((line) => line.startsWith('note:'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('600 times a trace continued after more than 256 other traces');
    expect(notes[0]).toContain('weakened');
    expect(notes[0]).toContain('--max-open-traces');
    const raised = await tracewarden(['validate', '--max-open-traces', '300', file]);
    expect(raised.code).toBe(0);
    expect(raised.stderr).toBe('');
    const help = await tracewarden(['validate', '--help']);
    expect(help.stdout).toContain('--max-open-traces <count>');
  });

  describe('streams traces of a block file as they finish, not at the end of the file', () => {
    // Written into a FIFO that stays open: output that depends on the end of the file never comes.
    const lines = readFileSync(fixture('blocks.jsonl'), 'utf8').trim().split('\n');
    const mail = lines.filter((line) => line.includes('"tr_mail"'));
    const weather = lines.filter((line) => line.includes('"tr_weather"'));
    // more blocks than forEachTrace keeps of earlier contiguous traces, so tr_mail is finished
    const filler = Array.from(
      { length: 10_001 },
      (_, i) =>
        `{"id":"tb_f${i}","trace_id":"tr_filler","sub_type":"MESSAGE","payload":{"role":"user","content":"filler ${i}"},"created_at":"2025-01-01T00:02:00.000Z"}`,
    );

    async function streaming(
      args: (fifo: string) => string[],
      before: string[],
      expected: (stdout: string) => boolean,
      after: string[],
    ): Promise<{ early: string; code: number | null; stdout: string }> {
      const fifo = join(temporary, `stream-${args('').join('-').replace(/\W+/g, '')}.jsonl`);
      await new Promise<void>((done, fail) =>
        execFile('mkfifo', [fifo], (error) => (error ? fail(error) : done())),
      );
      const child = spawn(process.execPath, [...node, ...args(fifo)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      const writer = await open(fifo, 'w');
      await writer.write(`${before.join('\n')}\n`);
      // the output comes while the file is still open (a deadline, not a timing assertion)
      const early = await new Promise<string>((done) => {
        const deadline = setTimeout(() => done(stdout), 20_000);
        const check = () => {
          if (!expected(stdout)) return;
          clearTimeout(deadline);
          child.stdout.off('data', check);
          done(stdout);
        };
        child.stdout.on('data', check);
        check();
      });
      await writer.write(`${after.join('\n')}\n`);
      await writer.close();
      return { early, code: await exited, stdout };
    }

    it('check reports the violations of a trace before the file ends', async () => {
      const policy = fixture('policies/no-external-email.gr');
      const run = await streaming(
        (fifo) => ['check', '--policy', policy, fifo],
        [...mail, ...filler, ...weather.slice(0, 1)],
        (stdout) => stdout.includes('BLOCK tr_mail/1.tool_calls.0'),
        weather.slice(1),
      );
      expect(run.early).toContain('BLOCK tr_mail/1.tool_calls.0: email sent outside example.com');
      expect(run.early).not.toContain('blocked:');
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('in 3 traces');
    });

    it('view prints each trace before the file ends', async () => {
      const run = await streaming(
        (fifo) => ['view', fifo],
        [...mail, ...filler, ...weather.slice(0, 1)],
        (stdout) => stdout.includes('trace tr_filler'),
        weather.slice(1),
      );
      expect(run.early).toContain('trace tr_mail');
      expect(run.early).not.toContain('trace tr_weather');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('trace tr_weather');
    });

    it('convert --to events writes each trace before the file ends', async () => {
      const run = await streaming(
        (fifo) => ['convert', fifo, '--to', 'events'],
        [...mail, ...filler, ...weather.slice(0, 1)],
        (stdout) => stdout.split('\n').length > 2,
        weather.slice(1),
      );
      const early = run.early
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { metadata: { trace_id: string } });
      expect(early.map((trace) => trace.metadata.trace_id)).toEqual(['tr_mail', 'tr_filler']);
      expect(run.code).toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(3);
    });
  });

  it('stops cleanly on Ctrl-C (SIGINT) with a summary and exit code 130', async () => {
    // A FIFO keeps the command reading until the signal arrives, whatever the machine's speed.
    const fifo = join(temporary, 'live.jsonl');
    await new Promise<void>((done, fail) =>
      execFile('mkfifo', [fifo], (error) => (error ? fail(error) : done())),
    );
    const child: ChildProcess = spawn(process.execPath, [...node, 'validate', fifo], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.once('exit', (code, signal) => done({ code, signal })),
    );
    // opening the write end waits until the command has opened the file: its SIGINT handler is set by then
    const writer = await open(fifo, 'w');
    await writer.write(readFileSync(fixture('blocks.jsonl')));
    child.kill('SIGINT');
    // the command stops at once; the pending FIFO read only returns once the writer closes
    await new Promise<void>((done) => {
      const check = () =>
        stderr.includes('interrupted') ? done() : child.stderr?.once('data', check);
      check();
    });
    await writer.close();
    const { code, signal } = await exited;
    expect(signal).toBeNull();
    expect(code).toBe(130);
    expect(stderr).toContain('interrupted: stopped after 1 file');
    expect(stdout).not.toContain('internal error');
  });
});
