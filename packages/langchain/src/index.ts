export {
  type TraceRunInfo,
  TracewardenCallbackHandler,
  type TracewardenCallbackHandlerOptions,
} from './handler/index.js';
export {
  type AgentModelRequest,
  type AgentToolCallRequest,
  type TracewardenAgentMiddleware,
  type TracewardenAgentMiddlewareOptions,
  tracewardenAgentMiddleware,
} from './middleware/index.js';
export {
  type GuardableTool,
  type GuardErrorMode,
  type GuardToolOptions,
  type GuardToolsOptions,
  guardTool,
  guardTools,
} from './tools/index.js';
