export {
  type AgentModelRequest,
  type AgentToolCallRequest,
  type TracewardenAgentMiddleware,
  type TracewardenAgentMiddlewareOptions,
  tracewardenAgentMiddleware,
} from './tracewarden-agent-middleware.js';
