import type { TraceError } from '../errors/index.js';
import { formatIsoTimestamp } from '../model/format-iso-timestamp.js';
import { blockTypeOf, knownSubType } from './block-type-of.js';
import { type BlockPath, type DraftBlock, emptyObject } from './draft-block.js';
import { inspectDraft } from './inspect-draft.js';
import { isRecord } from './is-record.js';
import { describeValue, reportBlockError } from './report-block-error.js';
import type { TimestampRange } from './timestamp-range.js';
import type { BlockLimits } from './types.js';

/** The top-level fields of a block in stored form. */
const blockFieldCount = 11;

/**
 * Whether `input` holds no enumerable key besides the eleven fields of a block, given that it
 * has all eleven. A for-in over a parsed object walks its map's cached keys: no array is made.
 */
function hasOnlyBlockFields(input: Record<string, unknown>): boolean {
  let count = 0;
  for (const _ in input) if (++count > blockFieldCount) return false;
  return count === blockFieldCount;
}

/**
 * The per-block rules of seed 002 (shape, block type, parent presence, payload, byte limits),
 * without the rules that need other blocks. Returns the normalised draft, or `undefined` when
 * `input` is not an object at all. Never changes `input`. A block already in stored form (every
 * field present, no other enumerable one) is its own draft and is checked in place; any other
 * is copied into a new draft with the defaults filled in and other fields dropped. `timestamps`
 * checks `created_at` and `updated_at` (see {@link inspectDraft}). In collecting mode (`errors`
 * given) every problem is appended; otherwise the first is thrown.
 *
 * The copy is not only what normalising needs: the rules then read drafts of one shape (one
 * object literal), and a sub type that is this module's literal. Checking every block in place
 * instead, whatever its keys, was slower in one process A/B of bench/validate.bench.ts
 * (`validateBlocks` small blocks x1.60-1.72 against x1.48-1.55, decision 070): the rules' property
 * reads see every shape the input has, and the streaming API, which shares them, slowed too.
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
  const expectedBlockType = knownType === undefined ? undefined : blockTypeOf(knownType);
  const givenPayload = input.payload;
  const givenCreatedAt = input.created_at;
  const updatedAt = input.updated_at;
  const blockType = input.block_type;
  const parent = input.parent_block_id;
  const metadata = input.metadata;
  const raw = input.raw;
  const extra = input.extra;
  let draft: DraftBlock;
  if (
    givenCreatedAt !== undefined &&
    isRecord(givenPayload) &&
    blockType !== undefined &&
    parent !== undefined &&
    metadata !== undefined &&
    raw !== undefined &&
    extra !== undefined &&
    updatedAt !== undefined &&
    hasOnlyBlockFields(input)
  ) {
    // nothing to normalise: checked in place, and the caller's object is what is accepted
    draft = input as unknown as DraftBlock;
  } else {
    // like seed 002's server, an absent created_at is the insertion time
    const createdAt =
      givenCreatedAt === undefined ? formatIsoTimestamp(Date.now()) : givenCreatedAt;
    draft = {
      id: input.id,
      trace_id: input.trace_id,
      block_type: blockType === undefined ? expectedBlockType : blockType,
      sub_type: knownType === undefined ? givenSubType : knownType,
      // the given payload, not a copy: copying costs as much as the rest of the check
      payload: isRecord(givenPayload) ? givenPayload : {},
      parent_block_id: parent ?? null,
      metadata: metadata === undefined ? emptyObject : metadata,
      raw: raw === undefined ? null : raw,
      extra: extra === undefined ? emptyObject : extra,
      created_at: createdAt,
      updated_at: updatedAt ?? createdAt,
    };
  }
  inspectDraft(draft, expectedBlockType, givenPayload, updatedAt, limits, errors, path, timestamps);
  return draft;
}

export { fitsLimit } from './check-limited-field.js';
// The tracer (tracing/create-tracer.ts) imports these from here; they live in their own files.
export { type DraftBlock, emptyObject } from './draft-block.js';
export { isRecord } from './is-record.js';
