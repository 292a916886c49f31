import { checkValidationOptions } from './check-validation-options.js';
import { createTraceValidator } from './create-trace-validator.js';
import type { BlockValidator, BlockValidatorOptions } from './types.js';

/**
 * Creates a validator for one trace that enforces every seed 002 rule against the blocks it
 * accepted before: parents must already be accepted (so blocks arrive parents first), call ids
 * are unique per trace, and result `seq`s are unique per call. Results without `seq` never
 * collide with each other.
 *
 * Blocks are checked in place and never changed or frozen. `accept(input)` returns `input`
 * itself when it already is a block in stored form (all eleven fields, as the JSONL sink writes
 * them, and no other enumerable one). Only a block that needs normalising is copied: a field
 * absent (`block_type` derived from `sub_type`, `parent_block_id` `null`, `metadata`/`extra`
 * `{}`, `raw` `null`, `created_at` the current time, `updated_at` = `created_at`) or a field to
 * drop (any other top-level key). The copy holds the given `payload`, `metadata` and `extra`
 * objects. The validator keeps what it returns, typed {@link ReadonlyBlock}: changing it
 * afterwards (its ids above all) breaks the checks of later blocks, so copy it first if you
 * mean to. `acceptLine(line)` parses the text itself and returns the parsed block the same way;
 * it skips the checks the text already proves (no cycles, BigInt or lone surrogates, shallow
 * nesting, a bound on each field's size).
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
  checkValidationOptions('createBlockValidator', options, true);
  return createTraceValidator(options);
}
