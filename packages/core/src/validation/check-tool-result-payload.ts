import type { TraceError } from '../errors/index.js';
import { checkLimitedField } from './check-limited-field.js';
import { checkNonEmptyString } from './check-non-empty-string.js';
import type { BlockPath, DraftBlock } from './draft-block.js';
import { describeValue, reportFieldError } from './report-block-error.js';
import type { BlockLimits } from './types.js';

export function checkToolResultPayload(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  payload: Record<string, unknown>,
  limits: BlockLimits,
): void {
  checkNonEmptyString(
    errors,
    draft,
    path,
    'call_id',
    payload.call_id,
    'the id of the call this result answers',
  );
  const output = payload.output;
  const delta = payload.delta;
  if (output !== undefined && delta !== undefined) {
    reportFieldError(
      errors,
      draft,
      path,
      'output',
      'payload must have exactly one of output and delta, got both; log a full result as output or a streamed piece as delta',
    );
  } else if (output === undefined && delta === undefined) {
    reportFieldError(
      errors,
      draft,
      path,
      'output',
      'payload must have exactly one of output and delta, got neither',
    );
  }
  if (output !== undefined)
    checkLimitedField(errors, draft, path, 'output', output, limits.toolResultBytes);
  if (delta !== undefined)
    checkLimitedField(errors, draft, path, 'delta', delta, limits.toolResultBytes);
  const seq = payload.seq;
  // seed 002 sorts results by "payload.seq (if present, nulls last)": null is "no seq"
  if (
    seq !== undefined &&
    seq !== null &&
    !(typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0)
  ) {
    reportFieldError(
      errors,
      draft,
      path,
      'seq',
      `payload.seq must be a non-negative integer or null when present, got ${describeValue(seq)}`,
    );
  }
}
