import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createJsonlFileSink } from '../sinks/create-jsonl-file-sink.js';
import { createTracer } from './create-tracer.js';
import { TracerFlushError } from './tracer-flush-error.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('tracer.shutdown() after a failure', () => {
  it('a second call retries the sinks once the cause is fixed, and writes every block once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tw-shutdown-'));
    dirs.push(dir);
    // a file where the sink's folder should be: the first close cannot write
    const blocker = join(dir, 'blocker');
    writeFileSync(blocker, 'not a folder');
    const path = join(blocker, 'trace.jsonl');
    const tracer = createTracer({ sinks: [createJsonlFileSink(path)] });
    tracer.logMessage({ role: 'user', content: 'hello' });
    tracer.logMessage({ role: 'assistant', content: 'hi' });
    const first = await tracer.shutdown().catch((caught: unknown) => caught);
    expect(first).toBeInstanceOf(TracerFlushError);
    // the cause fixed: the same shutdown() call now succeeds
    rmSync(blocker);
    await expect(tracer.shutdown()).resolves.toBeUndefined();
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(
      lines.map((line) => (JSON.parse(line) as { payload: { content: string } }).payload.content),
    ).toEqual(['hello', 'hi']);
    // done: later calls resolve without writing again
    await expect(tracer.shutdown()).resolves.toBeUndefined();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(() => tracer.logMessage({ role: 'user', content: 'late' })).toThrow();
  });

  it('calls made while it runs share one promise', async () => {
    const tracer = createTracer();
    tracer.logMessage({ role: 'user', content: 'hello' });
    const a = tracer.shutdown();
    const b = tracer.shutdown();
    expect(a).toBe(b);
    await a;
  });
});
