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
  // Ids are unique when they form monotonic runs whose ranges do not overlap (ids that sort by
  // time, as ULIDs, in a file of traces one after another, forwards or backwards), which is
  // checked without hashing a single id. The runs are followed as drafts are added: the id
  // before, where its run started and which way it goes (0 until its second id), and the
  // [low, high] of each run that ended. Keeping every id in an array for a second pass at the end
  // cost more: in a CPU profile of parsing and validating small blocks the push alone took 1.2%
  // of the samples and the pass 0.9% (decision 070, sixth session).
  #previousId: string | undefined = undefined;
  #runStart = '';
  #runDirection = 0;
  readonly #runRanges: string[] = [];
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
    this.#followRun(id);
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

  /** Extends the run of ids with `id`, or ends it and starts another. */
  #followRun(id: string): void {
    const previous = this.#previousId;
    this.#previousId = id;
    if (previous === undefined) {
      this.#runStart = id;
      return;
    }
    const rising = id > previous;
    if (!rising && id === previous) this.mayClash = true;
    const direction = this.#runDirection;
    if (direction === 0) this.#runDirection = rising ? 1 : -1;
    else if (rising !== direction > 0) {
      if (direction > 0) this.#runRanges.push(this.#runStart, previous);
      else this.#runRanges.push(previous, this.#runStart);
      this.#runStart = id;
      this.#runDirection = 0;
    }
  }

  /**
   * Checks what needs the whole batch: that ids are unique, and the parents of children that
   * came before them. Call once, after every draft was added; `drafts` are those drafts, in the
   * order they were added (their ids are hashed only when the runs of ids overlap).
   */
  settle(drafts: readonly DraftBlock[]): void {
    if (this.mayClash) return;
    const previous = this.#previousId;
    if (previous !== undefined) {
      const ranges = this.#runRanges;
      if (this.#runDirection >= 0) ranges.push(this.#runStart, previous);
      else ranges.push(previous, this.#runStart);
      if (!runsAreDisjoint(ranges) && !idsAreUnique(drafts)) {
        this.mayClash = true;
        return;
      }
    }
    const waiting = this.#waiting;
    if (waiting.length === 0) return;
    const parents = new Map<string, DraftBlock>();
    // the drafts that can be parents, indexed only now that a child still lacks its parent
    for (const parent of drafts)
      if (parent.sub_type === 'MESSAGE' || parent.sub_type === 'TOOL_CALL')
        parents.set(parent.id as string, parent);
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
 * Whether the runs of ids, given as [low, high] pairs, have ranges that do not overlap: then no id
 * repeats across runs (within a run ids strictly rise or fall).
 */
function runsAreDisjoint(ranges: readonly string[]): boolean {
  if (ranges.length === 2) return true;
  const runs: [string, string][] = [];
  for (let i = 0; i < ranges.length; i += 2)
    runs.push([ranges[i] as string, ranges[i + 1] as string]);
  runs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (let i = 1; i < runs.length; i++) {
    if ((runs[i] as [string, string])[0] <= (runs[i - 1] as [string, string])[1]) return false;
  }
  return true;
}

/** Whether no two drafts share an id, by hashing every id. */
function idsAreUnique(drafts: readonly DraftBlock[]): boolean {
  const seen = new Set<string>();
  for (let i = 0; i < drafts.length; i++) {
    const size = seen.size;
    seen.add((drafts[i] as DraftBlock).id as string);
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
