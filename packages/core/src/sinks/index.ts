export { createConsoleSink, type ConsoleSinkOptions } from './create-console-sink.js';
export {
  createJsonlFileSink,
  type JsonlFileSink,
  type JsonlFileSinkOptions,
} from './create-jsonl-file-sink.js';
export { createMemorySink, type MemorySink } from './create-memory-sink.js';
export { renderTree, type RenderTreeOptions } from './render-tree.js';
export type { Sink } from './sink.js';
export { SinkError, type SinkErrorCode, type SinkErrorOptions } from './sink-error.js';
