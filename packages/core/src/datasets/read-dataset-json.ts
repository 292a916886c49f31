import { basename, extname } from 'node:path';
import { TraceError } from '../errors/index.js';
import { nodeFsPromises } from '../platform/node-builtins.js';
import type { Dataset } from './dataset.js';
import { toDatasetError } from './dataset-error.js';
import { type ParseDatasetOptions, parseDataset } from './parse-dataset.js';

/**
 * Reads a dataset from a JSON file `{ name?, metadata?, traces: [...] }` (see
 * {@link parseDataset}). The whole file is loaded; use {@link readDatasetJsonl} for datasets
 * larger than memory.
 *
 * @param path - the JSON file
 * @param options - a callback for replaced lone surrogates (see {@link parseDataset})
 * @returns the normalised {@link Dataset}; its name defaults to the file's base name
 * @throws TraceError `VALIDATION` when the file is not JSON or not a dataset (naming the path);
 *   `DatasetError` `DATASET_READ_FAILED` when it cannot be read
 * @example
 * ```ts
 * const dataset = await readDatasetJson('swe-bench.json');
 * console.log(dataset.name, dataset.traces.length);
 * ```
 */
export async function readDatasetJson(
  path: string,
  options: Pick<ParseDatasetOptions, 'onLoneSurrogates'> = {},
): Promise<Dataset> {
  let text: string;
  try {
    text = await nodeFsPromises().readFile(path, 'utf8');
  } catch (error) {
    throw toDatasetError(error, 'DATASET_READ_FAILED', path);
  }
  let json: unknown;
  try {
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (cause) {
    throw new TraceError({
      code: 'VALIDATION',
      message: `${path} is not valid JSON (${(cause as Error).message}); a dataset file holds { name, metadata, traces }`,
      details: { path: '' },
      cause,
    });
  }
  const base = basename(path);
  return parseDataset(json, {
    name: base.slice(0, base.length - extname(base).length) || 'dataset',
    onLoneSurrogates: options.onLoneSurrogates,
  });
}
