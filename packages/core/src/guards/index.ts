export { abortableSleep } from './abortable-sleep.js';
export { type BackoffOptions, backoffDelay } from './backoff-delay.js';
export {
  type Budget,
  type BudgetAlert,
  type BudgetCost,
  type BudgetOptions,
  type BudgetReservation,
  type BudgetSettlement,
  defaultBudgetSession,
} from './budget.js';
export { BudgetExceededError } from './budget-exceeded-error.js';
export {
  type CircuitAdmission,
  type CircuitBreakerLimits,
  type CircuitBreakerStore,
  type CircuitOutcome,
  type CircuitTransition,
  createMemoryCircuitBreakerStore,
} from './circuit-breaker-store.js';
export { CircuitOpenError } from './circuit-open-error.js';
export { consoleGuardLogger } from './console-guard-logger.js';
export {
  type CostLedger,
  createMemoryCostLedger,
  type LedgerReservation,
  type LedgerReserveRequest,
  type LedgerReserveResult,
  type LedgerSnapshot,
} from './cost-ledger.js';
export { createBudget } from './create-budget.js';
export {
  createHallucinationDetector,
  defaultHallucinationWeights,
  type HallucinationCheckInput,
  type HallucinationDetector,
  type HallucinationOptions,
  type HallucinationSignal,
  type ResultProfile,
} from './create-hallucination-detector.js';
export { errorMessage } from './error-message.js';
export { errorType } from './error-type.js';
export { guard } from './guard.js';
export { GuardError, type GuardErrorCode, type GuardErrorOptions } from './guard-error.js';
export type {
  CircuitBreakerOptions,
  CircuitStateChange,
  ErrorClass,
  GuardedFunction,
  GuardInvokeOptions,
  GuardOptions,
  GuardStats,
  RateLimitOptions,
  RetryOptions,
  SideEffect,
  TimeoutOptions,
  ToolArgs,
} from './guard-options.js';
export { guardOptionsSchema, maxTimeoutSeconds } from './guard-options-schema.js';
export { GuardTimeoutError } from './guard-timeout-error.js';
export {
  type GuardedTools,
  type GuardToolsOptions,
  guardTools,
  type ToolFunction,
  type ToolResult,
} from './guard-tools.js';
export { HallucinationError } from './hallucination-error.js';
export { InvalidCostError, type InvalidCostErrorOptions } from './invalid-cost-error.js';
export {
  createMemoryRateLimitStore,
  type MemoryRateLimitStore,
  type RateLimitStore,
  resetRateLimits,
  type TokenBucketLimit,
} from './rate-limit-store.js';
export { RateLimitedError } from './rate-limited-error.js';
export { recordResultUnderCall, scopedResultMetadata } from './record-result-under-call.js';
export { retryAfterMs } from './retry-after-ms.js';
export {
  runValidators,
  type Validator,
  type ValidatorContext,
  type ValidatorFunction,
  type ValidatorOutcome,
  type ValidatorSpec,
  type ValidatorsOptions,
} from './run-validators.js';
export type {
  GuardAttemptRecord,
  GuardCallContext,
  GuardClock,
  GuardDecision,
  GuardLogger,
  GuardRandom,
  GuardSleep,
  MaybePromise,
} from './types.js';
export { usdToMicro } from './usd-to-micro.js';
export { ValidationFailedError } from './validation-failed-error.js';
