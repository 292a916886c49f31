import { TraceError } from '../errors/index.js';
import type { Block, ToolCallBlock } from '../model/index.js';
import { isAfterInShortlex } from '../text/is-after-in-shortlex.js';
import { asTraceError } from './as-trace-error.js';
import { blockTypeOf } from './block-type-of.js';
import { checkObjectField } from './check-serialisable.js';
import { checkToolResultPayload } from './check-tool-result-payload.js';
import { type DraftBlock, emptyObject } from './draft-block.js';
import { freezeBlock } from './freeze-block.js';
import { inspectBlock } from './inspect-block.js';
import { checkTimestamp, inspectDraft } from './inspect-draft.js';
import { forgetParsedText, trustParsedText } from './parsed-text.js';
import { anyPending, failDuplicateCallId, failDuplicateId, relateDraft } from './relate-draft.js';
import { TimestampRange } from './timestamp-range.js';
import type { BlockLimits } from './types.js';
import { withTraceId } from './with-trace-id.js';

/**
 * The state of one validator and the rules that need it. A class rather than closures in
 * {@link createTraceValidator}: nothing per validator but the object itself and its maps.
 */
export class TraceState {
  readonly limits: Readonly<BlockLimits>;
  traceId: string | undefined;
  readonly blocks = new Map<string, Block>();
  // The call-id index is built lazily, as the id index is: a call id that comes after every
  // call id entered so far (`maxCallId`) in shortlex order (longer later, then `>`) is new without
  // a lookup, so rising call ids never touch the map: ULIDs, padded counters, and unpadded ones
  // such as parseTrace's `call_<event>_<call>`. With `>` alone, `call_10` after `call_9` went to
  // the map, and so did every later one: in situ, 0.02-0.07 of a small block's JSON.parse
  // (bench/validate.bench.ts, decision 070). `calls` holds every accepted TOOL_CALL except those
  // in `order[callsIndexed..]`, which `callIndex()` adds before any lookup by call id.
  // Inserting each guarded call's id was 8–11% of a guarded call traced into a memory sink
  // (bench/guards.bench.ts, decision 080, third pass).
  private readonly calls = new Map<string, ToolCallBlock>();
  maxCallId = '';
  callsIndexed = 0;
  // The last TOOL_CALL draft a lookup entered in `calls`: recording it while the index is up to
  // date keeps it so, rather than setting it again on the next catch-up (call ids below
  // `maxCallId`, as `call_10` after `call_9`, would otherwise be hashed twice).
  enteredCall: DraftBlock | undefined = undefined;
  // the seqs of each call's results: a number while there is one (most streamed results are a
  // few pieces), a Set from the second on
  readonly resultSeqs = new Map<string, number | Set<number>>();
  // The last block recorded, the last MESSAGE and the last TOOL_CALL: nearly every parent is one
  // of them, and an identity comparison is cheaper than hashing the id again. Blocks are never
  // removed, so these never go stale.
  lastBlock: Block | undefined = undefined;
  lastMessage: Block | undefined = undefined;
  lastCall: Block | undefined = undefined;
  // every accepted block in acceptance order
  readonly order: Block[] = [];
  // The id index is built lazily. An id that sorts after every id entered so far (`maxId`) is
  // new without a lookup: monotonic ids (the tracer's ULIDs) never touch the map on the hot
  // path. `blocks` holds every accepted block, except `order[indexed..]`, which `index()` adds
  // before any lookup by id.
  maxId = '';
  indexed = 0;
  // the second of this trace's last timestamp: a trace's blocks mostly share it
  readonly timestamps = new TimestampRange();

  constructor(limits: Readonly<BlockLimits>, traceId: string | undefined) {
    this.limits = limits;
    this.traceId = traceId;
  }

  /** The id index, brought up to date. */
  index(): Map<string, Block> {
    const order = this.order;
    const blocks = this.blocks;
    const length = order.length;
    let indexed = this.indexed;
    for (; indexed < length; indexed++) {
      const block = order[indexed] as Block;
      blocks.set(block.id, block);
    }
    this.indexed = indexed;
    return blocks;
  }

