import { TraceError, type TraceErrorCode, type TraceErrorDetails } from '../errors/index.js';
import { formatIsoTimestamp } from '../model/format-iso-timestamp.js';
import type { Block, BlockType, SubType } from '../model/index.js';
import { isIsoTimestamp } from '../text/is-iso-timestamp.js';
import { isWellFormed } from '../text/is-well-formed.js';
import { jsonByteBound } from '../text/json-byte-bound.js';
import { stringByteLength } from '../text/string-byte-length.js';
import { isJsonObjectText } from './is-json-object-text.js';
import { jsonProblem, maxJsonDepth } from './json-problem.js';
import { parsedText } from './parsed-text.js';
import type { BlockLimits } from './types.js';

/**
 * A block read from input, with defaults filled in and the payload copied. Fields hold whatever
 * was given, so they are only trustworthy once {@link inspectBlock} reported no error.
 * @internal
 */
export interface DraftBlock {
  id: unknown;
  trace_id: unknown;
  block_type: unknown;
  sub_type: unknown;
  payload: Record<string, unknown>;
  parent_block_id: unknown;
  metadata: unknown;
  raw: unknown;
  extra: unknown;
  created_at: unknown;
  updated_at: unknown;
}

/**
 * Where a block is in a batch (its index, formatted only when an error names it), or
 * `undefined` for a block validated on its own.
 * @internal
 */
export type BlockPath = string | number | undefined;

/**
 * Shared default for `metadata` and `extra`: frozen, so sharing it between blocks is safe.
 * @internal
 */
export const emptyObject: Record<string, unknown> = Object.freeze({});

/**
 * The `block_type` a `sub_type` implies, or `undefined` for an unknown sub type.
 * @internal
 */
export function blockTypeOf(subType: unknown): BlockType | undefined {
  switch (subType) {
    case 'MESSAGE':
      return 'MESSAGE';
    case 'TOOL_CALL':
    case 'THINK':
      return 'ACT';
    case 'TOOL_RESULT':
      return 'OBSERVE';
    default:
      return undefined;
  }
}

/**
 * The sub type as the literal this module holds, or `undefined` for an unknown one. A parsed
 * `"TOOL_RESULT"` (longer than the short values JSON.parse internalises) is a fresh string, so
 * every later comparison with it would compare characters; the literal compares by identity.
 */
function knownSubType(value: unknown): SubType | undefined {
  switch (value) {
    case 'MESSAGE':
      return 'MESSAGE';
    case 'TOOL_CALL':
      return 'TOOL_CALL';
    case 'THINK':
      return 'THINK';
    case 'TOOL_RESULT':
      return 'TOOL_RESULT';
    default:
      return undefined;
  }
}

/**
 * Whether JSON text holds an escaped lone surrogate. `JSON.stringify` writes a lone surrogate as
 * `\udXXX` and never escapes a valid pair, so such an escape not itself escaped (an odd run of
 * backslashes) means the value held a lone surrogate.
 */
function hasEscapedLoneSurrogate(json: string): boolean {
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

/** Whether a value is a plain object (not null, not an array, Object or null prototype). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Whether a value is an object other than null or an array. @internal */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    return value.length > 40 ? `a string of length ${value.length}` : JSON.stringify(value);
  }
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `a ${typeof value}`;
}

function formatLimit(bytes: number): string {
  if (bytes % 1_048_576 === 0) return `${bytes / 1_048_576}MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024}KB`;
  return `${bytes} bytes`;
}

/**
 * Collects or throws: with a list, errors are appended so every problem is found; without one,
 * the first error is thrown (the accept path allocates nothing unless something is wrong).
 * @internal
 */
export function report(errors: TraceError[] | undefined, error: TraceError): void {
  if (errors === undefined) throw error;
  errors.push(error);
}

/**
 * Details every error about a block carries, from whatever identifying fields are valid.
 * @internal
 */
function baseDetails(draft: DraftBlock | undefined, path: BlockPath): TraceErrorDetails {
  const details: TraceErrorDetails = {};
  if (path !== undefined) details.path = String(path);
  if (draft === undefined) return details;
  if (typeof draft.sub_type === 'string') details.sub_type = draft.sub_type;
  if (typeof draft.trace_id === 'string') details.trace_id = draft.trace_id;
  if (typeof draft.parent_block_id === 'string' || draft.parent_block_id === null) {
    details.parent_block_id = draft.parent_block_id;
  }
  if (typeof draft.id === 'string') details.block_id = draft.id;
  return details;
}

