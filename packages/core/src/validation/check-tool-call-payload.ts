import type { TraceError } from '../errors/index.js';
import { checkLimitedField } from './check-limited-field.js';
import { checkNonEmptyString } from './check-non-empty-string.js';
import type { BlockPath, DraftBlock } from './draft-block.js';
import { isJsonObjectText } from './is-json-object-text.js';
import { isRecord } from './is-record.js';
import { describeValue, reportFieldError } from './report-block-error.js';
import { isValidToolName, maxToolNameLength } from './tool-name.js';
import type { BlockLimits } from './types.js';

export function checkToolCallPayload(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  payload: Record<string, unknown>,
  limits: BlockLimits,
): void {
  checkNonEmptyString(errors, draft, path, 'call_id', payload.call_id, 'the tool call id');
  const name = payload.name;
  if (typeof name === 'string' && !isValidToolName(name)) {
    reportFieldError(
      errors,
      draft,
      path,
      'name',
      `payload.name must be a tool name: 1 to ${maxToolNameLength} characters, not only whitespace, no control characters; got ${describeValue(name)}`,
    );
  } else {
    checkNonEmptyString(errors, draft, path, 'name', name, 'the tool name');
  }
  const args = payload.arguments;
  if (typeof args === 'string') {
    const before = errors === undefined ? 0 : errors.length;
    checkLimitedField(errors, draft, path, 'arguments', args, limits.toolArgumentsBytes);
    // Parse only what fits and encodes: a 100 MB string is rejected by size, not parsed. A valid
    // object text (nearly every one) is recognised without building its value; anything else is
    // parsed, for the exact error.
    if ((errors === undefined || errors.length === before) && !isJsonObjectText(args)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(args);
      } catch {
        reportFieldError(
          errors,
          draft,
          path,
          'arguments',
          'payload.arguments is a string that is not valid JSON; pass a JSON object or its JSON text',
        );
        return;
      }
      if (!isRecord(parsed)) {
        reportFieldError(
          errors,
          draft,
          path,
          'arguments',
          `payload.arguments must be JSON text of an object, got JSON of ${describeValue(parsed)}`,
        );
      }
    }
  } else if (isRecord(args)) {
    checkLimitedField(errors, draft, path, 'arguments', args, limits.toolArgumentsBytes);
  } else {
    reportFieldError(
      errors,
      draft,
      path,
      'arguments',
      `payload.arguments must be a JSON object or the JSON text of one, got ${args === undefined ? 'nothing' : describeValue(args)}`,
    );
  }
}
