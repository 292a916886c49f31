export {
  type TraceRunInfo,
  TracewardenCallbackHandler,
  type TracewardenCallbackHandlerOptions,
} from './tracewarden-callback-handler.js';
