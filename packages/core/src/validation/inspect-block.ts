import type { TraceError } from '../errors/index.js';
import { formatIsoTimestamp } from '../model/format-iso-timestamp.js';
import { blockTypeOf, knownSubType } from './block-type-of.js';
import { type BlockPath, type DraftBlock, emptyObject } from './draft-block.js';
import { inspectDraft } from './inspect-draft.js';
import { isRecord } from './is-record.js';
import { describeValue, reportBlockError } from './report-block-error.js';
import type { TimestampRange } from './timestamp-range.js';
import type { BlockLimits } from './types.js';

/**
 * The per-block rules of seed 002 (shape, block type, parent presence, payload, byte limits),
 * without the rules that need other blocks. Returns the normalised draft, or `undefined` when
 * `input` is not an object at all. `timestamps` checks `created_at` and `updated_at` (see
 * {@link inspectDraft}). In collecting mode (`errors` given) every problem is
 * appended; otherwise the first is thrown.
 * @internal
 */
export function inspectBlock(
  input: unknown,
  limits: BlockLimits,
  errors: TraceError[] | undefined,
  path: BlockPath,
  timestamps: TimestampRange | undefined,
): DraftBlock | undefined {
  if (!isRecord(input)) {
    reportBlockError(
      errors,
      'VALIDATION',
      undefined,
      path,
      `must be a JSON object with id, trace_id, sub_type and payload, got ${describeValue(input)}`,
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
  inspectDraft(draft, expectedBlockType, givenPayload, updatedAt, limits, errors, path, timestamps);
  return draft;
}

export { fitsLimit } from './check-limited-field.js';
// The tracer (tracing/create-tracer.ts) imports these from here; they live in their own files.
export { type DraftBlock, emptyObject } from './draft-block.js';
export { isRecord } from './is-record.js';
