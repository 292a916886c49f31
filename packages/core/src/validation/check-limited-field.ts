import { TraceError, type TraceErrorDetails } from '../errors/index.js';
import { isWellFormed } from '../text/is-well-formed.js';
import { jsonByteBound } from '../text/json-byte-bound.js';
import { stringByteLength } from '../text/string-byte-length.js';
import type { BlockPath, DraftBlock } from './draft-block.js';
import { jsonProblem } from './json-problem.js';
import { parsedText } from './parsed-text.js';
import { describeValue, reportError, reportFieldError } from './report-block-error.js';

/**
 * Checks the size (and UTF-8 encodability) of one limited payload field. A string counts its
 * own bytes; anything else the bytes of its JSON form.
 */
export function checkLimitedField(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  field: string,
  value: unknown,
  limit: number,
): void {
  let text: string;
  let isString = true;
  if (typeof value === 'string') {
    text = value;
  } else {
    isString = false;
    // parsed from a short enough text: it fits, encodes and nests shallowly, nothing to count
    if (parsedText.serialisable && parsedText.maxJsonBytes <= limit) return;
    const bound = jsonByteBound(value, 0);
    if (bound >= 0 && bound <= limit) return;
    // JSON.stringify below catches cycles and BigInt, but nesting only past the stack's depth
    const problem = bound < 0 ? jsonProblem(value, false) : undefined;
    if (problem !== undefined) {
      reportFieldError(
        errors,
        draft,
        path,
        field,
        `payload.${field} cannot be serialised as JSON (${problem}); pass JSON data without cycles, BigInt or extreme nesting`,
      );
      return;
    }
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch (cause) {
      // cycles, BigInt, or nesting deeper than the serialiser's stack (RangeError)
      const reason = cause instanceof Error ? cause.message : String(cause);
      reportFieldError(
        errors,
        draft,
        path,
        field,
        `payload.${field} cannot be serialised as JSON (${reason}); pass JSON data without cycles, BigInt or extreme nesting`,
      );
      return;
    }
    if (json === undefined) {
      reportFieldError(
        errors,
        draft,
        path,
        field,
        `payload.${field} is ${describeValue(value)}, which has no JSON form; pass JSON data`,
      );
      return;
    }
    text = json;
  }
  const length = text.length;
  // A string of length L encodes to between L and 3L bytes: count only when the bounds straddle the limit.
  if (length * 3 > limit) {
    const bytes = stringByteLength(text);
    if (bytes > limit) reportTooLarge(errors, draft, path, field, limit, bytes);
  }
  if (isString ? !parsedText.wellFormed && !isWellFormed(text) : hasEscapedLoneSurrogate(text)) {
    reportFieldError(
      errors,
      draft,
      path,
      field,
      `payload.${field} contains a lone UTF-16 surrogate, which cannot be encoded as UTF-8 without loss; fix the text at its source`,
    );
  }
}

/**
 * Whether JSON text holds an escaped lone surrogate. `JSON.stringify` writes a lone surrogate as
 * `\udXXX` and never escapes a valid pair, so such an escape not itself escaped (an odd run of
 * backslashes) means the value held a lone surrogate.
 */
export function hasEscapedLoneSurrogate(json: string): boolean {
  let at = json.indexOf('\\ud');
  while (at !== -1) {
    let backslashes = 1;
    while (at - backslashes >= 0 && json.charCodeAt(at - backslashes) === 92) backslashes++;
    const digit = json.charCodeAt(at + 3);
    // 8-9 or a-f: D800-DFFF
    if (backslashes % 2 === 1 && ((digit >= 56 && digit <= 57) || (digit >= 97 && digit <= 102))) {
      return true;
    }
    at = json.indexOf('\\ud', at + 3);
  }
  return false;
}

export function formatLimit(bytes: number): string {
  if (bytes % 1_048_576 === 0) return `${bytes / 1_048_576}MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024}KB`;
  return `${bytes} bytes`;
}

// scratch for fitsLimit: a draft that only names the field's block for error details
const scratchErrors: TraceError[] = [];

const scratchDraft = { sub_type: 'TOOL_RESULT' } as unknown as DraftBlock;

/**
 * Whether a payload field value passes the byte-limit and encoding rules of
 * `checkLimitedField` (the same code runs, so the two always agree), without building an error
 * when it does. For callers that check a value before building its block.
 * @internal
 */
export function fitsLimit(value: unknown, limit: number): boolean {
  // the list is empty between calls; setting an array's length (even to what it is) costs a
  // runtime call, ~30 ns here, twice per traced call: only when there is something to drop
  if (scratchErrors.length !== 0) scratchErrors.length = 0;
  checkLimitedField(scratchErrors, scratchDraft, undefined, 'output', value, limit);
  if (scratchErrors.length === 0) return true;
  scratchErrors.length = 0;
  return false;
}

/**
 * Reports a payload field over its byte limit, exactly as seed 002 words it: its message and its
 * six details, in its order (`path` is added only in batch validation, to say which block).
 * @internal
 */
export function reportTooLarge(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  field: string,
  limit: number,
  bytes: number,
): void {
  const subType = typeof draft.sub_type === 'string' ? draft.sub_type : 'BLOCK';
  const details: TraceErrorDetails = {
    sub_type: subType,
    field,
    limit_bytes: limit,
    actual_bytes: bytes,
    trace_id: typeof draft.trace_id === 'string' ? draft.trace_id : null,
    parent_block_id: typeof draft.parent_block_id === 'string' ? draft.parent_block_id : null,
  };
  if (path !== undefined) details.path = String(path);
  reportError(
    errors,
    new TraceError({
      code: 'PAYLOAD_TOO_LARGE',
      message: `${subType.toLowerCase()} ${field} exceeds ${formatLimit(limit)} limit`,
      details,
    }),
  );
}

/**
 * The bytes of a payload field that is not measured by name (a string's UTF-8 bytes, else its
 * JSON form's) when they pass `limit`, else `undefined` (a value that cannot be written is
 * reported elsewhere). A bound settles the common case without counting. The tracer's guarded
 * calls check their positional `args` with it too, so both paths agree.
 * @internal
 */
export function bytesOver(value: unknown, limit: number): number | undefined {
  let bytes: number;
  if (typeof value === 'string') {
    if (value.length * 3 <= limit) return undefined;
    bytes = stringByteLength(value);
  } else {
    if (typeof value !== 'object' || value === null) return undefined;
    const bound = jsonByteBound(value, 0);
    if (bound >= 0 && bound <= limit) return undefined;
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch {
      return undefined; // what cannot be written is reported by checkOtherPayloadFields
    }
    if (json === undefined) return undefined;
    bytes = stringByteLength(json);
  }
  return bytes > limit ? bytes : undefined;
}
