import type { TraceError } from '../errors/index.js';
import type { BlockPath, DraftBlock } from './draft-block.js';
import { isPlainObject } from './is-record.js';
import { jsonProblem, maxJsonDepth } from './json-problem.js';
import { parsedText } from './parsed-text.js';
import { describeValue, reportFieldError } from './report-block-error.js';

/**
 * A field a sink will serialise: rejected now when it cannot be written as JSON (a cycle, a
 * BigInt, nesting past {@link maxJsonDepth}; for metadata and extra also keys with a lone
 * surrogate), rather than accepted and then lost in the sink.
 */
export function checkSerialisable(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  field: string,
  value: unknown,
  checkKeys: boolean,
): void {
  const problem = jsonProblem(value, checkKeys);
  if (problem === undefined) return;
  reportFieldError(
    errors,
    draft,
    path,
    field,
    `${field} cannot be written as JSON: ${problem}; pass JSON data (no cycles, BigInt, or nesting deeper than ${maxJsonDepth} levels)`,
  );
}

export function checkObjectField(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  field: 'metadata' | 'extra',
  value: unknown,
): void {
  if (!isPlainObject(value)) {
    reportFieldError(
      errors,
      draft,
      path,
      field,
      `${field} must be a JSON object when present, got ${describeValue(value)}`,
    );
    return;
  }
  if (!parsedText.serialisable) checkSerialisable(errors, draft, path, field, value, true);
}
