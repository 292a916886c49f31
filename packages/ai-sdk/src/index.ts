export {
  type TracewardenMiddlewareOptions,
  tracewardenMiddleware,
} from './middleware/tracewarden-middleware.js';
export { type GuardAiToolsOptions, guardTools } from './tools/guard-tools.js';
