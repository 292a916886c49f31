import { TraceError } from '../errors/index.js';
import type { Block, ToolCallBlock } from '../model/index.js';
import { asTraceError } from './as-trace-error.js';
import {
  blockTypeOf,
  type DraftBlock,
  fail,
  freezeBlock,
  inspectBlock,
  inspectDraft,
} from './inspect-block.js';
import { forgetParsedText, trustParsedText } from './parsed-text.js';
import { resolveBlockLimits } from './resolve-block-limits.js';
import type { BlockLimits, BlockValidator, BlockValidatorOptions } from './types.js';

/**
 * A {@link BlockValidator} with the tracer's entry points. "Owned" drafts are candidates the
 * caller built in canonical block form (every field, in block order, `metadata` / `extra`
 * defaulting to the shared empty object) and holds the only reference to: they get every check
 * `accept` applies and are then frozen in place instead of copied.
 * @internal
 */
export interface TraceValidator extends BlockValidator {
  /** Like `accept`, for an owned draft. Throws and records nothing on failure. */
  acceptOwned(draft: DraftBlock): Block;
  /**
   * Accepts owned drafts all or nothing: each is checked against the accepted blocks and the
   * drafts before it (a later one may name an earlier one as parent); only when every one
   * passes are they recorded, in order.
   */
  acceptAllOwned(drafts: readonly DraftBlock[]): Block[];
  /**
   * Records owned drafts the caller built from values it already checked (see
   * `fitsLimit`), all or nothing: the per-block and parent rules are skipped, but ids and call
   * ids are still entered with their uniqueness checks, and the drafts are frozen. For the
   * tracer's deferred guarded calls, whose every other rule holds by construction.
   */
  adoptAllOwned(drafts: readonly DraftBlock[]): void;
  /** Every accepted block in acceptance order: the validator's own array, not a copy. */
  accepted(): readonly Block[];
  /** The accepted TOOL_CALL block with this call id. */
  toolCall(callId: string): ToolCallBlock | undefined;
}

/**
 * Creates a validator for one trace that enforces every seed 002 rule against the blocks it
 * accepted before: parents must already be accepted (so blocks arrive parents first), call ids
 * are unique per trace, and result `seq`s are unique per call. Results without `seq` never
 * collide with each other.
 *
 * Accepted blocks are normalised (`block_type` derived when omitted, `parent_block_id` `null`,
 * `metadata`/`extra` `{}`, `raw` `null`, `updated_at` = `created_at`, unknown top-level fields
 * dropped) and frozen cheaply: the block is a new frozen object, and the given `payload`,
 * `metadata` and `extra` objects are frozen in place (pass copies if you mean to keep mutating
 * yours). Nested values (arguments, outputs, content parts, raw) are not deep-frozen: treat them
 * as read-only.
 *
 * @param options - `limits` to force and the `traceId` this validator holds
 * @returns a {@link BlockValidator}
 * @throws {@link BlockLimitError} when a limit option or `LIMIT_*` variable is malformed
 * @example
 * ```ts
 * const validator = createBlockValidator({ traceId: 'tr_1' });
 * const message = validator.accept({
 *   id: 'tb_1', trace_id: 'tr_1', sub_type: 'MESSAGE', created_at: new Date().toISOString(),
 *   payload: { role: 'user', content: "what's the weather?" },
 * });
 * validator.check({ ...otherBlock }); // TraceError[]; empty when it would be accepted
 * ```
 */
export function createBlockValidator(options: BlockValidatorOptions = {}): BlockValidator {
  return createTraceValidator(options);
}

function hasSeq(seqs: number | Set<number> | undefined, seq: number): boolean {
  return typeof seqs === 'number' ? seqs === seq : seqs?.has(seq) === true;
}

