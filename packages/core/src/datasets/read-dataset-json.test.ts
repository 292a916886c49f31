import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TraceError } from '../errors/index.js';
import { rawDataset } from './__fixtures__/dataset-arbitraries.js';
import { DatasetError } from './dataset-error.js';
import { parseDataset } from './parse-dataset.js';
import { readDatasetJson } from './read-dataset-json.js';
import { writeDatasetJson } from './write-dataset-json.js';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'tracewarden-dataset-json-'));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('readDatasetJson / writeDatasetJson', () => {
  it('round-trips any dataset (property)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(rawDataset, fc.boolean(), async (raw, pretty) => {
        const dataset = parseDataset(raw);
        const path = join(directory, 'nested', `run-${run++}.json`);
        await writeDatasetJson(path, dataset, { pretty });
        expect(await readDatasetJson(path)).toEqual(dataset);
      }),
      { numRuns: 50 },
    );
  });

  it('defaults the name to the file base name', async () => {
    const path = join(directory, 'swe-bench.json');
    writeFileSync(path, JSON.stringify({ traces: [[{ role: 'user', content: 'hi' }]] }));
    expect((await readDatasetJson(path)).name).toBe('swe-bench');
  });

  it('rejects a file that is not JSON with VALIDATION naming the file', async () => {
    const path = join(directory, 'broken.json');
    writeFileSync(path, '{"traces": [');
    const error = await readDatasetJson(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TraceError);
    expect((error as TraceError).code).toBe('VALIDATION');
    expect((error as TraceError).message).toContain(path);
  });

  it('wraps I/O failures in DatasetError', async () => {
    const missing = await readDatasetJson(join(directory, 'none.json')).catch(
      (caught: unknown) => caught,
    );
    expect((missing as DatasetError).code).toBe('DATASET_READ_FAILED');
    const blocked = await writeDatasetJson(directory, {
      name: 'x',
      metadata: {},
      traces: [],
    }).catch((caught: unknown) => caught);
    expect(blocked).toBeInstanceOf(DatasetError);
    expect((blocked as DatasetError).code).toBe('DATASET_WRITE_FAILED');
  });

  it('writes { name, metadata, traces }', async () => {
    const path = join(directory, 'small.json');
    await writeDatasetJson(path, {
      name: 'small',
      metadata: { accuracy: 1 },
      traces: [{ messages: [] }],
    });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      name: 'small',
      metadata: { accuracy: 1 },
      traces: [{ messages: [] }],
    });
  });
});
