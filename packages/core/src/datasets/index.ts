export type { Dataset, DatasetTrace } from './dataset.js';
export { DatasetError, type DatasetErrorCode, type DatasetErrorOptions } from './dataset-error.js';
export { type ParseDatasetOptions, parseDataset } from './parse-dataset.js';
export { readDatasetJson } from './read-dataset-json.js';
export {
  type DatasetJsonlReader,
  type ReadDatasetJsonlOptions,
  readDatasetJsonl,
} from './read-dataset-jsonl.js';
export {
  defaultMaxJsonlLineBytes,
  type JsonlLine,
  type JsonlSource,
  type ReadJsonlLinesOptions,
  readJsonlLines,
} from './read-jsonl-lines.js';
export { type WriteDatasetJsonOptions, writeDatasetJson } from './write-dataset-json.js';
export { type WriteDatasetJsonlOptions, writeDatasetJsonl } from './write-dataset-jsonl.js';