  /** The call-id index, brought up to date. */
  callIndex(): Map<string, ToolCallBlock> {
    const order = this.order;
    const calls = this.calls;
    const length = order.length;
    let indexed = this.callsIndexed;
    for (; indexed < length; indexed++) {
      const block = order[indexed] as Block;
      if (block.sub_type === 'TOOL_CALL') calls.set(block.payload.call_id, block);
    }
    this.callsIndexed = indexed;
    return calls;
  }

  /** The accepted (or entered) TOOL_CALL with this call id. */
  toolCall(callId: string): ToolCallBlock | undefined {
    return isAfterInShortlex(callId, this.maxCallId) ? undefined : this.callIndex().get(callId);
  }

  /** The accepted (or entered) block with this id; `pending` drafts were entered in this batch. */
  find(
    id: string,
    pending: readonly DraftBlock[] | undefined,
    pendingCount: number,
  ): Block | undefined {
    const lastBlock = this.lastBlock;
    if (lastBlock !== undefined && lastBlock.id === id) return lastBlock;
    const lastMessage = this.lastMessage;
    if (lastMessage !== undefined && lastMessage.id === id) return lastMessage;
    const lastCall = this.lastCall;
    if (lastCall !== undefined && lastCall.id === id) return lastCall;
    if (pending !== undefined) {
      for (let i = pendingCount - 1; i >= 0; i--) {
        const other = pending[i] as DraftBlock;
        if (other.id === id) return other as unknown as Block;
      }
    }
    return id > this.maxId ? undefined : this.index().get(id);
  }

  /**
   * Enters a draft that passed every other rule under its id (and call id), checking those are
   * new with the insertion itself: one hash lookup each instead of a lookup, then an insertion.
   * An id after `maxId` is new without any lookup and is indexed later. `pending` are the drafts
   * entered before in this batch. A clash puts back what was there and throws, so nothing
   * changes.
   */
  enterUnique(
    draft: DraftBlock,
    pending: readonly DraftBlock[] | undefined,
    pendingCount: number,
  ): void {
    const id = draft.id as string;
    const maxIdBefore = this.maxId;
    let inserted = false;
    if (id > maxIdBefore) {
      this.maxId = id;
    } else {
      const map = this.index();
      const size = map.size;
      map.set(id, draft as unknown as Block);
      if (map.size === size) {
        map.set(id, this.order.find((block) => block.id === id) as Block);
        failDuplicateId(undefined, draft, id);
      }
      if (anyPending(pending, pendingCount, (other) => other.id === id)) {
        map.delete(id);
        failDuplicateId(undefined, draft, id);
      }
      inserted = true;
    }
    if (draft.sub_type === 'TOOL_CALL') {
      const callId = draft.payload.call_id as string;
      // after every call id entered so far, pending ones included: new without a lookup
      if (isAfterInShortlex(callId, this.maxCallId)) {
        this.maxCallId = callId;
        return;
      }
      const calls = this.callIndex();
      const callSize = calls.size;
      calls.set(callId, draft as unknown as ToolCallBlock);
      const clash =
        calls.size === callSize ||
        // drafts of this batch entered above `maxCallId` are not in the map yet (tested first:
        // the callback is a closure allocated per call)
        (pendingCount > 0 &&
          anyPending(
            pending,
            pendingCount,
            (other) => other.sub_type === 'TOOL_CALL' && other.payload.call_id === callId,
          ));
      if (clash) {
        if (calls.size === callSize)
          calls.set(
            callId,
            this.order.find(
              (block) => block.sub_type === 'TOOL_CALL' && block.payload.call_id === callId,
            ) as ToolCallBlock,
          );
        else calls.delete(callId);
        if (inserted) this.blocks.delete(id);
        this.maxId = maxIdBefore;
        failDuplicateCallId(undefined, draft, callId);
      }
      this.enteredCall = draft;
    }
  }

