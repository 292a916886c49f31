import type { TraceError } from '../errors/index.js';
import { asTraceError } from './as-trace-error.js';
import { checkValidationOptions } from './check-validation-options.js';
import { inspectBlock } from './inspect-block.js';
import { resolveBlockLimits } from './resolve-block-limits.js';
import type { ValidateBlocksOptions } from './types.js';
import { traceIdOption, withTraceId } from './with-trace-id.js';

/**
 * Checks one block on its own: shape, `block_type`, whether it has (or, for a MESSAGE, lacks)
 * a parent, payload and byte limits; every rule except those that need other blocks (parent
 * existence and sub type, duplicate ids, call ids and seqs). Lists every problem.
 *
 * @param input - a candidate block
 * @param options - `limits` to force
 * @returns the problems found; empty when the block is valid on its own
 * @throws {@link BlockLimitError} when a limit option or `LIMIT_*` variable is malformed
 * @example
 * ```ts
 * checkBlock({ id: 'tb_1', trace_id: 'tr_1', sub_type: 'THINK', parent_block_id: 'tb_0',
 *   created_at: '2025-01-31T12:00:00Z', payload: { text: '' } });
 * // [TraceError VALIDATION: payload.text must be a non-empty string ...]
 * ```
 */
export function checkBlock(input: unknown, options: ValidateBlocksOptions = {}): TraceError[] {
  checkValidationOptions('checkBlock', options, true);
  const limits = resolveBlockLimits(options.limits);
  const errors: TraceError[] = [];
  try {
    inspectBlock(
      withTraceId(input, traceIdOption('checkBlock', options.traceId)),
      limits,
      errors,
      undefined,
      undefined,
    );
  } catch (error) {
    errors.push(asTraceError(error, undefined));
  }
  return errors;
}