/** How a block is named in messages: its index in a batch, and its id when it has one. @internal */
function blockLabel(draft: DraftBlock | undefined, path: BlockPath): string {
  const id =
    draft !== undefined && typeof draft.id === 'string' && draft.id !== '' ? draft.id : undefined;
  if (path !== undefined) return id === undefined ? `block ${path}` : `block ${path} (${id})`;
  return id === undefined ? 'block' : `block ${id}`;
}

/** Reports an error about a block, with the base details plus `extra`. @internal */
export function fail(
  errors: TraceError[] | undefined,
  code: TraceErrorCode,
  draft: DraftBlock | undefined,
  path: BlockPath,
  message: string,
  extra: TraceErrorDetails,
): void {
  const details = baseDetails(draft, path);
  for (const key of Object.keys(extra)) details[key] = extra[key];
  report(
    errors,
    new TraceError({ code, message: `${blockLabel(draft, path)}: ${message}`, details }),
  );
}

function failField(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  field: string,
  message: string,
): void {
  fail(errors, 'VALIDATION', draft, path, message, { field });
}

/**
 * Checks the size (and UTF-8 encodability) of one limited payload field. A string counts its
 * own bytes; anything else the bytes of its JSON form.
 */
function checkLimitedField(
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
      failField(
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
      failField(
        errors,
        draft,
        path,
        field,
        `payload.${field} cannot be serialised as JSON (${reason}); pass JSON data without cycles, BigInt or extreme nesting`,
      );
      return;
    }
    if (json === undefined) {
      failField(
        errors,
        draft,
        path,
        field,
        `payload.${field} is ${describe(value)}, which has no JSON form; pass JSON data`,
      );
      return;
    }
    text = json;
  }
  const length = text.length;
  // A string of length L encodes to between L and 3L bytes: count only when the bounds straddle the limit.
  if (length * 3 > limit) {
    const bytes = stringByteLength(text);
    if (bytes > limit) {
      // exactly the seed's body: its message and its six details, in its order (path is added
      // only in batch validation, to say which block)
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
      report(
        errors,
        new TraceError({
          code: 'PAYLOAD_TOO_LARGE',
          message: `${subType.toLowerCase()} ${field} exceeds ${formatLimit(limit)} limit`,
          details,
        }),
      );
    }
  }
  if (isString ? !parsedText.wellFormed && !isWellFormed(text) : hasEscapedLoneSurrogate(text)) {
    failField(
      errors,
      draft,
      path,
      field,
      `payload.${field} contains a lone UTF-16 surrogate, which cannot be encoded as UTF-8 without loss; fix the text at its source`,
    );
  }
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

function checkNonEmptyString(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  field: string,
  value: unknown,
  what: string,
): void {
  if (typeof value !== 'string' || value === '') {
    failField(
      errors,
      draft,
      path,
      field,
      `payload.${field} must be a non-empty string (${what}), got ${describe(value)}`,
    );
  }
}

function checkMessagePayload(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  payload: Record<string, unknown>,
  limits: BlockLimits,
): void {
  const role = payload.role;
  if (role !== 'system' && role !== 'user' && role !== 'assistant') {
    failField(
      errors,
      draft,
      path,
      'role',
      `payload.role must be one of system, user, assistant, got ${describe(role)}`,
    );
  }
  // Assistant turns that only carry tool calls have no content (decision 001).
  const mayBeEmpty = role === 'assistant';
  const content = payload.content;
  if (typeof content === 'string') {
    if (content === '' && !mayBeEmpty) {
      failField(
        errors,
        draft,
        path,
        'content',
        'payload.content must not be empty for a system or user message',
      );
    }
    checkLimitedField(errors, draft, path, 'content', content, limits.messageBytes);
  } else if (Array.isArray(content)) {
    if (content.length === 0 && !mayBeEmpty) {
      failField(
        errors,
        draft,
        path,
        'content',
        'payload.content must not be an empty list for a system or user message',
      );
    }
    for (let i = 0; i < content.length; i++) {
      const part: unknown = content[i];
      if (!isRecord(part) || typeof part.type !== 'string') {
        failField(
          errors,
          draft,
          path,
          `content.${i}`,
          `payload.content[${i}] must be a content part object with a string "type", got ${describe(part)}`,
        );
      }
    }
    checkLimitedField(errors, draft, path, 'content', content, limits.messageBytes);
  } else if (content === null || content === undefined) {
    if (!mayBeEmpty) {
      failField(
        errors,
        draft,
        path,
        'content',
        'payload.content is required for a system or user message (only assistant messages may have no content)',
      );
    }
  } else {
    failField(
      errors,
      draft,
      path,
      'content',
      `payload.content must be a string, a list of content parts or null, got ${describe(content)}`,
    );
  }
}

