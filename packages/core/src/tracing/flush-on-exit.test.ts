import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJsonlFileSink } from '../sinks/create-jsonl-file-sink.js';
import { checkAtExit, setExitReporter } from '../sinks/unwritten-at-exit.js';
import { createTracer } from './create-tracer.js';
import { flushOnExitState, runBeforeExit } from './flush-on-exit.js';

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const script = fileURLToPath(new URL('./__fixtures__/exit-script.ts', import.meta.url));

let directory: string;
let reported: string[];
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'tracewarden-exit-'));
  reported = [];
  setExitReporter((message) => reported.push(message));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

function linesOf(path: string): number {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).length : 0;
}

/** Runs the exit script; resolves with its stderr and how it ended. */
function run(mode: string, flushOnExit: boolean, path: string) {
  return new Promise<{ stderr: string; code: number | null; signal: string | null }>((resolve) => {
    execFile(
      process.execPath,
      [
        '--conditions=@tracewarden/source',
        `--import=${tsx}`,
        script,
        path,
        mode,
        flushOnExit ? '1' : '0',
      ],
      { timeout: 60_000 },
      (error, _stdout, stderr) => {
        const failure = error as (Error & { code?: number; signal?: string }) | null;
        resolve({ stderr, code: failure?.code ?? 0, signal: failure?.signal ?? null });
      },
    );
  });
}

describe('blocks still buffered at exit', () => {
  it('are reported in one warning naming how many and where, never dropped silently', () => {
    const path = join(directory, 'a.jsonl');
    const sink = createJsonlFileSink(path);
    const tracer = createTracer({ sinks: [sink] });
    for (let i = 0; i < 3; i++) tracer.logMessage({ role: 'user', content: `m${i}` });
    checkAtExit();
    expect(reported).toHaveLength(1);
    expect(reported[0]).toContain('3 trace blocks were still buffered');
    expect(reported[0]).toContain(path);
    expect(reported[0]).toContain('flushOnExit');
  });

  it('are written synchronously at exit by a sink with flushOnExit', () => {
    const path = join(directory, 'nested', 'b.jsonl');
    const tracer = createTracer({ sinks: [createJsonlFileSink(path, { flushOnExit: true })] });
    for (let i = 0; i < 3; i++) tracer.logMessage({ role: 'user', content: `m${i}` });
    checkAtExit();
    expect(reported).toEqual([]);
    expect(linesOf(path)).toBe(3);
  });

  it('say nothing when everything was flushed', async () => {
    const tracer = createTracer({ sinks: [createJsonlFileSink(join(directory, 'c.jsonl'))] });
    tracer.logMessage({ role: 'user', content: 'm' });
    await tracer.flush();
    checkAtExit();
    expect(reported).toEqual([]);
  });
});

describe('createTracer({ flushOnExit: true })', () => {
  it('flushes on beforeExit and unregisters on shutdown', async () => {
    const path = join(directory, 'd.jsonl');
    const tracer = createTracer({ sinks: [createJsonlFileSink(path)], flushOnExit: true });
    expect(flushOnExitState()).toEqual({ tracers: 1, installed: true });
    tracer.logMessage({ role: 'user', content: 'm' });
    runBeforeExit();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(linesOf(path)).toBe(1);
    await tracer.shutdown();
    expect(flushOnExitState()).toEqual({ tracers: 0, installed: false });
  });

  it.each([
    ['process.exit()', 'exit'],
    ['the event loop running dry', 'end'],
    ['SIGTERM', 'signal'],
  ])('writes every block when the process ends by %s', async (_label, mode) => {
    const path = join(directory, `${mode}.jsonl`);
    const result = await run(mode, true, path);
    expect(result.stderr).not.toContain('[tracewarden]');
    expect(linesOf(path)).toBe(5);
    if (mode === 'signal') expect(result.signal).toBe('SIGTERM');
  });

  it('without it, a process that exits warns that its blocks were not written', async () => {
    const path = join(directory, 'lost.jsonl');
    const result = await run('exit', false, path);
    expect(result.stderr).toContain('5 trace blocks were still buffered');
    expect(linesOf(path)).toBe(0);
  });
});
