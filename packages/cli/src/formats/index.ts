export {
  classifyValue,
  formatOfKind,
  type InputFormat,
  inputFormats,
  type ValueKind,
} from './classify-value.js';
export {
  type BlockItem,
  type Container,
  type DatasetMetadataItem,
  defaultMaxLineBytes,
  type EntryItem,
  type Input,
  type InputItem,
  type OpenInputOptions,
  openInput,
  type ReadProblem,
  type TraceItem,
  traceLabel,
} from './open-input.js';
export { type JsonParseResult, lineColumnAt, parseJson } from './parse-json.js';
export { type ReadLinesOptions, readLines, type TextLine } from './read-lines.js';
export { type JsonScan, scanJson } from './scan-json.js';
