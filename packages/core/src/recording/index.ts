export {
  type AdapterOptions,
  type AdapterRuntime,
  type AdapterRuntimeSettings,
  checkAdapterOptions,
  checkOptionsWith,
  createAdapterRuntime,
  fallbackTraceMaxCalls,
  type OptionCheck,
  optionChecks,
  type PricingOption,
  resolvePricing,
} from './create-adapter-runtime.js';
export { createModelCallGuards, type ModelCallGuardOptions } from './create-model-call-guards.js';
export { createModelCallPricer, type ModelCallPricerOptions } from './create-model-call-pricer.js';
export {
  createModelCallRecorder,
  type ModelCallRecorder,
  type ModelCallRecorderOptions,
  warnRecordingError,
} from './create-model-call-recorder.js';
export {
  createStreamGate,
  type StreamDecision,
  type StreamEnd,
  type StreamGate,
  type StreamGateOptions,
  type StreamPartKind,
} from './create-stream-gate.js';
export { parseToolArguments } from './message-fingerprint.js';
export { type FinishReason, normalizeFinishReason } from './normalize-finish-reason.js';
export { openAIHostedToolCalls } from './openai-hosted-tool-calls.js';
export { type RecordToolResultInput, recordToolResult } from './record-tool-result.js';
export { recordedRefusal } from './recorded-refusal.js';
export {
  canonicalJson,
  handOverVerdict,
  hasVerdict,
  maxPendingRefusals,
  maxVerdictsPerCallId,
  type ReviewedCall,
  refusalFor,
  registerReview,
} from './refusals.js';
export { scrubRaw } from './scrub-raw.js';
export { defaultRefusal, reviewToolCall, violationSummary } from './tool-call-review.js';
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
  ProviderToolCall,
  ReviewedCalls,
  ToolCallPolicy,
  ToolCallReview,
} from './types.js';
