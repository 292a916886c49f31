export {
  type TraceRunInfo,
  TracewardenCallbackHandler,
  type TracewardenCallbackHandlerOptions,
} from './handler/index.js';
