import { dirname } from 'node:path';
import {
  nodeFs,
  nodeFsPromises,
  nodeStream,
  nodeStreamPromises,
} from '../platform/node-builtins.js';
import type { DatasetTrace } from './dataset.js';
import { toDatasetError } from './dataset-error.js';

/**
 * Writes a dataset as JSONL, streaming with backpressure (constant memory for any number of
 * traces): a first line `{ "metadata": {...} }` when `metadata` is given, then one line per
 * trace, `{ "messages": [...], "metadata": {...} }` (`metadata` only when the trace has it).
 * Parent directories are created; an existing file is replaced.
 *
 * @param path - the JSONL file to write
 * @param traces - the traces, from an array, a generator or an async iterable
 * @param metadata - the dataset's metadata, written as the header line
 * @returns the number of traces written
 * @throws DatasetError `DATASET_WRITE_FAILED` when the file cannot be written
 * @example
 * ```ts
 * await writeDatasetJsonl('runs.jsonl', readDatasetJsonl('big.jsonl'), { source: 'big' });
 * ```
 */
export async function writeDatasetJsonl(
  path: string,
  traces: AsyncIterable<DatasetTrace> | Iterable<DatasetTrace>,
  metadata?: Record<string, unknown>,
): Promise<number> {
  let count = 0;
  async function* lines(): AsyncGenerator<string, void, undefined> {
    if (metadata !== undefined) yield `${JSON.stringify({ metadata })}\n`;
    for await (const trace of traces) {
      const record: DatasetTrace = { messages: trace.messages };
      if (trace.metadata !== undefined) record.metadata = trace.metadata;
      if (trace.annotations !== undefined) record.annotations = trace.annotations;
      yield `${JSON.stringify(record)}\n`;
      count++;
    }
  }
  try {
    await nodeFsPromises().mkdir(dirname(path), { recursive: true });
    await nodeStreamPromises().pipeline(
      nodeStream().Readable.from(lines()),
      nodeFs().createWriteStream(path),
    );
  } catch (error) {
    throw toDatasetError(error, 'DATASET_WRITE_FAILED', path);
  }
  return count;
}
