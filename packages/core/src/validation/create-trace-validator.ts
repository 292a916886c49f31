import type { TraceError } from '../errors/index.js';
import type { Block, ToolCallBlock } from '../model/index.js';
import type { DraftBlock } from './draft-block.js';
import { resolveBlockLimits } from './resolve-block-limits.js';
import { TraceState } from './trace-state.js';
import type { BlockValidator, BlockValidatorOptions } from './types.js';
import { traceIdOption } from './with-trace-id.js';

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
   * Like `acceptOwned`, for a TOOL_RESULT the tracer built with its own ids under an accepted
   * TOOL_CALL of this trace (see `TraceState.acceptOwnedResult`): the fields that hold by
   * construction are not checked again.
   */
  acceptOwnedResult(draft: DraftBlock): Block;
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
 * Creates the validator behind {@link createBlockValidator}, with the tracer's entry points.
 * @param options - as {@link createBlockValidator}
 * @returns a {@link TraceValidator}
 * @internal
 */
export function createTraceValidator(options: BlockValidatorOptions = {}): TraceValidator {
  const state = new TraceState(
    resolveBlockLimits(options.limits),
    traceIdOption('createBlockValidator', options.traceId),
  );
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
    acceptOwnedResult(draft: DraftBlock): Block {
      return state.acceptOwnedResult(draft);
    },
    adoptAllOwned(drafts: readonly DraftBlock[]): void {
      state.adoptAllOwned(drafts);
    },
    accepted(): readonly Block[] {
      return state.order;
    },
    toolCall(callId: string): ToolCallBlock | undefined {
      return state.toolCall(callId);
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
