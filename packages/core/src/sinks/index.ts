export { type ConsoleSinkOptions, createConsoleSink } from './create-console-sink.js';
export { createHttpSink, type HttpSink } from './create-http-sink.js';
export {
  createJsonlFileSink,
  type JsonlFileSink,
  type JsonlFileSinkOptions,
} from './create-jsonl-file-sink.js';
export { createMemorySink, type MemorySink } from './create-memory-sink.js';
export { type HttpSinkOptions, httpSinkDefaults, httpSinkLimits } from './http-sink-options.js';
export { type RenderTreeOptions, renderTree } from './render-tree.js';
export type { Sink } from './sink.js';
export {
  SinkError,
  type SinkErrorCode,
  type SinkErrorOptions,
  type SinkServerError,
} from './sink-error.js';
