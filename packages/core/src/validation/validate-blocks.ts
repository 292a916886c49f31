import { TraceError } from '../errors/index.js';
import { asTraceError } from './as-trace-error.js';
import { BatchIndex } from './batch-index.js';
import { checkValidationOptions } from './check-validation-options.js';
import type { DraftBlock } from './draft-block.js';
import { inspectBlock } from './inspect-block.js';
import { reportCrossBlockErrors } from './report-cross-block-errors.js';
import { resolveBlockLimits } from './resolve-block-limits.js';
import { TimestampRange } from './timestamp-range.js';
import type { ValidateBlocksOptions, ValidationReport } from './types.js';
import { traceIdOption, withTraceId } from './with-trace-id.js';

function isSubType(value: unknown): value is string {
  return (
    value === 'MESSAGE' || value === 'TOOL_CALL' || value === 'TOOL_RESULT' || value === 'THINK'
  );
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function'
  );
}

/** The positions `0, 1, ..., count - 1`. */
function identityPositions(count: number): number[] {
  const positions = new Array<number>(count);
  for (let i = 0; i < count; i++) positions[i] = i;
  return positions;
}

function pathIndex(error: TraceError): number {
  const path = error.details.path;
  return typeof path === 'string' ? Number(path) : -1;
}

/**
 * Validates the blocks of one or many traces, given in any order, against every seed 002 rule
 * and lists every problem instead of stopping at the first. Everything is indexed before parents
 * are checked, so children may come before their parents. Each error's `details.path` is the
 * block's position in `blocks` (`"3"`), with its `block_id`, `trace_id`, `sub_type`, `field` and
 * `parent_block_id` where known; errors are ordered by position.
 *
 * When blocks clash (the same id, the same call id in a trace, the same `seq` for a call), the
 * first by `created_at`, then `id` (then content), is kept and the others are reported, whatever the input
 * order. Results without `seq` never collide. A block with a duplicated id is not counted again
 * for call-id and seq clashes.
 *
 * The blocks are never changed or frozen, and none is kept after the call.
 *
 * @param blocks - candidate blocks (for instance parsed JSONL lines)
 * @param options - `limits` to force
 * @returns `{ ok, errors }`; `ok` is true when `errors` is empty
 * @throws {@link BlockLimitError} when a limit option or `LIMIT_*` variable is malformed
 * @throws {@link TraceError} `VALIDATION` when `blocks` is not iterable (null, a single block)
 * @throws {@link ConfigurationError} `INVALID_OPTIONS` when `options` is not an object or has an
 *   unknown key
 * @example
 * ```ts
 * const report = validateBlocks(lines.map((line) => JSON.parse(line)));
 * for (const error of report.errors) console.error(error.details.path, error.code, error.message);
 * ```
 */
export function validateBlocks(
  blocks: Iterable<unknown>,
  options: ValidateBlocksOptions = {},
): ValidationReport {
  if (!isIterable(blocks))
    throw new TraceError({
      code: 'VALIDATION',
      message: `validateBlocks: blocks must be an array (or any iterable) of blocks, got ${blocks === null ? 'null' : typeof blocks}; pass the candidate blocks, e.g. parsed JSONL lines`,
      details: { path: '' },
    });
  checkValidationOptions('validateBlocks', options, true);
  const limits = resolveBlockLimits(options.limits);
  const traceId = traceIdOption('validateBlocks', options.traceId);
  const errors: TraceError[] = [];
  // The drafts with a readable identity, and their positions in the input. Until a block is
  // left out, each draft's position is its index in `drafts`, so the positions are written only
  // from the first block left out on: nearly every batch then writes none (one push less per
  // block, for positions that only the exact cross-block pass reads).
  const drafts: DraftBlock[] = [];
  let positions: number[] | undefined;
  const index = new BatchIndex();
  const timestamps = new TimestampRange();

  let position = 0;
  for (const input of blocks) {
    let draft: DraftBlock | undefined;
    try {
      // the position is formatted only when an error names it
      draft = inspectBlock(withTraceId(input, traceId), limits, errors, position, timestamps);
    } catch (error) {
      errors.push(asTraceError(error, String(position)));
      draft = undefined;
    }
    // a block with a readable identity takes part in the cross-block rules even when its own
    // payload is invalid, so its children are not reported as orphans too
    if (
      draft !== undefined &&
      typeof draft.id === 'string' &&
      draft.id !== '' &&
      typeof draft.trace_id === 'string' &&
      draft.trace_id !== '' &&
      isSubType(draft.sub_type)
    ) {
      drafts.push(draft);
      positions?.push(position);
      index.add(draft);
    } else if (positions === undefined) {
      positions = identityPositions(drafts.length);
    }
    position++;
  }
  index.settle(drafts);
  // nearly every batch has no clash at all: only then are the exact cross-block rules needed
  if (index.mayClash) {
    reportCrossBlockErrors(drafts, positions ?? identityPositions(drafts.length), errors);
    // stable: per-block problems stay before cross-block ones at the same position
    errors.sort((a, b) => pathIndex(a) - pathIndex(b));
  }
  return { ok: errors.length === 0, errors };
}
