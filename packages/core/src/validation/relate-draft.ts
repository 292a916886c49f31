import type { TraceError } from '../errors/index.js';
import type { Block, ToolCallBlock } from '../model/index.js';
import type { DraftBlock } from './draft-block.js';
import { reportBlockError } from './report-block-error.js';

/** What {@link relateDraft} reads of a validator's state (`TraceState`). @internal */
export interface RelatedBlocks {
  readonly traceId: string | undefined;
  readonly maxId: string;
  /** The accepted (or entered) TOOL_CALL with this call id. */
  toolCall(callId: string): ToolCallBlock | undefined;
  readonly resultSeqs: ReadonlyMap<string, number | Set<number>>;
  /** The id index, brought up to date. */
  index(): Map<string, Block>;
  /** The accepted (or entered) block with this id; `pending` drafts were entered in this batch. */
  find(
    id: string,
    pending: readonly DraftBlock[] | undefined,
    pendingCount: number,
  ): Block | undefined;
}

/**
 * The rules a draft must meet against what a validator accepted before (and the drafts of its
 * batch entered before it, `pending`): the trace it holds, a new id, an accepted parent of the
 * wanted sub type answering the same call, a new call id, a new result seq. With
 * `deferUnique`, the id and call id are left to `TraceState.enterUnique`, which checks them
 * while inserting.
 * @internal
 */
export function relateDraft(
  state: RelatedBlocks,
  draft: DraftBlock,
  errors: TraceError[] | undefined,
  pending: readonly DraftBlock[] | undefined,
  pendingCount: number,
  deferUnique: boolean,
): void {
  const id = draft.id;
  const trace = draft.trace_id;
  const subType = draft.sub_type;
  const payload = draft.payload;
  const heldTrace =
    state.traceId ??
    (pending === undefined || pendingCount === 0 ? undefined : pending[0]?.trace_id);
  if (heldTrace !== undefined && typeof trace === 'string' && trace !== heldTrace) {
    reportBlockError(
      errors,
      'VALIDATION',
      draft,
      undefined,
      `belongs to trace ${trace}, but this validator holds trace ${String(heldTrace)}; validate each trace with its own validator, or use validateBlocks`,
      { field: 'trace_id' },
    );
  }
  if (
    !deferUnique &&
    typeof id === 'string' &&
    ((id <= state.maxId && state.index().has(id)) ||
      anyPending(pending, pendingCount, (other) => other.id === id))
  ) {
    failDuplicateId(errors, draft, id);
  }
  const parentId = draft.parent_block_id;
  const wanted =
    subType === 'TOOL_RESULT'
      ? 'TOOL_CALL'
      : subType === 'TOOL_CALL' || subType === 'THINK'
        ? 'MESSAGE'
        : undefined;
  if (wanted !== undefined && typeof parentId === 'string' && parentId !== id) {
    const parent = state.find(parentId, pending, pendingCount);
    if (parent === undefined) {
      reportBlockError(
        errors,
        'VALIDATION',
        draft,
        undefined,
        `parent_block_id ${parentId} is not a block of this trace accepted before; log the parent ${wanted} block first`,
        { field: 'parent_block_id' },
      );
    } else if (parent.sub_type !== wanted) {
      reportBlockError(
        errors,
        'PARENT_SUBTYPE_MISMATCH',
        draft,
        undefined,
        `a ${subType as string} block's parent must be a ${wanted} block, but ${parentId} is a ${parent.sub_type}`,
        { field: 'parent_block_id', parent_sub_type: parent.sub_type },
      );
    } else if (
      subType === 'TOOL_RESULT' &&
      typeof payload.call_id === 'string' &&
      payload.call_id !== parent.payload.call_id
    ) {
      reportBlockError(
        errors,
        'VALIDATION',
        draft,
        undefined,
        `payload.call_id ${payload.call_id} does not match call_id ${String(parent.payload.call_id)} of its parent TOOL_CALL ${parentId}; a result must answer its parent call`,
        { field: 'call_id', call_id: payload.call_id },
      );
    }
  }
  // only calls and results have call ids to check: reading `call_id` off every payload shape
  // would make the load megamorphic
  const callId = subType === 'TOOL_CALL' || subType === 'TOOL_RESULT' ? payload.call_id : undefined;
  if (typeof callId === 'string') {
    if (
      subType === 'TOOL_CALL' &&
      !deferUnique &&
      (state.toolCall(callId) !== undefined ||
        anyPending(
          pending,
          pendingCount,
          (other) => other.sub_type === 'TOOL_CALL' && other.payload.call_id === callId,
        ))
    ) {
      failDuplicateCallId(errors, draft, callId);
    } else if (subType === 'TOOL_RESULT') {
      const seq = payload.seq;
      if (
        typeof seq === 'number' &&
        (hasSeq(state.resultSeqs.get(callId), seq) ||
          anyPending(
            pending,
            pendingCount,
            (other) =>
              other.sub_type === 'TOOL_RESULT' &&
              other.payload.call_id === callId &&
              other.payload.seq === seq,
          ))
      ) {
        reportBlockError(
          errors,
          'DUPLICATE_RESULT_SEQ',
          draft,
          undefined,
          `call ${callId} already has a TOOL_RESULT with seq ${seq}; number each streamed piece once`,
          { field: 'seq', call_id: callId, seq },
        );
      }
    }
  }
}
export function hasSeq(seqs: number | Set<number> | undefined, seq: number): boolean {
  return typeof seqs === 'number' ? seqs === seq : seqs?.has(seq) === true;
}

/** Whether one of the first `count` pending drafts matches. */
export function anyPending(
  pending: readonly DraftBlock[] | undefined,
  count: number,
  matches: (other: DraftBlock) => boolean,
): boolean {
  if (pending === undefined) return false;
  for (let i = 0; i < count; i++) if (matches(pending[i] as DraftBlock)) return true;
  return false;
}

export function failDuplicateId(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  id: string,
): void {
  reportBlockError(
    errors,
    'VALIDATION',
    draft,
    undefined,
    `a block with id ${id} was already accepted; block ids must be unique`,
    { field: 'id' },
  );
}

export function failDuplicateCallId(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  callId: string,
): void {
  reportBlockError(
    errors,
    'DUPLICATE_CALL_ID',
    draft,
    undefined,
    `trace already has a TOOL_CALL with call_id ${callId}; give each call its own id`,
    { field: 'call_id', call_id: callId },
  );
}
