export {
  type TracewardenMiddlewareOptions,
  tracewardenMiddleware,
} from './middleware/tracewarden-middleware.js';
export {
  type TelemetryCallInfo,
  type TracewardenTelemetry,
  type TracewardenTelemetryOptions,
  tracewardenTelemetry,
} from './telemetry/tracewarden-telemetry.js';
export { type GuardAiToolsOptions, guardTools } from './tools/guard-tools.js';
