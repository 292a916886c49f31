import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createTracer } from '../tracing/create-tracer.js';
import { TracerFlushError } from '../tracing/tracer-flush-error.js';
import { createConsoleSink } from './create-console-sink.js';
import { createJsonlFileSink } from './create-jsonl-file-sink.js';
import { createMemorySink } from './create-memory-sink.js';
import { SinkError } from './sink-error.js';

const dir = mkdtempSync(join(tmpdir(), 'tracewarden-sink-writes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each([
  ['memory', () => createMemorySink()],
  ['jsonl file', () => createJsonlFileSink(join(dir, 'closed.jsonl'))],
  ['console', () => createConsoleSink({ stream: new PassThrough() })],
])('a %s sink after close()', (_name, make) => {
  it('refuses any write with SINK_CLOSED, even of a value that is no block', async () => {
    const sink = make();
    await sink.close();
    for (const value of [null, undefined, 'x'])
      expect(() => sink.write(value as never)).toThrow(
        expect.objectContaining({ code: 'SINK_CLOSED' }),
      );
    let thrown: unknown;
    try {
      sink.write(null as never);
    } catch (error) {
      thrown = error;
    }
    expect(SinkError.isInstance(thrown)).toBe(true);
  });
});

it("a flush that fails reads as one sentence per cause (no '..')", async () => {
  const file = join(dir, 'a-file');
  writeFileSync(file, '');
  const tracer = createTracer({ sinks: [createJsonlFileSink(join(file, 'under-a-file.jsonl'))] });
  tracer.logMessage({ role: 'user', content: 'hi' });
  const error = await tracer.flush().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(TracerFlushError.isInstance(error)).toBe(true);
  expect((error as Error).message).not.toContain('..');
  expect((error as Error).message).toContain('Fix the cause');
});
