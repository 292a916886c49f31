import { describe, expectTypeOf, it } from 'vitest';
import type { DatasetError, DatasetErrorCode } from '../datasets/index.js';
import {
  BudgetExceededError,
  type CircuitOpenError,
  GuardError,
  type GuardErrorCode,
  type GuardTimeoutError,
  type HallucinationError,
  type InvalidCostError,
  type RateLimitedError,
  type ValidationFailedError,
} from '../guards/index.js';
import type { PolicyError, PolicyErrorCode, PolicyViolationError } from '../policy/index.js';
import type { UnknownModelPriceError } from '../pricing/index.js';
import { SinkError, type SinkErrorCode } from '../sinks/index.js';
import type { TracerClosedError, TracerFlushError } from '../tracing/index.js';
import type { BlockLimitError } from '../validation/index.js';
import {
  type ConfigurationError,
  type ConfigurationErrorCode,
  TraceError,
  type TraceErrorCode,
  TracewardenError,
} from './index.js';

describe('error codes are typed per class', () => {
  it('gives each class its own union of codes', () => {
    expectTypeOf<TracewardenError['code']>().toEqualTypeOf<string>();
    expectTypeOf<ConfigurationError['code']>().toEqualTypeOf<ConfigurationErrorCode>();
    expectTypeOf<ConfigurationErrorCode>().toEqualTypeOf<'INVALID_OPTIONS'>();
    expectTypeOf<TraceError['code']>().toEqualTypeOf<TraceErrorCode>();
    expectTypeOf<TraceErrorCode>().toEqualTypeOf<
      | 'VALIDATION'
      | 'PAYLOAD_TOO_LARGE'
      | 'PARENT_SUBTYPE_MISMATCH'
      | 'DUPLICATE_CALL_ID'
      | 'DUPLICATE_RESULT_SEQ'
    >();
    expectTypeOf<SinkError['code']>().toEqualTypeOf<SinkErrorCode>();
    expectTypeOf<PolicyError['code']>().toEqualTypeOf<PolicyErrorCode>();
    expectTypeOf<DatasetError['code']>().toEqualTypeOf<DatasetErrorCode>();
    expectTypeOf<GuardError['code']>().toEqualTypeOf<GuardErrorCode>();
    expectTypeOf<TracerFlushError['code']>().toEqualTypeOf<'TRACER_FLUSH_FAILED'>();
    expectTypeOf<TracerClosedError['code']>().toEqualTypeOf<'TRACER_CLOSED'>();
    expectTypeOf<PolicyViolationError['code']>().toEqualTypeOf<'POLICY_VIOLATION'>();
    expectTypeOf<BlockLimitError['code']>().toEqualTypeOf<'INVALID_BLOCK_LIMIT'>();
    expectTypeOf<UnknownModelPriceError['code']>().toEqualTypeOf<'UNKNOWN_MODEL_PRICE'>();
    expectTypeOf<InvalidCostError['code']>().toEqualTypeOf<'INVALID_COST'>();
  });

  it('narrows each guard error to its one code, within the guard union', () => {
    expectTypeOf<GuardTimeoutError['code']>().toEqualTypeOf<'TIMEOUT'>();
    expectTypeOf<CircuitOpenError['code']>().toEqualTypeOf<'CIRCUIT_OPEN'>();
    expectTypeOf<BudgetExceededError['code']>().toEqualTypeOf<'BUDGET_EXCEEDED'>();
    expectTypeOf<RateLimitedError['code']>().toEqualTypeOf<'RATE_LIMITED'>();
    expectTypeOf<ValidationFailedError['code']>().toEqualTypeOf<'VALIDATION_FAILED'>();
    expectTypeOf<HallucinationError['code']>().toEqualTypeOf<'HALLUCINATED'>();
    expectTypeOf<BudgetExceededError['code']>().toExtend<GuardErrorCode>();
  });

  it('narrows an unknown thrown value through isInstance', () => {
    const error: unknown = undefined;
    if (BudgetExceededError.isInstance(error)) {
      expectTypeOf(error).toEqualTypeOf<BudgetExceededError>();
      expectTypeOf(error.code).toEqualTypeOf<'BUDGET_EXCEEDED'>();
    }
    if (GuardError.isInstance(error)) expectTypeOf(error.code).toEqualTypeOf<GuardErrorCode>();
    if (SinkError.isInstance(error)) expectTypeOf(error.code).toEqualTypeOf<SinkErrorCode>();
    if (TraceError.isInstance(error)) expectTypeOf(error.code).toEqualTypeOf<TraceErrorCode>();
    if (TracewardenError.isInstance(error)) expectTypeOf(error.code).toEqualTypeOf<string>();
  });
});
