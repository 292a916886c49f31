import { isAfterInShortlex } from '../text/is-after-in-shortlex.js';
import type { DraftBlock } from './draft-block.js';

/** How many of the calls since the last MESSAGE are looked at for a parent. */
const recentCallSlots = 8;

/** The call ids of one trace's TOOL_CALLs, and the `seq`s of each call's results. */
interface TraceCalls {
  // Call ids are hashed only from the first one that does not come after every earlier one in
  // shortlex order (`maxCallId`): until then they are new by that order alone and wait in
  // `callIds` (an array push, not a Set insertion), as counter-suffixed ids always do.
  calls: Set<string> | undefined;
  callIds: string[];
  maxCallId: string;
  // a number while a call has one result seq (nearly always), a Set from the second on
  seqs: Map<string, number | Set<number>>;
}

/**
 * The parent a draft must have: TOOL_CALL for a TOOL_RESULT, MESSAGE for a THINK or TOOL_CALL,
 * none for a MESSAGE.
 */
function wantedParent(subType: unknown): string | undefined {
  return subType === 'TOOL_RESULT' ? 'TOOL_CALL' : subType === 'MESSAGE' ? undefined : 'MESSAGE';
}

/**
 * Detects, in one pass over a batch, whether any rule between blocks could fail: a repeated
 * id, a parent that is missing, in another trace or of the wrong sub type, a result answering
 * another call, a repeated call id in a trace or a repeated `seq` for a call. It says only
 * whether one might; `reportCrossBlockErrors` then finds exactly which blocks, in its canonical
 * order. Valid batches (nearly all) skip that second, costlier pass. Parents may come after
 * their children: a child whose parent is not seen yet is checked in {@link BatchIndex.settle}.
 * Sound by construction: it reports a possible clash for every batch the exact pass would
 * report (the property tests compare `validateBlocks` with the exact pass on random batches).
 * @internal
 */
export class BatchIndex {
  // every id, in input order: unique when they form monotonic runs whose ranges do not
  // overlap (ids that sort by time, as ULIDs, in a file of traces one after another, forwards
  // or backwards), which is checked without hashing a single id
  readonly #ids: string[] = [];
  // the drafts that can be parents (MESSAGE, TOOL_CALL), indexed only if a child still lacks
  // its parent at the end
  readonly #parents: DraftBlock[] = [];
  readonly #traces = new Map<string, TraceCalls>();
  #traceId: string | undefined = undefined;
  #trace: TraceCalls | undefined = undefined;
  // Nearly every parent is the last MESSAGE or one of the last calls made since it: a ring of
  // the last `recentCallSlots` calls and how many were made since that MESSAGE. Emptied by
  // resetting the count: setting an array's length is a runtime call, ~1% of a small block's
  // validateBlocks in a CPU profile of bench/validate.bench.ts (decision 070).
  #lastMessage: DraftBlock | undefined = undefined;
  readonly #recentCalls: (DraftBlock | undefined)[] = new Array(recentCallSlots).fill(undefined);
  #recentCallCount = 0;
  // children whose parent was not seen yet: the top ones are matched as their parent arrives
  // (a trace written children first), the rest when the batch is settled
  readonly #waiting: DraftBlock[] = [];
  /** Whether some rule between blocks may fail; once set, stays set. */
  mayClash = false;

  /**
   * Adds a draft with a readable identity (non-empty `id` and `trace_id`, a known sub type),
   * valid or not on its own.
   */
  add(draft: DraftBlock): void {
    const id = draft.id as string;
    this.#ids.push(id);
    const waiting = this.#waiting;
    while (
      waiting.length !== 0 &&
      (waiting[waiting.length - 1] as DraftBlock).parent_block_id === id
    ) {
      if (!fitsParent(waiting.pop() as DraftBlock, draft)) this.mayClash = true;
    }
    const subType = draft.sub_type;
    if (subType === 'MESSAGE') {
      this.#lastMessage = draft;
      this.#parents.push(draft);
      this.#recentCallCount = 0;
      return;
    }
    const parentId = draft.parent_block_id;
    if (typeof parentId === 'string' && parentId !== id) {
      const parent = this.#recentParent(parentId);
      if (parent === undefined) waiting.push(draft);
      else if (!fitsParent(draft, parent)) this.mayClash = true;
    }
    if (subType === 'TOOL_CALL') {
      this.#parents.push(draft);
      this.#recentCalls[this.#recentCallCount % recentCallSlots] = draft;
      this.#recentCallCount++;
    }
    const callId = draft.payload.call_id;
    if (typeof callId !== 'string' || callId === '') return;
    const trace = this.#traceOf(draft.trace_id as string);
    if (subType === 'TOOL_CALL') {
      if (isAfterInShortlex(callId, trace.maxCallId)) {
        trace.maxCallId = callId;
        if (trace.calls === undefined) trace.callIds.push(callId);
        else trace.calls.add(callId);
      } else {
        const calls = trace.calls ?? new Set(trace.callIds);
        trace.calls = calls;
        const before = calls.size;
        calls.add(callId);
        if (calls.size === before) this.mayClash = true;
      }
    } else if (subType === 'TOOL_RESULT') {
      const seq = draft.payload.seq;
      if (typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0) {
        const seqs = trace.seqs;
        const known = seqs.get(callId);
        if (known === undefined) seqs.set(callId, seq);
        else if (typeof known === 'number') {
          if (known === seq) this.mayClash = true;
          else seqs.set(callId, new Set<number>().add(known).add(seq));
        } else if (known.has(seq)) this.mayClash = true;
        else known.add(seq);
      }
    }
  }

