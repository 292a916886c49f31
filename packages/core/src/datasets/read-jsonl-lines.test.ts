import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import { DatasetError } from './dataset-error.js';
import { type JsonlLine, readJsonlLines } from './read-jsonl-lines.js';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'tracewarden-jsonl-'));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

async function collect(iterable: AsyncIterable<JsonlLine>): Promise<JsonlLine[]> {
  const lines: JsonlLine[] = [];
  for await (const line of iterable) lines.push(line);
  return lines;
}

async function failure(iterable: AsyncIterable<JsonlLine>): Promise<unknown> {
  try {
    await collect(iterable);
  } catch (error) {
    return error;
  }
  throw new Error('expected the read to fail');
}

describe('readJsonlLines', () => {
  it('reads a file line by line with line numbers, skipping blank lines, CRLF and a BOM', async () => {
    const path = join(directory, 'a.jsonl');
    writeFileSync(path, '\uFEFF{"a":1}\r\n\n   \n[1,2]\n"ü 🚀"');
    expect(await collect(readJsonlLines(path))).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 4, value: [1, 2] },
      { line: 5, value: 'ü 🚀' },
    ]);
  });

  it('splits the same way for any chunking of the bytes, multi-byte characters included (property)', async () => {
    // through JSON once, so values are exactly what parsing gives back (-0 becomes 0)
    const values = fc
      .array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 8 })
      .map((records) => records.map((value) => JSON.parse(JSON.stringify(value)) as unknown));
    await fc.assert(
      fc.asyncProperty(values, fc.array(fc.nat(40), { maxLength: 10 }), async (records, cuts) => {
        const bytes = Buffer.from(
          records.map((value) => `${JSON.stringify(value)}\n`).join(''),
          'utf8',
        );
        const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort(
          (a, b) => a - b,
        );
        const chunks: Buffer[] = [];
        let last = 0;
        for (const point of [...points, bytes.length]) {
          chunks.push(bytes.subarray(last, point));
          last = point;
        }
        const lines = await collect(readJsonlLines(Readable.from(chunks)));
        expect(lines.map((line) => line.value)).toEqual(records);
        expect(lines.map((line) => line.line)).toEqual(records.map((_, index) => index + 1));
      }),
    );
  });

  it('accepts string chunks (a stream with an encoding set)', async () => {
    expect(await collect(readJsonlLines(Readable.from(['{"a":', '1}\n{"b"', ':2}'])))).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 2, value: { b: 2 } },
    ]);
  });

  it('throws VALIDATION naming the line of invalid JSON', async () => {
    const path = join(directory, 'bad.jsonl');
    writeFileSync(path, '{"ok":1}\n{nope}\n{"ok":2}\n');
    const error = await failure(readJsonlLines(path));
    expect(error).toBeInstanceOf(TraceError);
    expect((error as TraceError).code).toBe('VALIDATION');
    expect((error as TraceError).details).toMatchObject({ line: 2, path: 'line 2' });
    expect((error as TraceError).message).toContain(`line 2 of ${path}`);
  });

  it('rejects an over-long line with PAYLOAD_TOO_LARGE, or skips it with onError', async () => {
    const path = join(directory, 'long.jsonl');
    writeFileSync(path, `{"a":1}\n"${'x'.repeat(200)}"\n{"b":2}\n"${'y'.repeat(50)}"`);
    const error = await failure(readJsonlLines(path, { maxLineBytes: 64 }));
    expect((error as TraceError).code).toBe('PAYLOAD_TOO_LARGE');
    expect((error as TraceError).details).toMatchObject({
      line: 2,
      limit_bytes: 64,
      actual_bytes: 202,
    });

    const reported: TraceError[] = [];
    const lines = await collect(
      readJsonlLines(path, { maxLineBytes: 64, onError: (e) => reported.push(e) }),
    );
    expect(lines).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 3, value: { b: 2 } },
      { line: 4, value: 'y'.repeat(50) },
    ]);
    expect(reported.map((e) => [e.code, e.details.line])).toEqual([['PAYLOAD_TOO_LARGE', 2]]);
  });

  it('reports an over-long last line without a newline', async () => {
    const reported: TraceError[] = [];
    const lines = await collect(
      readJsonlLines(Readable.from([Buffer.from('1\n'), Buffer.from('x'.repeat(100))]), {
        maxLineBytes: 10,
        onError: (e) => reported.push(e),
      }),
    );
    expect(lines).toEqual([{ line: 1, value: 1 }]);
    expect(reported[0]?.details).toMatchObject({ line: 2, actual_bytes: 100 });
  });

  it('wraps a missing file in DatasetError DATASET_READ_FAILED', async () => {
    const path = join(directory, 'missing.jsonl');
    const error = await failure(readJsonlLines(path));
    expect(error).toBeInstanceOf(DatasetError);
    expect((error as DatasetError).code).toBe('DATASET_READ_FAILED');
    expect((error as DatasetError).path).toBe(path);
    expect((error as DatasetError).message).toContain('ENOENT');
  });

  it('stops early without reading the rest', async () => {
    const path = join(directory, 'many.jsonl');
    writeFileSync(path, Array.from({ length: 1000 }, (_, i) => JSON.stringify({ i })).join('\n'));
    const seen: number[] = [];
    for await (const { value } of readJsonlLines(path)) {
      seen.push((value as { i: number }).i);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual([0, 1, 2]);
  });
});
