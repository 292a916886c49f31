export {
  classifyValue,
  formatOfKind,
  type InputFormat,
  inputFormats,
  type ValueKind,
} from './classify-value.js';
export type {
  BlockItem,
  DatasetMetadataItem,
  EntryItem,
  InputItem,
  ReadProblem,
  TraceItem,
} from './input-items.js';
export { type Container, type Input, type OpenInputOptions, openInput } from './open-input.js';
export { type JsonParseResult, lineColumnAt, parseJson } from './parse-json.js';
export {
  defaultMaxLineBytes,
  type ReadLinesOptions,
  readLines,
  type TextLine,
} from './read-lines.js';
export { type JsonScan, scanJson } from './scan-json.js';
export { traceLabel } from './trace-label.js';
