export {
  type TracewardenAgentMiddleware,
  type TracewardenAgentMiddlewareOptions,
  tracewardenAgentMiddleware,
} from './tracewarden-agent-middleware.js';
