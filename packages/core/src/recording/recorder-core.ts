import { GuardError } from '../guards/guard-error.js';
import type {
  ModelCallGuard,
  ModelCallPricer,
  ModelCallStatus,
  ToolCallPolicy,
  ToolCallReview,
} from './types.js';

/**
 * What every part of one recorder shares (the conversation history, the tool-call review, the
 * call lifecycle and the response blocks): its resolved options and how it reports a block that
 * could not be recorded. Built once by `createModelCallRecorder`.
 * @internal
 */
export interface RecorderCore {
  /** Milliseconds clock. */
  clock: () => number;
  guards: readonly ModelCallGuard[];
  pricer: ModelCallPricer | undefined;
  policy: ToolCallPolicy | undefined;
  mode: 'throw' | 'refuse';
  refusalMessage: (review: ToolCallReview) => string;
  timeoutMs: number | undefined;
  /** Reports a block that could not be recorded (what `safely` calls). */
  onRecordingError(error: unknown): void;
  /** Runs `fn`; an error is reported through `onRecordingError` and `undefined` returned. */
  safely<T>(fn: () => T): T | undefined;
}

/** The model-call status of a guard error's `status` (others are `failure`). @internal */
export const guardStatuses: Readonly<Record<string, ModelCallStatus>> = {
  circuit_open: 'circuit_open',
  rate_limited: 'rate_limited',
  budget_exceeded: 'budget_exceeded',
  timeout: 'timeout',
};

/**
 * The status a call ended by `error` is recorded with: a guard error's own (`rate_limited`,
 * `timeout`, ...), else `otherwise`. @internal
 */
export function guardStatusOf(error: unknown, otherwise: ModelCallStatus): ModelCallStatus {
  return GuardError.isGuardError(error) ? (guardStatuses[error.status] ?? otherwise) : otherwise;
}
