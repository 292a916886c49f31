export { createModelCallGuards, type ModelCallGuardOptions } from './create-model-call-guards.js';
export { createModelCallPricer, type ModelCallPricerOptions } from './create-model-call-pricer.js';
export {
  createModelCallRecorder,
  type ModelCallRecorder,
  type ModelCallRecorderOptions,
} from './create-model-call-recorder.js';
export { scrubRaw } from './scrub-raw.js';
export type {
  ModelCallAttempt,
  ModelCallCost,
  ModelCallDelta,
  ModelCallGuard,
  ModelCallGuardContext,
  ModelCallGuardTicket,
  ModelCallHandle,
  ModelCallOutcome,
  ModelCallPricer,
  ModelCallResponse,
  ModelCallStartInput,
  ModelCallStatus,
  ModelToolCall,
  ModelToolCallDelta,
  ModelUsage,
  NeutralMessage,
  NeutralToolCall,
  ToolCallPolicy,
  ToolCallReview,
} from './types.js';
