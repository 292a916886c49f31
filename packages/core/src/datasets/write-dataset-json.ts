import { dirname } from 'node:path';
import { nodeFsPromises } from '../platform/node-builtins.js';
import type { Dataset } from './dataset.js';
import { toDatasetError } from './dataset-error.js';

/** Options of {@link writeDatasetJson}. */
export interface WriteDatasetJsonOptions {
  /** Indent the JSON for humans. @default false */
  pretty?: boolean;
}

/**
 * Writes a dataset as one JSON document `{ name, metadata, traces }`, replacing the file
 * atomically (written beside it, then renamed), creating parent directories.
 *
 * @param path - the JSON file to write
 * @param dataset - the dataset
 * @param options - pretty printing
 * @returns a promise resolved once the file is in place
 * @throws DatasetError `DATASET_WRITE_FAILED` when the file cannot be written
 * @example
 * ```ts
 * await writeDatasetJson('out/runs.json', { name: 'runs', metadata: { accuracy: 0.9 }, traces });
 * ```
 */
export async function writeDatasetJson(
  path: string,
  dataset: Dataset,
  options: WriteDatasetJsonOptions = {},
): Promise<void> {
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    const text = JSON.stringify(
      { name: dataset.name, metadata: dataset.metadata, traces: dataset.traces },
      null,
      options.pretty ? 2 : undefined,
    );
    const { mkdir, rename, writeFile } = nodeFsPromises();
    await mkdir(dirname(path), { recursive: true });
    await writeFile(temporary, `${text}\n`, 'utf8');
    await rename(temporary, path);
  } catch (error) {
    await nodeFsPromises()
      .rm(temporary, { force: true })
      .catch(() => undefined);
    throw toDatasetError(error, 'DATASET_WRITE_FAILED', path);
  }
}
