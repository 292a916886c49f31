export {
  exportLine,
  type ParsedDatasetFile,
  type PushTraceBody,
  parseDatasetJsonl,
  parsePushBody,
} from './convert-traces.js';
