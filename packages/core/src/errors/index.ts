export {
  TraceError,
  type TraceErrorBody,
  type TraceErrorCode,
  type TraceErrorDetails,
  type TraceErrorOptions,
  traceErrorHttpStatus,
} from './trace-error.js';
export { TracewardenError, type TracewardenErrorOptions } from './tracewarden-error.js';
