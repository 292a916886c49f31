import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import { rawDataset, rawTrace } from './__fixtures__/dataset-arbitraries.js';
import type { DatasetTrace } from './dataset.js';
import { DatasetError } from './dataset-error.js';
import { parseDataset } from './parse-dataset.js';
import { readDatasetJson } from './read-dataset-json.js';
import { readDatasetJsonl } from './read-dataset-jsonl.js';
import { writeDatasetJsonl } from './write-dataset-jsonl.js';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'tracewarden-dataset-jsonl-'));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

async function collect(iterable: AsyncIterable<DatasetTrace>): Promise<DatasetTrace[]> {
  const traces: DatasetTrace[] = [];
  for await (const trace of iterable) traces.push(trace);
  return traces;
}

describe('readDatasetJsonl / writeDatasetJsonl', () => {
  it('round-trips any dataset, metadata header and name included (property)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        rawDataset,
        fc.option(fc.string(), { nil: undefined }),
        async (raw, name) => {
          const dataset = parseDataset(raw);
          const path = join(directory, `run-${run++}.jsonl`);
          const written = await writeDatasetJsonl(
            path,
            dataset.traces,
            dataset.metadata,
            name === undefined ? undefined : { name },
          );
          expect(written).toBe(dataset.traces.length);
          const reader = readDatasetJsonl(path);
          expect(await collect(reader)).toEqual(dataset.traces);
          expect(reader.metadata).toEqual(
            name === undefined ? dataset.metadata : (dataset.metadata ?? {}),
          );
          expect(reader.name).toBe(name ?? `run-${run - 1}`);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('rejects an unknown option or a name that is not a string, before writing', async () => {
    const path = join(directory, 'never.jsonl');
    for (const options of [{ nmae: 'runs' }, { name: 3 }, 'runs'])
      await expect(writeDatasetJsonl(path, [], undefined, options as never)).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
      });
    expect(() => readFileSync(path)).toThrow();
  });

  it("keeps Invariant Explorer's annotations through a write and a read (property)", async () => {
    const annotation = fc.record({
      content: fc.string({ maxLength: 10 }),
      address: fc.nat(5).map((i) => `messages.${i}.content:0-5`),
      extra_metadata: fc.constantFrom({ source: 'analyzer' }, { source: 'user' }),
    });
    const annotated = fc.record({
      messages: rawTrace,
      annotations: fc.array(annotation, { maxLength: 3 }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(annotated, { maxLength: 4 }), async (traces) => {
        const dataset = parseDataset(traces);
        expect(dataset.traces.map((trace) => trace.annotations)).toEqual(
          traces.map((trace) => trace.annotations),
        );
        const path = join(directory, `annotated-${run++}.jsonl`);
        await writeDatasetJsonl(path, dataset.traces);
        expect(await collect(readDatasetJsonl(path))).toEqual(dataset.traces);
      }),
      { numRuns: 30 },
    );
  });

  it('reads an Explorer annotated line and rejects annotations that are not a list', async () => {
    const path = join(directory, 'explorer.jsonl');
    const messages = [{ role: 'user', content: 'Hello, world!' }];
    writeFileSync(
      path,
      `${JSON.stringify({ metadata: { accuracy: 0.5 } })}\n${JSON.stringify({
        messages,
        annotations: [{ content: 'example annotation', address: 'messages.0.content:5-10' }],
        metadata: { key: 'value' },
      })}\n${JSON.stringify({ messages, annotations: null })}\n${JSON.stringify({ messages, annotations: 'x' })}\n`,
    );
    const errors: TraceError[] = [];
    const reader = readDatasetJsonl(path, { onError: (error) => errors.push(error) });
    expect(await collect(reader)).toEqual([
      {
        messages,
        metadata: { key: 'value' },
        annotations: [{ content: 'example annotation', address: 'messages.0.content:5-10' }],
      },
      { messages },
    ]);
    expect(reader.metadata).toEqual({ accuracy: 0.5 });
    expect(errors.map((error) => [error.code, error.details.line, error.details.path])).toEqual([
      ['VALIDATION', 4, 'annotations'],
    ]);
  });

  it('writes the documented line format', async () => {
    const path = join(directory, 'out', 'format.jsonl');
    await writeDatasetJsonl(
      path,
      [{ messages: [{ role: 'user', content: 'hi' }] }, { messages: [], metadata: { task: 1 } }],
      { accuracy: 1 },
    );
    expect(readFileSync(path, 'utf8')).toBe(
      '{"metadata":{"accuracy":1}}\n{"messages":[{"role":"user","content":"hi"}]}\n{"messages":[],"metadata":{"task":1}}\n',
    );
  });

  it('reads bare event arrays, a header with a name, and normalises traces', async () => {
    const source = Readable.from([
      '{"metadata":{"agent":"x"},"name":"named"}\n',
      '[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[{"function":{"name":"f","arguments":"{\\"k\\":1}"}}]},{"role":"tool","content":"r"}]\n',
    ]);
    const reader = readDatasetJsonl(source);
    const traces = await collect(reader);
    expect(reader.name).toBe('named');
    expect(reader.metadata).toEqual({ agent: 'x' });
    expect(traces[0]?.messages[1]).toMatchObject({
      tool_calls: [{ id: 'call_1_0', function: { arguments: { k: 1 } } }],
    });
    expect(traces[0]?.messages[2]).toMatchObject({ tool_call_id: 'call_1_0' });
  });

  it('throws on the first bad line, naming it, or skips and reports bad lines with onError', async () => {
    const path = join(directory, 'bad.jsonl');
    writeFileSync(
      path,
      [
        '{"metadata":{"v":1}}',
        '[{"role":"user","content":"ok 1"}]',
        '{not json',
        '42',
        '{"messages":[{"role":"user","content":5}]}',
        '',
        '{"metadata":{"late":true}}',
        '{"messages":[{"role":"user","content":"ok 2"}],"metadata":{"i":2}}',
      ].join('\n'),
    );
    const thrown = await collect(readDatasetJsonl(path)).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(TraceError);
    expect((thrown as TraceError).details.line).toBe(3);

    const reported: TraceError[] = [];
    const traces = await collect(
      readDatasetJsonl(path, { onError: (error) => reported.push(error) }),
    );
    expect(traces).toEqual([
      { messages: [{ role: 'user', content: 'ok 1' }] },
      { messages: [{ role: 'user', content: 'ok 2' }], metadata: { i: 2 } },
    ]);
    expect(reported.map((error) => [error.code, error.details.line, error.details.path])).toEqual([
      ['VALIDATION', 3, 'line 3'],
      ['VALIDATION', 4, ''],
      ['VALIDATION', 5, 'messages.0.content'],
      ['VALIDATION', 7, 'messages'],
    ]);
    expect(reported[2]?.message).toContain(`line 5 of ${path}`);
  });

  it('streams a file of many traces in and out with constant memory', async () => {
    const path = join(directory, 'many.jsonl');
    const count = 20_000;
    function* traces(): Generator<DatasetTrace> {
      for (let i = 0; i < count; i++) {
        yield {
          messages: [
            { role: 'user', content: `task ${i}` },
            { role: 'assistant', content: 'done' },
          ],
          metadata: { i },
        };
      }
    }
    expect(await writeDatasetJsonl(path, traces())).toBe(count);
    let seen = 0;
    for await (const trace of readDatasetJsonl(path)) {
      expect(trace.metadata).toEqual({ i: seen });
      seen++;
    }
    expect(seen).toBe(count);
    // a copy through both streams, from an async iterable
    const copy = join(directory, 'copy.jsonl');
    expect(await writeDatasetJsonl(copy, readDatasetJsonl(path), { copied: true })).toBe(count);
    expect(readFileSync(copy, 'utf8').split('\n')).toHaveLength(count + 2);
  });

  it('wraps write failures in DatasetError DATASET_WRITE_FAILED', async () => {
    const error = await writeDatasetJsonl(directory, [{ messages: [] }]).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DatasetError);
    expect((error as DatasetError).code).toBe('DATASET_WRITE_FAILED');
    expect((error as DatasetError).path).toBe(directory);
  });

  it('reports lone surrogates it replaced with their line, as readDatasetJson does', async () => {
    const path = join(directory, 'cut.jsonl');
    writeFileSync(
      path,
      `${JSON.stringify({ metadata: {} })}\n${JSON.stringify([{ role: 'user', content: 'ok' }])}\n[{"role":"user","content":"cut \\ud83d"}]\n`,
    );
    const found: unknown[] = [];
    const traces = await collect(
      readDatasetJsonl(path, { onLoneSurrogates: (event) => found.push(event) }),
    );
    expect(traces[1]?.messages[0]?.content).toBe('cut \ufffd');
    expect(found).toStrictEqual([{ path: '0', count: 1, line: 3 }]);
    const document = join(directory, 'cut.json');
    writeFileSync(document, '{"traces":[[{"role":"user","content":"\\udc00"}]]}');
    const json: unknown[] = [];
    await readDatasetJson(document, { onLoneSurrogates: (event) => json.push(event) });
    expect(json).toStrictEqual([{ path: 'traces.0.0', count: 1 }]);
  });
});
