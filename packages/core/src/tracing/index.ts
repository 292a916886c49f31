export { createTracer, type TracerOptions } from './create-tracer.js';
export { TracerClosedError, type TracerClosedErrorOptions } from './tracer-closed-error.js';
export { TracerFlushError, type TracerFlushErrorOptions } from './tracer-flush-error.js';
export { tracerSchema } from './tracer-options-schema.js';
export type {
  BlockExtras,
  LogActInput,
  LogMessageInput,
  LogObserveInput,
  LogThinkInput,
  Tracer,
} from './types.js';
export { currentTracer, ToolCallScope, withTrace } from './with-trace.js';
