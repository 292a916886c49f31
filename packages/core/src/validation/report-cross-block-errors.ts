import type { TraceError } from '../errors/index.js';
import type { DraftBlock } from './draft-block.js';
import { reportBlockError } from './report-block-error.js';

interface Entry {
  draft: DraftBlock;
  index: number;
  id: string;
  traceId: string;
  subType: string;
  createdAt: string;
  /** JSON text of the block, computed only to break a tie between blocks with the same id. */
  text?: string;
}

function textOf(entry: Entry): string {
  if (entry.text === undefined) {
    try {
      entry.text = JSON.stringify(entry.draft) ?? '';
    } catch {
      entry.text = '';
    }
  }
  return entry.text;
}

/**
 * Canonical order for deciding which of two clashing blocks is "the first": `created_at`, then
 * `id`, then the block's JSON text, then input position (reached only by identical blocks, where
 * it makes no difference). It makes the reported duplicates independent of input order.
 */
function precedes(a: Entry, b: Entry): boolean {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt;
  if (a.id !== b.id) return a.id < b.id;
  const textA = textOf(a);
  const textB = textOf(b);
  if (textA !== textB) return textA < textB;
  return a.index < b.index;
}

function keepFirst(map: Map<string, Entry>, key: string, entry: Entry): void {
  const current = map.get(key);
  if (current === undefined || precedes(entry, current)) map.set(key, entry);
}

/**
 * The rules between the blocks of a batch, exactly: which of clashing blocks is kept (the first
 * by `created_at`, then `id`, then content, whatever the input order) and every error about the
 * others, orphans, parents in another trace or of the wrong sub type, results answering another
 * call, repeated call ids and `seq`s. Appends the errors to `errors` (unsorted).
 * @param drafts - the drafts with a readable identity (non-empty `id` and `trace_id`, a known
 *   sub type), in input order
 * @param positions - the input position of each draft
 * @internal
 */
export function reportCrossBlockErrors(
  drafts: readonly DraftBlock[],
  positions: readonly number[],
  errors: TraceError[],
): void {
  const entries: Entry[] = [];
  const byId = new Map<string, Entry>();
  for (let i = 0; i < drafts.length; i++) {
    const draft = drafts[i] as DraftBlock;
    const entry: Entry = {
      draft,
      index: positions[i] as number,
      id: draft.id as string,
      traceId: draft.trace_id as string,
      subType: draft.sub_type as string,
      createdAt: typeof draft.created_at === 'string' ? draft.created_at : '',
    };
    entries.push(entry);
    keepFirst(byId, entry.id, entry);
  }

  const calls = new Map<string, Entry>();
  const seqs = new Map<string, Entry>();
  for (const entry of entries) {
    if (byId.get(entry.id) !== entry) continue;
    const { call_id: callId, seq } = entry.draft.payload;
    if (typeof callId !== 'string' || callId === '') continue;
    if (entry.subType === 'TOOL_CALL') {
      keepFirst(calls, `${entry.traceId}\u0000${callId}`, entry);
    } else if (
      entry.subType === 'TOOL_RESULT' &&
      typeof seq === 'number' &&
      Number.isSafeInteger(seq) &&
      seq >= 0
    ) {
      keepFirst(seqs, `${entry.traceId}\u0000${callId}\u0000${seq}`, entry);
    }
  }

  for (const entry of entries) {
    const { draft, id, traceId, subType } = entry;
    const path = entry.index;
    if (byId.get(id) !== entry) {
      reportBlockError(
        errors,
        'VALIDATION',
        draft,
        path,
        `block id ${id} is used by more than one block; block ids must be unique`,
        { field: 'id' },
      );
      continue;
    }
    const parentId = draft.parent_block_id;
    const wanted =
      subType === 'TOOL_RESULT' ? 'TOOL_CALL' : subType === 'MESSAGE' ? undefined : 'MESSAGE';
    const callId = draft.payload.call_id;
    if (wanted !== undefined && typeof parentId === 'string' && parentId !== id) {
      const parent = byId.get(parentId);
      if (parent === undefined) {
        reportBlockError(
          errors,
          'VALIDATION',
          draft,
          path,
          `parent_block_id ${parentId} is not the id of any block; every ${subType} needs an existing ${wanted} parent`,
          { field: 'parent_block_id' },
        );
      } else if (parent.traceId !== traceId) {
        reportBlockError(
          errors,
          'VALIDATION',
          draft,
          path,
          `parent_block_id ${parentId} is a block of trace ${parent.traceId}, not ${traceId}; parents must be in the same trace`,
          { field: 'parent_block_id' },
        );
      } else if (parent.subType !== wanted) {
        reportBlockError(
          errors,
          'PARENT_SUBTYPE_MISMATCH',
          draft,
          path,
          `a ${subType} block's parent must be a ${wanted} block, but ${parentId} is a ${parent.subType}`,
          { field: 'parent_block_id', parent_sub_type: parent.subType },
        );
      } else if (
        subType === 'TOOL_RESULT' &&
        typeof callId === 'string' &&
        callId !== parent.draft.payload.call_id
      ) {
        reportBlockError(
          errors,
          'VALIDATION',
          draft,
          path,
          `payload.call_id ${callId} does not match call_id ${String(parent.draft.payload.call_id)} of its parent TOOL_CALL ${parentId}; a result must answer its parent call`,
          { field: 'call_id', call_id: callId },
        );
      }
    }
    if (typeof callId !== 'string' || callId === '') continue;
    if (subType === 'TOOL_CALL') {
      if (calls.get(`${traceId}\u0000${callId}`) !== entry) {
        reportBlockError(
          errors,
          'DUPLICATE_CALL_ID',
          draft,
          path,
          `trace ${traceId} has more than one TOOL_CALL with call_id ${callId}; give each call its own id`,
          { field: 'call_id', call_id: callId },
        );
      }
    } else if (subType === 'TOOL_RESULT') {
      const seq = draft.payload.seq;
      if (
        typeof seq === 'number' &&
        Number.isSafeInteger(seq) &&
        seq >= 0 &&
        seqs.get(`${traceId}\u0000${callId}\u0000${seq}`) !== entry
      ) {
        reportBlockError(
          errors,
          'DUPLICATE_RESULT_SEQ',
          draft,
          path,
          `call ${callId} has more than one TOOL_RESULT with seq ${seq}; number each streamed piece once`,
          { field: 'seq', call_id: callId, seq },
        );
      }
    }
  }
}
