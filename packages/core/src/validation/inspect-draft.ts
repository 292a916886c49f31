import type { TraceError } from '../errors/index.js';
import type { BlockType, SubType } from '../model/index.js';
import { isIsoTimestamp } from '../text/is-iso-timestamp.js';
import { isWellFormed } from '../text/is-well-formed.js';
import { checkLimitedField } from './check-limited-field.js';
import { checkMessagePayload } from './check-message-payload.js';
import { checkNonEmptyString } from './check-non-empty-string.js';
import { checkOtherPayloadFields } from './check-other-payload-fields.js';
import { checkObjectField, checkSerialisable } from './check-serialisable.js';
import { checkToolCallPayload } from './check-tool-call-payload.js';
import { checkToolResultPayload } from './check-tool-result-payload.js';
import { type BlockPath, type DraftBlock, emptyObject } from './draft-block.js';
import { isRecord } from './is-record.js';
import { parsedText } from './parsed-text.js';
import { describeValue, reportBlockError, reportFieldError } from './report-block-error.js';
import type { TimestampRange } from './timestamp-range.js';
import type { BlockLimits } from './types.js';

/**
 * The per-block rules applied to a draft in canonical form (see {@link inspectBlock}). The
 * tracer builds its candidates in this form, so they are checked and then frozen in place,
 * without a copy. `metadata` / `extra` equal to the shared empty object count as absent;
 * `givenUpdatedAt` is the `updated_at` as given, checked unless `undefined`; `timestamps` is
 * the caller's {@link TimestampRange} (`isIsoTimestamp` alone when `undefined`).
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
  timestamps: TimestampRange | undefined,
): void {
  const subType = draft.sub_type;
  const parent = draft.parent_block_id;
  const createdAt = draft.created_at;
  const metadata = draft.metadata;
  const extra = draft.extra;
  const payloadIsObject = isRecord(givenPayload);
  const id = draft.id;
  if (typeof id !== 'string' || id === '') {
    reportFieldError(
      errors,
      draft,
      path,
      'id',
      `id must be a non-empty string, got ${describeValue(id)}`,
    );
  } else if (!parsedText.wellFormed && !isWellFormed(id)) {
    reportFieldError(
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
    reportFieldError(
      errors,
      draft,
      path,
      'trace_id',
      'trace_id contains a lone UTF-16 surrogate, which cannot be encoded as UTF-8 without loss; use ASCII ids',
    );
  } else if (typeof draft.trace_id !== 'string' || draft.trace_id === '') {
    reportFieldError(
      errors,
      draft,
      path,
      'trace_id',
      `trace_id must be a non-empty string, got ${describeValue(draft.trace_id)}`,
    );
  }
  if (expectedBlockType === undefined) {
    reportFieldError(
      errors,
      draft,
      path,
      'sub_type',
      `sub_type must be one of MESSAGE, TOOL_CALL, TOOL_RESULT, THINK, got ${describeValue(subType)}`,
    );
  } else if (draft.block_type !== expectedBlockType) {
    reportFieldError(
      errors,
      draft,
      path,
      'block_type',
      `block_type must be ${expectedBlockType} for sub_type ${subType as SubType} (or omitted), got ${describeValue(draft.block_type)}`,
    );
  }
  if (parent !== null && typeof parent !== 'string') {
    reportFieldError(
      errors,
      draft,
      path,
      'parent_block_id',
      `parent_block_id must be a block id string or null, got ${describeValue(parent)}`,
    );
  } else if (subType === 'MESSAGE') {
    if (typeof parent === 'string') {
      reportBlockError(
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
      reportBlockError(
        errors,
        'VALIDATION',
        draft,
        path,
        `a ${subType as SubType} block needs parent_block_id: the id of its ${wanted} block`,
        { field: 'parent_block_id' },
      );
    } else if (parent === id) {
      reportBlockError(
        errors,
        'VALIDATION',
        draft,
        path,
        `parent_block_id refers to the block itself; it must be the id of a ${wanted} block`,
        { field: 'parent_block_id' },
      );
    }
  }
  checkTimestamp(errors, draft, path, 'created_at', createdAt, timestamps);
  if (givenUpdatedAt !== undefined) {
    checkTimestamp(errors, draft, path, 'updated_at', givenUpdatedAt, timestamps);
  }
  if (metadata !== emptyObject) checkObjectField(errors, draft, path, 'metadata', metadata);
  if (extra !== emptyObject) checkObjectField(errors, draft, path, 'extra', extra);

  if (!payloadIsObject) {
    reportFieldError(
      errors,
      draft,
      path,
      'payload',
      `payload must be a JSON object, got ${givenPayload === undefined ? 'nothing' : describeValue(givenPayload)}`,
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
    checkOtherPayloadFields(errors, draft, path, draft.payload, subType, limits);
  }
  const raw = draft.raw;
  if (raw !== null && !parsedText.serialisable)
    checkSerialisable(errors, draft, path, 'raw', raw, false);
}

export function checkTimestamp(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  path: BlockPath,
  field: string,
  value: unknown,
  timestamps: TimestampRange | undefined,
): void {
  if (
    typeof value !== 'string' ||
    !(timestamps === undefined ? isIsoTimestamp(value) : timestamps.accepts(value))
  ) {
    reportFieldError(
      errors,
      draft,
      path,
      field,
      `${field} must be an ISO 8601 timestamp such as "2025-01-31T12:00:00.000Z", got ${describeValue(value)}`,
    );
  }
}
