import type { TraceError } from '../errors/index.js';
import type { BlockPath, DraftBlock } from './draft-block.js';
import { describeValue, reportFieldError } from './report-block-error.js';

export function checkNonEmptyString(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  field: string,
  value: unknown,
  what: string,
): void {
  if (typeof value !== 'string' || value === '') {
    reportFieldError(
      errors,
      draft,
      path,
      field,
      `payload.${field} must be a non-empty string (${what}), got ${describeValue(value)}`,
    );
  }
}
