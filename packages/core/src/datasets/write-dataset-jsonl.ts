import { dirname } from 'node:path';
import { ConfigurationError } from '../errors/configuration-error.js';
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

function checkOptions(options: unknown): WriteDatasetJsonlOptions {
  if (options === undefined) return {};
  const issues: { path: string; expected: string; received: string }[] = [];
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    issues.push({
      path: '',
      expected: 'an object such as { name: "runs" }',
      received: String(options),
    });
  else
    for (const [key, value] of Object.entries(options)) {
      if (key !== 'name')
        issues.push({
          path: key,
          expected: 'no such option (known: name)',
          received: typeof value,
        });
      else if (typeof value !== 'string' && value !== undefined)
        issues.push({ path: 'name', expected: 'a string', received: typeof value });
    }
  if (issues.length > 0)
    throw new ConfigurationError({
      entryPoint: 'writeDatasetJsonl',
      issues,
      message: `writeDatasetJsonl: invalid options: ${issues.map((issue) => `${issue.path || 'options'}: expected ${issue.expected}, got ${issue.received}`).join('; ')}`,
    });
  return options as WriteDatasetJsonlOptions;
}

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
  const { name } = checkOptions(options);
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