function checkToolCallPayload(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  payload: Record<string, unknown>,
  limits: BlockLimits,
): void {
  checkNonEmptyString(errors, draft, path, 'call_id', payload.call_id, 'the tool call id');
  checkNonEmptyString(errors, draft, path, 'name', payload.name, 'the tool name');
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
        failField(
          errors,
          draft,
          path,
          'arguments',
          'payload.arguments is a string that is not valid JSON; pass a JSON object or its JSON text',
        );
        return;
      }
      if (!isRecord(parsed)) {
        failField(
          errors,
          draft,
          path,
          'arguments',
          `payload.arguments must be JSON text of an object, got JSON of ${describe(parsed)}`,
        );
      }
    }
  } else if (isRecord(args)) {
    checkLimitedField(errors, draft, path, 'arguments', args, limits.toolArgumentsBytes);
  } else {
    failField(
      errors,
      draft,
      path,
      'arguments',
      `payload.arguments must be a JSON object or the JSON text of one, got ${args === undefined ? 'nothing' : describe(args)}`,
    );
  }
}

function checkToolResultPayload(
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
    failField(
      errors,
      draft,
      path,
      'output',
      'payload must have exactly one of output and delta, got both; log a full result as output or a streamed piece as delta',
    );
  } else if (output === undefined && delta === undefined) {
    failField(
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
  if (seq !== undefined && !(typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0)) {
    failField(
      errors,
      draft,
      path,
      'seq',
      `payload.seq must be a non-negative integer when present, got ${describe(seq)}`,
    );
  }
}

function checkTimestamp(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  field: string,
  value: unknown,
): void {
  if (typeof value !== 'string' || !isIsoTimestamp(value)) {
    failField(
      errors,
      draft,
      path,
      field,
      `${field} must be an ISO 8601 timestamp such as "2025-01-31T12:00:00.000Z", got ${describe(value)}`,
    );
  }
}

function checkObjectField(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  field: 'metadata' | 'extra',
  value: unknown,
): void {
  if (!isPlainObject(value)) {
    failField(
      errors,
      draft,
      path,
      field,
      `${field} must be a JSON object when present, got ${describe(value)}`,
    );
    return;
  }
  if (!parsedText.serialisable) checkSerialisable(errors, draft, path, field, value, true);
}

/**
 * The per-block rules of seed 002 (shape, block type, parent presence, payload, byte limits),
 * without the rules that need other blocks. Returns the normalised draft, or `undefined` when
 * `input` is not an object at all. In collecting mode (`errors` given) every problem is
 * appended; otherwise the first is thrown.
 * @internal
 */
export function inspectBlock(
  input: unknown,
  limits: BlockLimits,
  errors: TraceError[] | undefined,
  path: BlockPath,
): DraftBlock | undefined {
  if (!isRecord(input)) {
    fail(
      errors,
      'VALIDATION',
      undefined,
      path,
      `must be a JSON object with id, trace_id, sub_type and payload, got ${describe(input)}`,
      {},
    );
    return undefined;
  }
  const givenSubType = input.sub_type;
  const knownType = knownSubType(givenSubType);
  const subType = knownType === undefined ? givenSubType : knownType;
  const expectedBlockType = knownType === undefined ? undefined : blockTypeOf(knownType);
  const givenPayload = input.payload;
  // like seed 002's server, an absent created_at is the insertion time
  const createdAt =
    input.created_at === undefined ? formatIsoTimestamp(Date.now()) : input.created_at;
  const updatedAt = input.updated_at;
  const raw = input.raw;
  const blockType = input.block_type;
  const metadata = input.metadata;
  const extra = input.extra;
  const parent = input.parent_block_id;
  const draft: DraftBlock = {
    id: input.id,
    trace_id: input.trace_id,
    block_type: blockType === undefined ? expectedBlockType : blockType,
    sub_type: subType,
    // kept (and later frozen) in place: copying costs as much as the rest of the check
    payload: isRecord(givenPayload) ? givenPayload : {},
    parent_block_id: parent ?? null,
    metadata: metadata === undefined ? emptyObject : metadata,
    raw: raw === undefined ? null : raw,
    extra: extra === undefined ? emptyObject : extra,
    created_at: createdAt,
    updated_at: updatedAt ?? createdAt,
  };
  inspectDraft(draft, expectedBlockType, givenPayload, updatedAt, limits, errors, path);
  return draft;
}

/**
 * The per-block rules applied to a draft in canonical form (see {@link inspectBlock}). The
 * tracer builds its candidates in this form, so they are checked and then frozen in place,
 * without a copy. `metadata` / `extra` equal to the shared empty object count as absent;
 * `givenUpdatedAt` is the `updated_at` as given, checked unless `undefined`.
 * @internal
 */
export function inspectDraft(
  draft: DraftBlock,
  expectedBlockType: BlockType | undefined,
  givenPayload: unknown,
  givenUpdatedAt: unknown,
  limits: BlockLimits,
  errors: TraceError[] | undefined,
  path: BlockPath,
): void {
  const subType = draft.sub_type;
  const parent = draft.parent_block_id;
  const createdAt = draft.created_at;
  const metadata = draft.metadata;
  const extra = draft.extra;
  const payloadIsObject = isRecord(givenPayload);
  const id = draft.id;
  if (typeof id !== 'string' || id === '') {
    failField(errors, draft, path, 'id', `id must be a non-empty string, got ${describe(id)}`);
  } else if (!parsedText.wellFormed && !isWellFormed(id)) {
    failField(
      errors,
      draft,
      path,
      'id',
      'id contains a lone UTF-16 surrogate, which cannot be encoded as UTF-8 without loss; use ASCII ids',
    );
  }
  if (
    typeof draft.trace_id === 'string' &&
    !parsedText.wellFormed &&
    !isWellFormed(draft.trace_id)
  ) {
    failField(
      errors,
      draft,
      path,
      'trace_id',
      'trace_id contains a lone UTF-16 surrogate, which cannot be encoded as UTF-8 without loss; use ASCII ids',
    );
  } else if (typeof draft.trace_id !== 'string' || draft.trace_id === '') {
    failField(
      errors,
      draft,
      path,
      'trace_id',
      `trace_id must be a non-empty string, got ${describe(draft.trace_id)}`,
    );
  }
  if (expectedBlockType === undefined) {
    failField(
      errors,
      draft,
      path,
      'sub_type',
      `sub_type must be one of MESSAGE, TOOL_CALL, TOOL_RESULT, THINK, got ${describe(subType)}`,
    );
  } else if (draft.block_type !== expectedBlockType) {
    failField(
      errors,
      draft,
      path,
      'block_type',
      `block_type must be ${expectedBlockType} for sub_type ${subType as SubType} (or omitted), got ${describe(draft.block_type)}`,
    );
  }
  if (parent !== null && typeof parent !== 'string') {
    failField(
      errors,
      draft,
      path,
      'parent_block_id',
      `parent_block_id must be a block id string or null, got ${describe(parent)}`,
    );
  } else if (subType === 'MESSAGE') {
    if (typeof parent === 'string') {
      fail(
        errors,
        'VALIDATION',
        draft,
        path,
        'a MESSAGE block is a root and must not have a parent_block_id; remove it',
        { field: 'parent_block_id' },
      );
    }
  } else if (expectedBlockType !== undefined) {
    const wanted = subType === 'TOOL_RESULT' ? 'TOOL_CALL' : 'MESSAGE';
    if (typeof parent !== 'string') {
      fail(
        errors,
        'VALIDATION',
        draft,
        path,
        `a ${subType as SubType} block needs parent_block_id: the id of its ${wanted} block`,
        { field: 'parent_block_id' },
      );
    } else if (parent === id) {
      fail(
        errors,
        'VALIDATION',
        draft,
        path,
        `parent_block_id refers to the block itself; it must be the id of a ${wanted} block`,
        { field: 'parent_block_id' },
      );
    }
  }
  checkTimestamp(errors, draft, path, 'created_at', createdAt);
  if (givenUpdatedAt !== undefined) {
    checkTimestamp(errors, draft, path, 'updated_at', givenUpdatedAt);
  }
  if (metadata !== emptyObject) checkObjectField(errors, draft, path, 'metadata', metadata);
  if (extra !== emptyObject) checkObjectField(errors, draft, path, 'extra', extra);

  if (!payloadIsObject) {
    failField(
      errors,
      draft,
      path,
      'payload',
      `payload must be a JSON object, got ${givenPayload === undefined ? 'nothing' : describe(givenPayload)}`,
    );
  } else {
    switch (subType) {
      case 'MESSAGE':
        checkMessagePayload(errors, draft, path, draft.payload, limits);
        break;
      case 'TOOL_CALL':
        checkToolCallPayload(errors, draft, path, draft.payload, limits);
        break;
      case 'THINK': {
        const text = draft.payload.text;
        checkNonEmptyString(errors, draft, path, 'text', text, 'the reasoning text');
        if (typeof text === 'string')
          checkLimitedField(errors, draft, path, 'text', text, limits.thinkBytes);
        break;
      }
      case 'TOOL_RESULT':
        checkToolResultPayload(errors, draft, path, draft.payload, limits);
        break;
    }
    if (!parsedText.serialisable)
      checkOtherPayloadFields(errors, draft, path, draft.payload, subType);
  }
  const raw = draft.raw;
  if (raw !== null && !parsedText.serialisable)
    checkSerialisable(errors, draft, path, 'raw', raw, false);
}

/** The payload field each sub type checks by size (and so already for its JSON form). */
function limitedFieldOf(subType: unknown): string | undefined {
  switch (subType) {
    case 'MESSAGE':
      return 'content';
    case 'TOOL_CALL':
      return 'arguments';
    case 'THINK':
      return 'text';
    default:
      return undefined;
  }
}

/**
 * Every payload field not checked by size (`name`, a tool call's positional `args`, fields a
 * client adds) must be writable as JSON too: a sink serialises the whole block.
 */
function checkOtherPayloadFields(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  payload: Record<string, unknown>,
  subType: unknown,
): void {
  const limited = limitedFieldOf(subType);
  const isResult = subType === 'TOOL_RESULT';
  for (const key in payload) {
    if (key === limited || (isResult && (key === 'output' || key === 'delta'))) continue;
    const value = payload[key];
    if (typeof value === 'object' || typeof value === 'bigint')
      checkSerialisable(errors, draft, path, `payload.${key}`, value, false);
  }
}

/**
 * A field a sink will serialise: rejected now when it cannot be written as JSON (a cycle, a
 * BigInt, nesting past {@link maxJsonDepth}; for metadata and extra also keys with a lone
 * surrogate), rather than accepted and then lost in the sink.
 */
function checkSerialisable(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  field: string,
  value: unknown,
  checkKeys: boolean,
): void {
  const problem = jsonProblem(value, checkKeys);
  if (problem === undefined) return;
  failField(
    errors,
    draft,
    path,
    field,
    `${field} cannot be written as JSON: ${problem}; pass JSON data (no cycles, BigInt, or nesting deeper than ${maxJsonDepth} levels)`,
  );
}

/**
 * Freezes a draft that passed every rule and returns it as a block. The block object is new;
 * its payload, metadata and extra are the given objects, frozen in place (a copy would cost as
 * much as the whole check). Nested values (arguments, outputs, content parts, raw) are not
 * deep-frozen, which would walk every value on the hot path.
 * @internal
 */
export function freezeBlock(draft: DraftBlock): Block {
  Object.freeze(draft.payload);
  if (draft.metadata !== emptyObject) Object.freeze(draft.metadata);
  if (draft.extra !== emptyObject) Object.freeze(draft.extra);
  return Object.freeze(draft) as unknown as Block;
}
