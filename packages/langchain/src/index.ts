export {
  type TraceRunInfo,
  TracewardenCallbackHandler,
  type TracewardenCallbackHandlerOptions,
} from './handler/index.js';
export {
  type GuardableTool,
  type GuardErrorMode,
  type GuardToolOptions,
  type GuardToolsOptions,
  guardTool,
  guardTools,
} from './tools/index.js';