  /**
   * Checks what needs the whole batch: that ids are unique, and the parents of children that
   * came before them. Call once, after every draft was added.
   */
  settle(): void {
    if (this.mayClash) return;
    if (!idsAreUnique(this.#ids)) {
      this.mayClash = true;
      return;
    }
    const waiting = this.#waiting;
    if (waiting.length === 0) return;
    const parents = new Map<string, DraftBlock>();
    for (const parent of this.#parents) parents.set(parent.id as string, parent);
    for (const draft of waiting) {
      const parent = parents.get(draft.parent_block_id as string);
      if (parent === undefined || !fitsParent(draft, parent)) {
        this.mayClash = true;
        return;
      }
    }
  }

  #recentParent(parentId: string): DraftBlock | undefined {
    const lastMessage = this.#lastMessage;
    if (lastMessage !== undefined && lastMessage.id === parentId) return lastMessage;
    const calls = this.#recentCalls;
    const count = this.#recentCallCount;
    for (let i = count - 1; i >= 0 && i >= count - recentCallSlots; i--) {
      const call = calls[i % recentCallSlots] as DraftBlock;
      if (call.id === parentId) return call;
    }
    return undefined;
  }

  #traceOf(traceId: string): TraceCalls {
    if (traceId === this.#traceId) return this.#trace as TraceCalls;
    let trace = this.#traces.get(traceId);
    if (trace === undefined) {
      trace = { calls: undefined, callIds: [], maxCallId: '', seqs: new Map() };
      this.#traces.set(traceId, trace);
    }
    this.#traceId = traceId;
    this.#trace = trace;
    return trace;
  }
}

/**
 * Whether no id repeats. Ids are split into maximal runs that only rise or only fall; when the
 * runs' ranges do not overlap, every id is unique without hashing any. Otherwise every id is
 * hashed.
 */
function idsAreUnique(ids: readonly string[]): boolean {
  const length = ids.length;
  if (length < 2) return true;
  // [low, high] of each run
  const ranges: string[] = [];
  let start = ids[0] as string;
  let previous = start;
  let direction = 0;
  for (let i = 1; i < length; i++) {
    const id = ids[i] as string;
    const rising = id > previous;
    if (!rising && id === previous) return false;
    if (direction === 0) direction = rising ? 1 : -1;
    else if (rising !== direction > 0) {
      if (direction > 0) ranges.push(start, previous);
      else ranges.push(previous, start);
      start = id;
      direction = 0;
    }
    previous = id;
  }
  if (direction >= 0) ranges.push(start, previous);
  else ranges.push(previous, start);
  if (ranges.length === 2) return true;
  const runs: [string, string][] = [];
  for (let i = 0; i < ranges.length; i += 2)
    runs.push([ranges[i] as string, ranges[i + 1] as string]);
  runs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let disjoint = true;
  for (let i = 1; i < runs.length; i++) {
    if ((runs[i] as [string, string])[0] <= (runs[i - 1] as [string, string])[1]) {
      disjoint = false;
      break;
    }
  }
  if (disjoint) return true;
  const seen = new Set<string>();
  for (let i = 0; i < length; i++) {
    const size = seen.size;
    seen.add(ids[i] as string);
    if (seen.size === size) return false;
  }
  return true;
}

/** Whether `parent` is a parent `draft` may have: same trace, wanted sub type, same call id. */
function fitsParent(draft: DraftBlock, parent: DraftBlock): boolean {
  const subType = draft.sub_type;
  if (parent.trace_id !== draft.trace_id || parent.sub_type !== wantedParent(subType)) return false;
  if (subType !== 'TOOL_RESULT') return true;
  const callId = draft.payload.call_id;
  return typeof callId !== 'string' || callId === parent.payload.call_id;
}
