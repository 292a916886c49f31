export { type ConsoleSinkOptions, createConsoleSink } from './create-console-sink.js';
export {
  createHttpSink,
  type HttpSink,
  type HttpSinkOptions,
  httpSinkDefaults,
  httpSinkLimits,
} from './create-http-sink.js';
export {
  createJsonlFileSink,
  type JsonlFileSink,
  type JsonlFileSinkOptions,
} from './create-jsonl-file-sink.js';
export { createMemorySink, type MemorySink } from './create-memory-sink.js';
export { type RenderTreeOptions, renderTree } from './render-tree.js';
export type { Sink } from './sink.js';
export {
  SinkError,
  type SinkErrorCode,
  type SinkErrorOptions,
  type SinkServerError,
} from './sink-error.js';
