import { dirname } from 'node:path';
import { optionTypes } from '../errors/option-types.js';
import { lazySchema, validateOptions } from '../errors/validate-options.js';
import {
  nodeFs,
  nodeFsPromises,
  nodeStream,
  nodeStreamPromises,
} from '../platform/node-builtins.js';
import type { DatasetTrace } from './dataset.js';
import { toDatasetError } from './dataset-error.js';

/** Options of {@link writeDatasetJsonl}. */
export interface WriteDatasetJsonlOptions {
  /** The dataset's name, written in the header line (`readDatasetJsonl` reads it back). */
  name?: string;
}

const optionsSchema = lazySchema(() =>
  optionTypes.strictObject({ name: optionTypes.string().optional() }),
);

/**
 * Writes a dataset as JSONL, streaming with backpressure (constant memory for any number of
 * traces): a first line `{ "name": ..., "metadata": {...} }` when `metadata` or a `name` is
 * given (the header `readDatasetJsonl` reads), then one line per trace,
 * `{ "messages": [...], "metadata": {...} }` (`metadata` only when the trace has it).
 * Parent directories are created; an existing file is replaced.
 *
 * @param path - the JSONL file to write
 * @param traces - the traces, from an array, a generator or an async iterable
 * @param metadata - the dataset's metadata, written as the header line
 * @param options - `name`: the dataset's name, written in the header line
 * @returns the number of traces written
 * @throws DatasetError `DATASET_WRITE_FAILED` when the file cannot be written
 * @throws ConfigurationError `INVALID_OPTIONS` for an unknown option or a name that is not a string
 * @example
 * ```ts
 * const dataset = readDatasetJsonl('big.jsonl');
 * await writeDatasetJsonl('runs.jsonl', dataset, { source: 'big' }, { name: 'runs' });
 * ```
 */
export async function writeDatasetJsonl(
  path: string,
  traces: AsyncIterable<DatasetTrace> | Iterable<DatasetTrace>,
  metadata?: Record<string, unknown>,
  options?: WriteDatasetJsonlOptions,
): Promise<number> {
  validateOptions(optionsSchema, options, { entryPoint: 'writeDatasetJsonl', allOptional: true });
  const name = options?.name;
  let count = 0;
  async function* lines(): AsyncGenerator<string, void, undefined> {
    if (name !== undefined) yield `${JSON.stringify({ name, metadata: metadata ?? {} })}\n`;
    else if (metadata !== undefined) yield `${JSON.stringify({ metadata })}\n`;
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
