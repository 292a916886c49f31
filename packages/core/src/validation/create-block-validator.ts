import { createTraceValidator } from './create-trace-validator.js';
import type { BlockValidator, BlockValidatorOptions } from './types.js';

/**
 * Creates a validator for one trace that enforces every seed 002 rule against the blocks it
 * accepted before: parents must already be accepted (so blocks arrive parents first), call ids
 * are unique per trace, and result `seq`s are unique per call. Results without `seq` never
 * collide with each other.
 *
 * Accepted blocks are normalised (`block_type` derived when omitted, `parent_block_id` `null`,
 * `metadata`/`extra` `{}`, `raw` `null`, `updated_at` = `created_at`, unknown top-level fields
 * dropped) and frozen cheaply: the block is a new frozen object, and the given `payload`,
 * `metadata` and `extra` objects are frozen in place (pass copies if you mean to keep mutating
 * yours). Nested values (arguments, outputs, content parts, raw) are not deep-frozen: treat them
 * as read-only. Given JSON text, `acceptLine` parses it and skips the checks the text already
 * proves (no cycles, BigInt or lone surrogates, shallow nesting, a bound on each field's size).
 *
 * @param options - `limits` to force and the `traceId` this validator holds
 * @returns a {@link BlockValidator}
 * @throws {@link BlockLimitError} when a limit option or `LIMIT_*` variable is malformed
 * @example
 * ```ts
 * const validator = createBlockValidator({ traceId: 'tr_1' });
 * const message = validator.accept({
 *   id: 'tb_1', trace_id: 'tr_1', sub_type: 'MESSAGE', created_at: new Date().toISOString(),
 *   payload: { role: 'user', content: "what's the weather?" },
 * });
 * validator.check({ ...otherBlock }); // TraceError[]; empty when it would be accepted
 * // a line of a JSONL file, parsed and accepted as accept(JSON.parse(line)) would
 * const next = validator.acceptLine(line);
 * ```
 */
export function createBlockValidator(options: BlockValidatorOptions = {}): BlockValidator {
  return createTraceValidator(options);
}