function failDuplicateId(errors: TraceError[] | undefined, draft: DraftBlock, id: string): void {
  fail(
    errors,
    'VALIDATION',
    draft,
    undefined,
    `a block with id ${id} was already accepted; block ids must be unique`,
    { field: 'id' },
  );
}

function failDuplicateCallId(
  errors: TraceError[] | undefined,
  draft: DraftBlock,
  callId: string,
): void {
  fail(
    errors,
    'DUPLICATE_CALL_ID',
    draft,
    undefined,
    `trace already has a TOOL_CALL with call_id ${callId}; give each call its own id`,
    { field: 'call_id', call_id: callId },
  );
}

/** Whether one of the first `count` pending drafts matches. */
function anyPending(
  pending: readonly DraftBlock[] | undefined,
  count: number,
  matches: (other: DraftBlock) => boolean,
): boolean {
  if (pending === undefined) return false;
  for (let i = 0; i < count; i++) if (matches(pending[i] as DraftBlock)) return true;
  return false;
}

/** The `size` of a validator: the number of blocks it accepted. */
function sizeOfValidator(this: TraceValidator): number {
  return this.accepted().length;
}

// A shared getter for every validator's `size`: an accessor written in each object literal is a
// new function per validator, which gives each validator a map of its own. Those maps live in
// old space and point at the young getter, whose context holds the validator's blocks, so every
// scavenge kept every validator (and its blocks) alive and promoted it. One getter keeps one map.
const sizeProperty: PropertyDescriptor = {
  get: sizeOfValidator,
  enumerable: true,
  configurable: true,
};

/**
 * The state of one validator and the rules that need it. A class rather than closures in
 * {@link createTraceValidator}: nothing per validator but the object itself and its maps.
 */
class TraceState {
  readonly limits: Readonly<BlockLimits>;
  traceId: string | undefined;
  readonly blocks = new Map<string, Block>();
  readonly calls = new Map<string, ToolCallBlock>();
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

