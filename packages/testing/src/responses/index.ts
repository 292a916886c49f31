export type { PlannedOutputItems, PlannedToolCallItem, WireResponse } from './build-response.js';
export { buildOutputItems, buildResponse, isIncomplete, responseId } from './build-response.js';
export type {
  WireResponseLifecycleEvent,
  WireResponseStreamEvent,
} from './build-response-events.js';
export { buildResponseEvents } from './build-response-events.js';
