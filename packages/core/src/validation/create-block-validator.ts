import type { TraceError } from '../errors/index.js';
import type { Block } from '../model/index.js';
import { asTraceError } from './as-trace-error.js';
import { type DraftBlock, fail, freezeBlock, inspectBlock } from './inspect-block.js';
import { resolveBlockLimits } from './resolve-block-limits.js';
import type { BlockValidator, BlockValidatorOptions } from './types.js';

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
  const limits = resolveBlockLimits(options.limits);
  let traceId = options.traceId;
  const blocks = new Map<string, Block>();
  const callIds = new Set<string>();
  const resultSeqs = new Map<string, Set<number>>();

  /** The rules that need the blocks accepted before. */
  function relate(draft: DraftBlock, errors: TraceError[] | undefined): void {
    const id = draft.id;
    const trace = draft.trace_id;
    const subType = draft.sub_type;
    const payload = draft.payload;
    if (traceId !== undefined && typeof trace === 'string' && trace !== traceId) {
      fail(
        errors,
        'VALIDATION',
        draft,
        undefined,
        `belongs to trace ${trace}, but this validator holds trace ${traceId}; validate each trace with its own validator, or use validateBlocks`,
        { field: 'trace_id' },
      );
    }
    if (typeof id === 'string' && blocks.has(id)) {
      fail(
        errors,
        'VALIDATION',
        draft,
        undefined,
        `a block with id ${id} was already accepted; block ids must be unique`,
        { field: 'id' },
      );
    }
    const parentId = draft.parent_block_id;
    const wanted =
      subType === 'TOOL_RESULT'
        ? 'TOOL_CALL'
        : subType === 'TOOL_CALL' || subType === 'THINK'
          ? 'MESSAGE'
          : undefined;
    if (wanted !== undefined && typeof parentId === 'string' && parentId !== id) {
      const parent = blocks.get(parentId);
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
    const callId = payload.call_id;
    if (typeof callId === 'string') {
      if (subType === 'TOOL_CALL' && callIds.has(callId)) {
        fail(
          errors,
          'DUPLICATE_CALL_ID',
          draft,
          undefined,
          `trace already has a TOOL_CALL with call_id ${callId}; give each call its own id`,
          { field: 'call_id', call_id: callId },
        );
      } else if (subType === 'TOOL_RESULT') {
        const seq = payload.seq;
        if (typeof seq === 'number' && resultSeqs.get(callId)?.has(seq) === true) {
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

  function record(block: Block): void {
    blocks.set(block.id, block);
    if (traceId === undefined) traceId = block.trace_id;
    if (block.sub_type === 'TOOL_CALL') {
      callIds.add(block.payload.call_id);
    } else if (block.sub_type === 'TOOL_RESULT') {
      const seq = block.payload.seq;
      if (seq !== undefined) {
        const seqs = resultSeqs.get(block.payload.call_id);
        if (seqs === undefined) resultSeqs.set(block.payload.call_id, new Set([seq]));
        else seqs.add(seq);
      }
    }
  }

  return {
    accept(input: unknown): Block {
      let draft: DraftBlock | undefined;
      try {
        // throwing mode: the first problem throws, and nothing below records anything
        draft = inspectBlock(input, limits, undefined, undefined);
        if (draft !== undefined) relate(draft, undefined);
      } catch (error) {
        throw asTraceError(error, undefined);
      }
      if (draft === undefined) throw asTraceError(new TypeError('not an object'), undefined);
      const block = freezeBlock(draft);
      record(block);
      return block;
    },
    check(input: unknown): TraceError[] {
      const errors: TraceError[] = [];
      try {
        const draft = inspectBlock(input, limits, errors, undefined);
        if (draft !== undefined) relate(draft, errors);
      } catch (error) {
        errors.push(asTraceError(error, undefined));
      }
      return errors;
    },
    get(id: string): Block | undefined {
      return blocks.get(id);
    },
    get size(): number {
      return blocks.size;
    },
    limits,
  };
}