  /** The rules that need the blocks accepted before. */
  relate(
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
      this.traceId ??
      (pending === undefined || pendingCount === 0 ? undefined : pending[0]?.trace_id);
    if (heldTrace !== undefined && typeof trace === 'string' && trace !== heldTrace) {
      fail(
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
      ((id <= this.maxId && this.index().has(id)) ||
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
      const parent = this.find(parentId, pending, pendingCount);
      if (parent === undefined) {
        fail(
          errors,
          'VALIDATION',
          draft,
          undefined,
          `parent_block_id ${parentId} is not a block of this trace accepted before; log the parent ${wanted} block first`,
          { field: 'parent_block_id' },
        );
      } else if (parent.sub_type !== wanted) {
        fail(
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
        fail(
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
    const callId =
      subType === 'TOOL_CALL' || subType === 'TOOL_RESULT' ? payload.call_id : undefined;
    if (typeof callId === 'string') {
      if (
        subType === 'TOOL_CALL' &&
        !deferUnique &&
        (this.calls.has(callId) ||
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
          (hasSeq(this.resultSeqs.get(callId), seq) ||
            anyPending(
              pending,
              pendingCount,
              (other) =>
                other.sub_type === 'TOOL_RESULT' &&
                other.payload.call_id === callId &&
                other.payload.seq === seq,
            ))
        ) {
          fail(
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
      const calls = this.calls;
      const callSize = calls.size;
      calls.set(callId, draft as unknown as ToolCallBlock);
      if (calls.size === callSize) {
        calls.set(
          callId,
          this.order.find(
            (block) => block.sub_type === 'TOOL_CALL' && block.payload.call_id === callId,
          ) as ToolCallBlock,
        );
        if (inserted) this.blocks.delete(id);
        this.maxId = maxIdBefore;
        failDuplicateCallId(undefined, draft, callId);
      }
    }
  }

  /** Records an accepted block that {@link TraceState.enterUnique} entered. */
  record(block: Block): void {
    this.order.push(block);
    this.lastBlock = block;
    if (this.traceId === undefined) this.traceId = block.trace_id;
    if (block.sub_type === 'MESSAGE') {
      this.lastMessage = block;
    } else if (block.sub_type === 'TOOL_CALL') {
      this.lastCall = block;
    } else if (block.sub_type === 'TOOL_RESULT') {
      const seq = block.payload.seq;
      if (seq !== undefined) {
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
  ): TraceError {
    this.maxId = maxIdBefore;
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
    );
  }

  accept(input: unknown): Block {
    let draft: DraftBlock | undefined;
    try {
      // throwing mode: the first problem throws, and nothing below records anything
      draft = inspectBlock(input, this.limits, undefined, undefined);
      if (draft !== undefined) {
        this.relate(draft, undefined, undefined, 0, true);
        this.enterUnique(draft, undefined, 0);
      }
    } catch (error) {
      throw asTraceError(error, undefined);
    }
    if (draft === undefined) throw asTraceError(new TypeError('not an object'), undefined);
    const block = freezeBlock(draft);
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
      const draft = inspectBlock(input, this.limits, errors, undefined);
      if (draft !== undefined) this.relate(draft, errors, undefined, 0, false);
    } catch (error) {
      errors.push(asTraceError(error, undefined));
    }
    return errors;
  }

  acceptOwned(draft: DraftBlock): Block {
    try {
      this.inspectOwned(draft);
      this.relate(draft, undefined, undefined, 0, true);
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
    try {
      for (; entered < drafts.length; entered++) {
        const draft = drafts[entered] as DraftBlock;
        this.inspectOwned(draft);
        this.relate(draft, undefined, drafts, entered, true);
        this.enterUnique(draft, drafts, entered);
      }
    } catch (error) {
      throw this.rollBack(error, drafts, entered, maxIdBefore);
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
    try {
      for (; entered < drafts.length; entered++) {
        this.enterUnique(drafts[entered] as DraftBlock, drafts, entered);
      }
    } catch (error) {
      throw this.rollBack(error, drafts, entered, maxIdBefore);
    }
    for (let i = 0; i < drafts.length; i++) this.record(freezeBlock(drafts[i] as DraftBlock));
  }

  get(id: string): Block | undefined {
    return id > this.maxId ? undefined : this.index().get(id);
  }
}

/**
 * Creates the validator behind {@link createBlockValidator}, with the tracer's entry points.
 * @param options - as {@link createBlockValidator}
 * @returns a {@link TraceValidator}
 * @internal
 */
export function createTraceValidator(options: BlockValidatorOptions = {}): TraceValidator {
  const state = new TraceState(resolveBlockLimits(options.limits), options.traceId);
  // methods of a plain object, not of the class, so they work detached (`lines.map(v.accept)`)
  const validator = {
    accept(input: unknown): Block {
      return state.accept(input);
    },
    acceptLine(line: string): Block {
      return state.acceptLine(line);
    },
    check(input: unknown): TraceError[] {
      return state.check(input);
    },
    acceptOwned(draft: DraftBlock): Block {
      return state.acceptOwned(draft);
    },
    acceptAllOwned(drafts: readonly DraftBlock[]): Block[] {
      return state.acceptAllOwned(drafts);
    },
    adoptAllOwned(drafts: readonly DraftBlock[]): void {
      state.adoptAllOwned(drafts);
    },
    accepted(): readonly Block[] {
      return state.order;
    },
    toolCall(callId: string): ToolCallBlock | undefined {
      return state.calls.get(callId);
    },
    get(id: string): Block | undefined {
      return state.get(id);
    },
  } as Omit<TraceValidator, 'size' | 'limits'> as {
    -readonly [K in keyof TraceValidator]: TraceValidator[K];
  };
  // `size` then `limits`, in the order (and with the attributes) of an object literal
  Object.defineProperty(validator, 'size', sizeProperty);
  validator.limits = state.limits;
  return validator;
}
