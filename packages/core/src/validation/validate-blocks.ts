import { TraceError } from '../errors/index.js';
import { asTraceError } from './as-trace-error.js';
import { type DraftBlock, fail, inspectBlock } from './inspect-block.js';
import { resolveBlockLimits } from './resolve-block-limits.js';
import type { ValidateBlocksOptions, ValidationReport } from './types.js';

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

function isSubType(value: unknown): value is string {
  return (
    value === 'MESSAGE' || value === 'TOOL_CALL' || value === 'TOOL_RESULT' || value === 'THINK'
  );
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function'
  );
}

function pathIndex(error: TraceError): number {
  const path = error.details.path;
  return typeof path === 'string' ? Number(path) : -1;
}

/**
 * Validates the blocks of one or many traces, given in any order, against every seed 002 rule
 * and lists every problem instead of stopping at the first. Everything is indexed before parents
 * are checked, so children may come before their parents. Each error's `details.path` is the
 * block's position in `blocks` (`"3"`), with its `block_id`, `trace_id`, `sub_type`, `field` and
 * `parent_block_id` where known; errors are ordered by position.
 *
 * When blocks clash (the same id, the same call id in a trace, the same `seq` for a call), the
 * first by `created_at`, then `id` (then content), is kept and the others are reported, whatever the input
 * order. Results without `seq` never collide. A block with a duplicated id is not counted again
 * for call-id and seq clashes.
 *
 * @param blocks - candidate blocks (for instance parsed JSONL lines)
 * @param options - `limits` to force
 * @returns `{ ok, errors }`; `ok` is true when `errors` is empty
 * @throws {@link BlockLimitError} when a limit option or `LIMIT_*` variable is malformed
 * @throws {@link TraceError} `VALIDATION` when `blocks` is not iterable (null, a single block)
 * @example
 * ```ts
 * const report = validateBlocks(lines.map((line) => JSON.parse(line)));
 * for (const error of report.errors) console.error(error.details.path, error.code, error.message);
 * ```
 */
export function validateBlocks(
  blocks: Iterable<unknown>,
  options: ValidateBlocksOptions = {},
): ValidationReport {
  if (!isIterable(blocks))
    throw new TraceError({
      code: 'VALIDATION',
      message: `validateBlocks: blocks must be an array (or any iterable) of blocks, got ${blocks === null ? 'null' : typeof blocks}; pass the candidate blocks, e.g. parsed JSONL lines`,
      details: { path: '' },
    });
  const limits = resolveBlockLimits(options.limits);
  const errors: TraceError[] = [];
  const entries: Entry[] = [];
  const byId = new Map<string, Entry>();

  let index = 0;
  for (const input of blocks) {
    const path = String(index);
    let draft: DraftBlock | undefined;
    try {
      draft = inspectBlock(input, limits, errors, path);
    } catch (error) {
      errors.push(asTraceError(error, path));
      draft = undefined;
    }
    // a block with a readable identity takes part in the cross-block rules even when its own
    // payload is invalid, so its children are not reported as orphans too
    if (
      draft !== undefined &&
      typeof draft.id === 'string' &&
      draft.id !== '' &&
      typeof draft.trace_id === 'string' &&
      draft.trace_id !== '' &&
      isSubType(draft.sub_type)
    ) {
      const entry: Entry = {
        draft,
        index,
        id: draft.id,
        traceId: draft.trace_id,
        subType: draft.sub_type,
        createdAt: typeof draft.created_at === 'string' ? draft.created_at : '',
      };
      entries.push(entry);
      keepFirst(byId, entry.id, entry);
    }
    index++;
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
    const path = String(entry.index);
    if (byId.get(id) !== entry) {
      fail(
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
        fail(
          errors,
          'VALIDATION',
          draft,
          path,
          `parent_block_id ${parentId} is not the id of any block; every ${subType} needs an existing ${wanted} parent`,
          { field: 'parent_block_id' },
        );
      } else if (parent.traceId !== traceId) {
        fail(
          errors,
          'VALIDATION',
          draft,
          path,
          `parent_block_id ${parentId} is a block of trace ${parent.traceId}, not ${traceId}; parents must be in the same trace`,
          { field: 'parent_block_id' },
        );
      } else if (parent.subType !== wanted) {
        fail(
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
        fail(
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
        fail(
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
        fail(
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

  // stable: per-block problems stay before cross-block ones at the same position
  errors.sort((a, b) => pathIndex(a) - pathIndex(b));
  return { ok: errors.length === 0, errors };
}