  /** Records an accepted block that {@link TraceState.enterUnique} entered. */
  record(block: Block): void {
    const order = this.order;
    // The first block's trace id string replaces the one the options gave, which has the same
    // text: every block's trace id is compared with it, and a string sliced out of a line (as a
    // reader that routes lines by trace makes) compares ~5x slower than the flat strings
    // JSON.parse makes (bench/validate.bench.ts, acceptLine and accept rows; decision 070).
    if (order.length === 0 && (this.traceId === undefined || this.traceId === block.trace_id))
      this.traceId = block.trace_id;
    // the index stays up to date past blocks it needs no entry for, or already has
    if (
      this.callsIndexed === order.length &&
      (block.sub_type !== 'TOOL_CALL' || (block as unknown) === this.enteredCall)
    )
      this.callsIndexed++;
    order.push(block);
    this.lastBlock = block;
    if (block.sub_type === 'MESSAGE') {
      this.lastMessage = block;
    } else if (block.sub_type === 'TOOL_CALL') {
      this.lastCall = block;
    } else if (block.sub_type === 'TOOL_RESULT') {
      const seq = block.payload.seq;
      // a null seq is no seq: it never collides
      if (typeof seq === 'number') {
        const callId = block.payload.call_id;
        const resultSeqs = this.resultSeqs;
        const seqs = resultSeqs.get(callId);
        if (seqs === undefined) resultSeqs.set(callId, seq);
        // add, add: no array and no iteration, as `new Set([a, b])` would take
        else if (typeof seqs === 'number')
          resultSeqs.set(callId, new Set<number>().add(seqs).add(seq));
        else seqs.add(seq);
      }
    }
  }

  /**
   * Takes the first `entered` drafts of a failed batch back out of the maps: each was new under
   * its keys (or never indexed), so deleting them restores the maps exactly. Returns the error
   * to throw.
   */
  rollBack(
    error: unknown,
    drafts: readonly DraftBlock[],
    entered: number,
    maxIdBefore: string,
    maxCallIdBefore: string,
  ): TraceError {
    this.maxId = maxIdBefore;
    this.maxCallId = maxCallIdBefore;
    this.enteredCall = undefined;
    for (let i = 0; i < entered; i++) {
      const draft = drafts[i] as DraftBlock;
      this.blocks.delete(draft.id as string);
      if (draft.sub_type === 'TOOL_CALL') this.calls.delete(draft.payload.call_id as string);
    }
    return asTraceError(error, undefined);
  }

  inspectOwned(draft: DraftBlock): void {
    inspectDraft(
      draft,
      blockTypeOf(draft.sub_type),
      draft.payload,
      // the same string as created_at needs no second check; a missing one is reported
      draft.updated_at === draft.created_at ? undefined : (draft.updated_at ?? null),
      this.limits,
      undefined,
      undefined,
      this.timestamps,
    );
  }

  accept(input: unknown): Block {
    let draft: DraftBlock | undefined;
    try {
      // throwing mode: the first problem throws, and nothing below records anything
      draft = inspectBlock(
        withTraceId(input, this.traceId),
        this.limits,
        undefined,
        undefined,
        this.timestamps,
      );
      if (draft !== undefined) {
        relateDraft(this, draft, undefined, undefined, 0, true);
        this.enterUnique(draft, undefined, 0);
      }
    } catch (error) {
      throw asTraceError(error, undefined);
    }
    if (draft === undefined) throw asTraceError(new TypeError('not an object'), undefined);
    // not frozen: the caller's object (or its normalised copy), typed read-only; only the
    // tracer's own blocks (the owned entry points below) are frozen
    const block = draft as unknown as Block;
    this.record(block);
    return block;
  }

  acceptLine(line: string): Block {
    if (typeof line !== 'string')
      throw new TraceError({
        code: 'VALIDATION',
        message: `block: must be JSON text, got ${line === null ? 'null' : `a ${typeof line}`}; pass one block's JSON text, e.g. a line of a JSONL file, or use accept() for an object`,
        details: {},
      });
    let input: unknown;
    try {
      input = JSON.parse(line);
    } catch (cause) {
      throw new TraceError({
        code: 'VALIDATION',
        message: `block: is not valid JSON (${(cause as Error).message}); pass one block's JSON text, e.g. a line of a JSONL file`,
        details: {},
        cause,
      });
    }
    trustParsedText(line);
    try {
      return this.accept(input);
    } finally {
      forgetParsedText();
    }
  }

