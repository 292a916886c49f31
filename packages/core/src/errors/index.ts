export { TracewardenError, type TracewardenErrorOptions } from './tracewarden-error.js';
export {
  TraceError,
  traceErrorHttpStatus,
  type TraceErrorBody,
  type TraceErrorCode,
  type TraceErrorDetails,
  type TraceErrorOptions,
} from './trace-error.js';
