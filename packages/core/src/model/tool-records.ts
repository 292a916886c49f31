import type { z } from 'zod';
import { lazyZodSchema } from '../errors/load-zod.js';
import { entryTimestampMs } from '../text/is-entry-timestamp.js';

/** A record's `timestamp`: an ISO 8601 date-time (seed 004: a UTC `datetime`). */
function entryTimestamp(zod: typeof z) {
  return zod.string().refine((value) => !Number.isNaN(entryTimestampMs(value)), {
    message:
      'must be an ISO 8601 date-time such as "2024-05-15T10:00:00Z" (seed 004: a UTC datetime)',
  });
}

/** Status of a finished tool call (seed 004, values exactly as the seed). */
export const ToolCallStatusSchema = lazyZodSchema((z) =>
  z.enum([
    'success',
    'failure',
    'timeout',
    'circuit_open',
    'budget_exceeded',
    'rate_limited',
    'validation_failed',
    'hallucinated',
    'retried',
  ]),
);
/** Status of a finished tool call. */
export type ToolCallStatus = z.infer<typeof ToolCallStatusSchema>;
/** The {@link ToolCallStatus} values by name, e.g. `ToolCallStatus.SUCCESS === 'success'`. */
export const ToolCallStatus = Object.freeze({
  SUCCESS: 'success',
  FAILURE: 'failure',
  TIMEOUT: 'timeout',
  CIRCUIT_OPEN: 'circuit_open',
  BUDGET_EXCEEDED: 'budget_exceeded',
  RATE_LIMITED: 'rate_limited',
  VALIDATION_FAILED: 'validation_failed',
  HALLUCINATED: 'hallucinated',
  RETRIED: 'retried',
} as const satisfies Record<string, ToolCallStatus>);

/** What a guard does when it trips: `block` throws, `warn` logs and allows, `log` records and allows. */
export const GuardActionSchema = lazyZodSchema((z) => z.enum(['block', 'warn', 'log']));
/** What a guard does when it trips. */
export type GuardAction = z.infer<typeof GuardActionSchema>;
/** The {@link GuardAction} values by name. */
export const GuardAction = Object.freeze({
  BLOCK: 'block',
  WARN: 'warn',
  LOG: 'log',
} as const satisfies Record<string, GuardAction>);

/** State of a circuit breaker. */
export const CircuitStateSchema = lazyZodSchema((z) => z.enum(['closed', 'open', 'half_open']));
/** State of a circuit breaker. */
export type CircuitState = z.infer<typeof CircuitStateSchema>;
/** The {@link CircuitState} values by name. */
export const CircuitState = Object.freeze({
  CLOSED: 'closed',
  OPEN: 'open',
  HALF_OPEN: 'half_open',
} as const satisfies Record<string, CircuitState>);

/** Kind of a validator. */
export const ValidatorKindSchema = lazyZodSchema((z) =>
  z.enum(['schema', 'hallucination', 'semantic', 'custom']),
);
/** Kind of a validator. */
export type ValidatorKind = z.infer<typeof ValidatorKindSchema>;
/** The {@link ValidatorKind} values by name. */
export const ValidatorKind = Object.freeze({
  SCHEMA: 'schema',
  HALLUCINATION: 'hallucination',
  SEMANTIC: 'semantic',
  CUSTOM: 'custom',
} as const satisfies Record<string, ValidatorKind>);

/**
 * Kind of an LLM call's usage (seed 004's `UsageKind`): what the model read or wrote, by
 * modality.
 */
export const UsageKindSchema = lazyZodSchema((z) =>
  z.enum(['text', 'audio', 'image', 'multimodal']),
);
/** Kind of an LLM call's usage. */
export type UsageKind = z.infer<typeof UsageKindSchema>;
/** The {@link UsageKind} values by name. */
export const UsageKind = Object.freeze({
  TEXT: 'text',
  AUDIO: 'audio',
  IMAGE: 'image',
  MULTIMODAL: 'multimodal',
} as const satisfies Record<string, UsageKind>);

/** Result of one validator check (seed 004). */
export const ValidationResultSchema = lazyZodSchema((z) =>
  z.object({
    valid: z.boolean(),
    kind: ValidatorKindSchema,
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
);
/** Result of one validator check. */
export type ValidationResult = z.infer<typeof ValidationResultSchema>;

/** Result of hallucination detection (seed 004): confidence 0 = real, 1 = hallucinated. */
export const HallucinationResultSchema = lazyZodSchema((z) =>
  z.object({
    is_hallucinated: z.boolean(),
    confidence: z.number().min(0).max(1),
    reason: z.string(),
    signals: z.record(z.string(), z.unknown()),
  }),
);
/** Result of hallucination detection. */
export type HallucinationResult = z.infer<typeof HallucinationResultSchema>;

/** A tool invocation captured before execution (seed 004 `ToolCall`). Timestamps are ISO 8601 UTC. */
export const ToolCallRecordSchema = lazyZodSchema((z) =>
  z.object({
    call_id: z.string(),
    tool_name: z.string(),
    args: z.array(z.unknown()),
    kwargs: z.record(z.string(), z.unknown()),
    timestamp: entryTimestamp(z),
    session_id: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  }),
);
/** A tool invocation captured before execution. */
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;

/** A completed tool invocation (seed 004 `ToolResult`). */
export const ToolResultRecordSchema = lazyZodSchema((z) =>
  z.object({
    call_id: z.string(),
    tool_name: z.string(),
    status: ToolCallStatusSchema,
    return_value: z.unknown(),
    exception: z.string().nullable(),
    exception_type: z.string().nullable(),
    execution_time_ms: z.number(),
    retry_count: z.number().int().nonnegative(),
    validations: z.array(ValidationResultSchema),
    hallucination: HallucinationResultSchema.nullable(),
    cost: z.number().nullable(),
    timestamp: entryTimestamp(z),
    /** Guard decisions (attempts, backoff, breaker transitions, budget, limiter waits). Not in the seed; optional. */
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
);
/** A completed tool invocation. */
export type ToolResultRecord = z.infer<typeof ToolResultRecordSchema>;

/** A call and its result, as stored in trace files (seed 004 `TraceEntry`). */
export const TraceEntrySchema = lazyZodSchema((z) =>
  z.object({
    call: ToolCallRecordSchema,
    result: ToolResultRecordSchema,
  }),
);
/** A call and its result. */
export type TraceEntry = z.infer<typeof TraceEntrySchema>;

/**
 * Whether a result succeeded (the seed's `result.succeeded`).
 * @param result - a tool result record
 * @returns true when `status` is `success`
 */
export function succeeded(result: Pick<ToolResultRecord, 'status'>): boolean {
  return result.status === 'success';
}

/**
 * Whether a result failed (the seed's `result.failed`): any status but success.
 * @param result - a tool result record
 * @returns true when `status` is not `success`
 */
export function failed(result: Pick<ToolResultRecord, 'status'>): boolean {
  return result.status !== 'success';
}