  check(input: unknown): TraceError[] {
    const errors: TraceError[] = [];
    try {
      const draft = inspectBlock(
        withTraceId(input, this.traceId),
        this.limits,
        errors,
        undefined,
        this.timestamps,
      );
      if (draft !== undefined) relateDraft(this, draft, errors, undefined, 0, false);
    } catch (error) {
      errors.push(asTraceError(error, undefined));
    }
    return errors;
  }

  acceptOwned(draft: DraftBlock): Block {
    try {
      this.inspectOwned(draft);
      relateDraft(this, draft, undefined, undefined, 0, true);
      this.enterUnique(draft, undefined, 0);
    } catch (error) {
      throw asTraceError(error, undefined);
    }
    const block = freezeBlock(draft);
    this.record(block);
    return block;
  }

  /**
   * Like {@link TraceState.acceptOwned}, for a TOOL_RESULT the tracer built under an accepted
   * TOOL_CALL of this trace: its id and trace id the tracer's own, `parent_block_id` that call's
   * id, the payload `{ call_id, output }` with the call's call id, `raw` null. Those fields pass
   * by construction, so only what the caller brought is checked (a `created_at` other than the
   * 24 characters `formatIsoTimestamp` writes for years 0000-9999, metadata, extra, output), in
   * inspectDraft's order: a bad result throws the same first error. Ids are still entered.
   */
  acceptOwnedResult(draft: DraftBlock): Block {
    try {
      const createdAt = draft.created_at;
      if (typeof createdAt !== 'string' || createdAt.length !== 24)
        checkTimestamp(undefined, draft, undefined, 'created_at', createdAt, this.timestamps);
      const metadata = draft.metadata;
      if (metadata !== emptyObject)
        checkObjectField(undefined, draft, undefined, 'metadata', metadata);
      const extra = draft.extra;
      if (extra !== emptyObject) checkObjectField(undefined, draft, undefined, 'extra', extra);
      checkToolResultPayload(undefined, draft, undefined, draft.payload, this.limits);
      this.enterUnique(draft, undefined, 0);
    } catch (error) {
      throw asTraceError(error, undefined);
    }
    const block = freezeBlock(draft);
    this.record(block);
    return block;
  }

  acceptAllOwned(drafts: readonly DraftBlock[]): Block[] {
    let entered = 0;
    const maxIdBefore = this.maxId;
    const maxCallIdBefore = this.maxCallId;
    try {
      for (; entered < drafts.length; entered++) {
        const draft = drafts[entered] as DraftBlock;
        this.inspectOwned(draft);
        relateDraft(this, draft, undefined, drafts, entered, true);
        this.enterUnique(draft, drafts, entered);
      }
    } catch (error) {
      throw this.rollBack(error, drafts, entered, maxIdBefore, maxCallIdBefore);
    }
    const accepted: Block[] = [];
    for (const draft of drafts) {
      const block = freezeBlock(draft);
      this.record(block);
      accepted.push(block);
    }
    return accepted;
  }

  adoptAllOwned(drafts: readonly DraftBlock[]): void {
    let entered = 0;
    const maxIdBefore = this.maxId;
    const maxCallIdBefore = this.maxCallId;
    try {
      for (; entered < drafts.length; entered++) {
        this.enterUnique(drafts[entered] as DraftBlock, drafts, entered);
      }
    } catch (error) {
      throw this.rollBack(error, drafts, entered, maxIdBefore, maxCallIdBefore);
    }
    for (let i = 0; i < drafts.length; i++) this.record(freezeBlock(drafts[i] as DraftBlock));
  }

  get(id: string): Block | undefined {
    return id > this.maxId ? undefined : this.index().get(id);
  }
}
